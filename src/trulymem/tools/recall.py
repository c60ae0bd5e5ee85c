"""``memory_recall``: a ranked, deduplicated subgraph plus a compact text rendering."""

from __future__ import annotations

from pydantic import Field, model_validator

from trulymem.errors import InvalidInput
from trulymem.limits import LIMITS, RECALL_LIMIT_MAX, shown
from trulymem.model import UTCDatetime
from trulymem.recall import PRESETS, RecallQuery, RecallResult, recall
from trulymem.tools.base import InputPart, Tool, ToolContext, ToolInput, register, require_user
from trulymem.tools.fields import Name

MAX_QUERY = LIMITS.recall_query_chars


class TimeRange(InputPart):
    start: UTCDatetime | None = None
    end: UTCDatetime | None = None

    @model_validator(mode="after")
    def _order(self) -> TimeRange:
        if self.start and self.end and self.start > self.end:
            raise InvalidInput("is after end", field="start")
        return self


class RecallInput(ToolInput):
    query_intent: str = Field(
        "", max_length=MAX_QUERY,
        description="Comma- or space-separated intents in any language, e.g. 'AI,persona,role,tone' or "
                    "'TaskNode,working_memory,task_chain' or '猫娘,成语'. Empty: persona and newest tasks.",
    )
    depth: int = Field(2, ge=0, le=3, description="Hops to expand over the graph from the matches (0-3).")
    seed_entities: list[Name] = Field(default_factory=list, max_length=50, description="Node names to start from.")
    limit: int = Field(20, ge=1, le=RECALL_LIMIT_MAX, description="Most facts to return.")
    time_range: TimeRange | None = Field(None, description="Only facts whose event time lies in this range.")
    as_of: UTCDatetime | None = Field(None, description="Recall what was valid at this past time.")
    include_invalid: bool = Field(False, description="Also return corrected/forgotten facts.")
    max_tokens: int | None = Field(None, ge=1, le=100_000,
                                   description="Cut the result so its text fits this many tokens (best first).")
    preset: str = Field("balanced", description="Retrieval preset: fast, balanced or deep.")

    @model_validator(mode="after")
    def _preset(self) -> RecallInput:
        if self.preset not in PRESETS:
            raise InvalidInput(f"unknown preset {shown(self.preset)}; use one of {', '.join(PRESETS)}", field="preset")
        return self


def _recall(ctx: ToolContext, inp: RecallInput) -> RecallResult:
    require_user(ctx)
    tr = inp.time_range
    q = RecallQuery(
        query_intent=inp.query_intent, depth=inp.depth, seed_entities=list(inp.seed_entities), limit=inp.limit,
        time_from=tr.start if tr else None, time_to=tr.end if tr else None,
        as_of=inp.as_of, include_invalid=inp.include_invalid, max_tokens=inp.max_tokens,
    )
    return recall(ctx.store, ctx.scope, q, ctx.now, PRESETS[inp.preset], embedder=ctx.embedder)


memory_recall = register(Tool(
    name="memory_recall",
    description=(
        "Recall memories relevant to the intents: matching nodes and facts plus their graph neighbourhood up to "
        "`depth` hops, ranked. Use 'AI,persona,role,character,tone,speaking_style' for the persona and "
        "'TaskNode,working_memory,task_chain' for the task chain."
    ),
    input_model=RecallInput,
    run=_recall,
    writes=False,
))
