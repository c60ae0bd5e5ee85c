"""The mem0 tool names (``add_memory``, ``search_memories``, ``get_memories`` …), so
prompts written for mem0 work unchanged; plus ``memory_dream``. Same registry,
same schemas everywhere as the other tools."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from trulymem.errors import InvalidInput
from trulymem.limits import LIMITS
from trulymem.mem0 import history as mem0_history
from trulymem.mem0 import ops as mem0_ops
from trulymem.model import Scope
from trulymem.tools.base import Tool, ToolContext, ToolInput, register
from trulymem.tools.fields import Label, Metadata, Query, Text

Filters = dict[str, Any]
FILTER_HELP = ('mem0 filters: {"AND": [...]}, {"OR": [...]}, {"NOT": {...}}, leaves {"field": value}, '
               '{"field": "*"} (set) or {"field": {"op": value}} with ops eq ne gt gte lt lte in nin contains '
               'icontains; fields user_id, agent_id, app_id, run_id, type, pinned, memory, created_at, updated_at '
               'or metadata keys (metadata.key, or {"metadata": {"key": value}}).')


class Result(BaseModel):
    """A mem0-shaped answer, passed through as is."""

    model_config = {"extra": "allow"}


class _Scoped(ToolInput):
    user_id: Label | None = Field(None, description="Whose memories (default: the server's user).")
    agent_id: Label | None = Field(None, description="Agent namespace.")
    app_id: Label | None = Field(None, description="App / project namespace.")


class AddMemoryInput(_Scoped):
    messages: list[dict[str, Any]] | None = Field(
        None, max_length=200, description='Conversation messages [{"role": "user", "content": "..."}].')
    text: Text | None = Field(None, description="Or one memory text.")
    run_id: Label | None = Field(None, description="Session / run the memory came from (provenance).")
    metadata: Metadata = Field(default_factory=dict, description="Free metadata; 'type', 'pinned', 'confidence' "
                                                                 "are used by recall and the dream, 'speculation' "
                                                                 "(true: a guess, not a stated fact), 'valid_at' "
                                                                 "(when it became true) and 'app_id' (its app "
                                                                 "namespace) are stored as such.")
    infer: bool = Field(False, description="Let the configured chat model extract facts from the messages.")


class SearchMemoriesInput(_Scoped):
    query: Query = Field(description=f"What to look for (at most {LIMITS.search_query_chars} characters).")
    filters: Filters | None = Field(None, description=FILTER_HELP)
    top_k: int = Field(10, ge=1, le=100)
    threshold: float | None = Field(None, ge=0.0, le=1.0, description="Minimum relevance score (0-1).")


class GetMemoriesInput(_Scoped):
    filters: Filters | None = Field(None, description=FILTER_HELP)
    page: int = Field(1, ge=1)
    page_size: int = Field(100, ge=1, le=mem0_ops.MAX_PAGE)


class MemoryIdInput(ToolInput):
    memory_id: Label
    user_id: Label | None = Field(None, description="Whose memory (default: the server's user). Changing or "
                                                    "deleting a memory needs a user: reading all users is read-only.")


class UpdateMemoryInput(MemoryIdInput):
    text: Text | None = Field(None, description="The new text (the old version stays in history).")
    metadata: Metadata | None = Field(None, description="Metadata keys to set.")


class DeleteAllInput(_Scoped):
    filters: Filters | None = Field(None, description=FILTER_HELP)


class DreamInput(_Scoped):
    mode: Literal["dry_run", "auto"] = Field(
        "dry_run", description="dry_run: the report only; auto: apply merges and prunes, skip conflicts.")


def _scope(ctx: ToolContext, inp: _Scoped, run_id: str | None = None) -> Scope:
    ctx.check_user(inp.user_id)
    return mem0_ops.scope_for(ctx.scope, inp.user_id, inp.agent_id, inp.app_id, run_id)


def _filtered(ctx: ToolContext, inp: SearchMemoriesInput | GetMemoriesInput | DeleteAllInput) -> Scope:
    """The arguments' ids, else the filters', else the server's defaults (never both, differing)."""
    ctx.check_user(inp.user_id, inp.filters)
    return mem0_ops.filtered_scope(ctx.scope, inp.filters, inp.user_id, inp.agent_id, inp.app_id)


def _add(ctx: ToolContext, inp: AddMemoryInput) -> Result:
    if (inp.messages is None) == (inp.text is None):
        raise InvalidInput("give either messages or text", field="messages")
    scope = _scope(ctx, inp, inp.run_id)
    return Result(**mem0_ops.add(ctx.within(scope), inp.messages if inp.messages is not None else inp.text,
                                 metadata=inp.metadata, infer=inp.infer, llm=ctx.llm))


def _search(ctx: ToolContext, inp: SearchMemoriesInput) -> Result:
    return Result(**mem0_ops.search(ctx, _filtered(ctx, inp), inp.query, filters=inp.filters, top_k=inp.top_k,
                                    threshold=inp.threshold))


def _get_all(ctx: ToolContext, inp: GetMemoriesInput) -> Result:
    return Result(**mem0_ops.get_all(ctx, _filtered(ctx, inp), filters=inp.filters, page=inp.page,
                                     page_size=inp.page_size))


def _owner(ctx: ToolContext, inp: MemoryIdInput) -> Scope:
    ctx.check_user(inp.user_id)
    return mem0_ops.scope_for(ctx.scope, inp.user_id)


def _get(ctx: ToolContext, inp: MemoryIdInput) -> Result:
    return Result(**mem0_ops.get(ctx, inp.memory_id, _owner(ctx, inp)))


def _update(ctx: ToolContext, inp: UpdateMemoryInput) -> Result:
    return Result(**mem0_ops.update(ctx, inp.memory_id, _owner(ctx, inp), text=inp.text, metadata=inp.metadata))


def _delete(ctx: ToolContext, inp: MemoryIdInput) -> Result:
    return Result(**mem0_ops.delete(ctx, inp.memory_id, _owner(ctx, inp)))


def _delete_all(ctx: ToolContext, inp: DeleteAllInput) -> Result:
    return Result(**mem0_ops.delete_all(ctx, _filtered(ctx, inp), inp.filters))


def _history(ctx: ToolContext, inp: MemoryIdInput) -> Result:
    return Result(results=mem0_history.history(ctx, inp.memory_id, _owner(ctx, inp)))


def _dream(ctx: ToolContext, inp: DreamInput) -> Result:
    from trulymem.dream import result_json, run_dream  # imports the graph facade, which imports the tools
    from trulymem.graph import TrulyMem

    lines: list[str] = []
    mem = TrulyMem(ctx.store, scope=_scope(ctx, inp), clock=lambda: ctx.now, embedder=ctx.embedder)
    res = run_dream(mem, auto=inp.mode == "auto", dry_run=inp.mode == "dry_run", emit=lines.append)
    return Result(**result_json(res), output="\n".join(lines))


for _tool in (
    Tool("add_memory", "Store a memory (mem0-compatible): messages or text, with metadata; infer=true lets the "
         "configured model extract facts.", AddMemoryInput, _add, own_transaction=True),
    Tool("search_memories", "Find memories relevant to a query (mem0-compatible), best first, with scores.",
         SearchMemoriesInput, _search, writes=False),
    Tool("get_memories", "List memories (mem0-compatible) with filters and pagination (page, page_size, total).",
         GetMemoriesInput, _get_all, writes=False),
    Tool("get_memory", "One memory by id (mem0-compatible).", MemoryIdInput, _get, writes=False),
    Tool("update_memory", "Change a memory's text and/or metadata (mem0-compatible); the old text stays in history.",
         UpdateMemoryInput, _update, destructive=True, idempotent=True),
    Tool("delete_memory", "Forget one memory by id (mem0-compatible; kept in history).", MemoryIdInput, _delete,
         destructive=True, idempotent=True),
    Tool("delete_all_memories", "Forget every memory matching the scope/filters (mem0-compatible; kept in history).",
         DeleteAllInput, _delete_all, destructive=True, idempotent=True),
    Tool("memory_history", "A memory's versions: ADD / UPDATE / DELETE events, oldest first.", MemoryIdInput,
         _history, writes=False),
    Tool("memory_dream", "Consolidate memories: report merges, contradictions, pairs for a person to review and "
         "stale ones (dry_run), or apply the merges and prunes, leaving conflicts and pairs to review (auto).",
         # its own short transactions (trulymem.dream.run_dream): the analysis holds no lock, the
         # apply writes in steps, so other users' readers and writers never wait for a whole dream
         DreamInput, _dream, destructive=True, own_transaction=True),
):
    register(_tool)
