"""``memory_stats``: counts by node type, fact kind and validity."""

from __future__ import annotations

from pydantic import BaseModel

from trulymem.tools.base import Tool, ToolContext, ToolInput, register, require_user


class StatsInput(ToolInput):
    pass


class StatsResult(BaseModel):
    users: int
    nodes: int
    facts_valid: int
    facts_invalid: int
    nodes_by_type: dict[str, int]
    facts_by_kind: dict[str, dict[str, int]]


def _stats(ctx: ToolContext, inp: StatsInput) -> StatsResult:
    require_user(ctx)
    st = ctx.store.stats(ctx.scope)
    return StatsResult(
        users=st.users,
        nodes=sum(st.nodes_by_type.values()),
        facts_valid=sum(v["valid"] for v in st.facts_by_kind.values()),
        facts_invalid=sum(v["invalid"] for v in st.facts_by_kind.values()),
        nodes_by_type=dict(sorted(st.nodes_by_type.items())),
        facts_by_kind=dict(sorted(st.facts_by_kind.items())),
    )


memory_stats = register(Tool(
    name="memory_stats",
    description="How much is stored: nodes by type, facts by kind, valid and invalid.",
    input_model=StatsInput,
    run=_stats,
    writes=False,
))
