"""``memory_purge``: invalidate, supersede or (explicitly) delete facts.

Criteria combine with AND and match exactly; ``*_contains`` fields match
substrings. A criterion that resolves to nothing makes the whole purge match
nothing — a purge never widens because one of its filters found no node.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from trulymem import budget
from trulymem.errors import InvalidInput
from trulymem.model import EdgeKind
from trulymem.recall.results import fact_text, shown_messages
from trulymem.store.base import FactQuery
from trulymem.text import name_key, relation_key
from trulymem.tools.base import InputPart, Tool, ToolContext, ToolInput, register, require_user
from trulymem.tools.commit import TripletIn, check_relation, commit_triplets
from trulymem.tools.fields import Confidence, Label, Metadata, Name, Relation, Text

MAX_PURGE = 10_000
_CHAIN_KINDS = {EdgeKind.HAS_STATE, EdgeKind.NEXT_TASK}


class PurgeCriteria(InputPart):
    ids: list[Label] | None = Field(None, min_length=1, max_length=1000, description="Exact fact ids.")
    subject: Name | None = Field(None, description="Exact subject name (case/width-insensitive).")
    relation: Relation | None = Field(None, description="Exact relation name.")
    object: Text | None = Field(None, description="Exact object name.")
    subject_contains: Name | None = Field(None, description="Substring of the subject name.")
    relation_contains: Relation | None = Field(None, description="Substring of the relation name.")
    object_contains: Text | None = Field(None, description="Substring of the object name.")
    kind: EdgeKind | None = None
    type: Label | None = None
    source: Label | None = None
    session_id: Label | None = Field(None, description="Only facts written in this session.")
    include_invalid: bool = Field(False, description="Also match facts that are already invalid (hard mode).")

    def is_empty(self) -> bool:
        return not any(v is not None for k, v in self.model_dump().items() if k != "include_invalid")


class Replacement(InputPart):
    subject: Name | None = Field(None, description="Default: the purged facts' subject.")
    relation: Relation | None = Field(None, description="Default: the purged facts' relation.")
    object: Text
    confidence: Confidence = 1.0
    speculation: bool = False
    type: Label | None = Field(None, description="Default: the purged facts' type.")
    pinned: bool | None = Field(None, description="Default: pinned if a purged fact was.")
    metadata: Metadata = Field(default_factory=dict)


    @field_validator("relation")
    @classmethod
    def _public_relation(cls, relation: str | None) -> str | None:
        if relation is not None:
            check_relation(relation, "relation")
        return relation


class PurgeInput(ToolInput):
    criteria: PurgeCriteria
    mode: Literal["soft", "supersede", "hard"] = Field(
        "soft", description="soft: invalidate (kept in history); supersede: invalidate and commit the "
        "replacement; hard: delete rows for good (needs confirm=true)."
    )
    replacement: Replacement | None = None
    confirm: bool = Field(False, description="Required for mode=hard.")
    dry_run: bool = Field(False, description="Only show what would be affected.")

    @model_validator(mode="after")
    def _check(self) -> PurgeInput:
        if self.criteria.is_empty():
            raise InvalidInput("needs at least one criterion; refusing to match everything", field="criteria")
        if self.mode == "supersede" and self.replacement is None:
            raise InvalidInput("is required for mode=supersede", field="replacement")
        if self.mode != "supersede" and self.replacement is not None:
            raise InvalidInput(f"only applies to mode=supersede, not mode={self.mode}", field="replacement")
        if self.mode == "hard" and not self.confirm and not self.dry_run:
            raise InvalidInput("must be true for mode=hard, which deletes for good (or use dry_run)", field="confirm")
        if self.criteria.include_invalid and self.mode != "hard":
            raise InvalidInput("only applies to mode=hard", field="criteria.include_invalid")
        return self


class PurgedFact(BaseModel):
    id: str
    text: str
    valid: bool


class PurgeResult(BaseModel):
    mode: str
    dry_run: bool
    matched: list[PurgedFact]
    replacement_id: str | None = None
    deleted_nodes: list[str] = Field(default_factory=list, description="hard: nodes left with no facts, deleted too")
    unlinked: list[str] = Field(default_factory=list,
                                description="hard: facts that were superseded by a deleted fact and lose that link")


def _purge(ctx: ToolContext, inp: PurgeInput) -> PurgeResult:
    scope, store, c = ctx.scope.writable(), ctx.store, inp.criteria
    require_user(ctx)
    query = FactQuery(
        scope=scope,
        ids=c.ids,
        session_ids=[c.session_id] if c.session_id is not None else None,
        subject_ids=ctx.node_ids(c.subject) if c.subject is not None else None,
        object_ids=ctx.node_ids(c.object) if c.object is not None else None,
        relation_keys=[relation_key(c.relation)] if c.relation is not None else None,
        kinds=[c.kind] if c.kind is not None else None,
        types=[c.type] if c.type is not None else None,
        source=c.source,
        subject_contains=name_key(c.subject_contains) if c.subject_contains else None,
        relation_contains=relation_key(c.relation_contains) if c.relation_contains else None,
        object_contains=name_key(c.object_contains) if c.object_contains else None,
        validity="all" if c.include_invalid else "current",
        limit=MAX_PURGE + 1,
    )
    facts = store.facts(query)
    budget.check("matching facts to purge")  # the last point at which stopping writes nothing
    if len(facts) > MAX_PURGE:
        raise InvalidInput(f"matches more than {MAX_PURGE} facts; narrow the criteria", field="criteria")
    shown = shown_messages(store, scope, facts)  # a message end by its words, not its id
    result = PurgeResult(
        mode=inp.mode,
        dry_run=inp.dry_run,
        matched=[PurgedFact(id=f.id, text=fact_text(f, shown), valid=f.is_valid) for f in facts],
    )
    if not facts:
        return result
    structural = {f.kind for f in facts} & _CHAIN_KINDS
    if structural and inp.mode != "hard":
        raise InvalidInput(f"matches {', '.join(sorted(structural))} facts, which keep a task's single state and "
                           "the chain order: use task_set_state (or mode=hard to delete)", field="criteria")
    replacement: TripletIn | None = None
    if (rep := inp.replacement) is not None:
        replacement = TripletIn(
            subject=rep.subject or _only({f.subject or "" for f in facts}, "replacement.subject"),
            relation=rep.relation or _only({f.relation for f in facts}, "replacement.relation"),
            object=rep.object, confidence=rep.confidence, speculation=rep.speculation,
            type=rep.type or _common({f.type for f in facts}),
            pinned=rep.pinned if rep.pinned is not None else any(f.pinned for f in facts),
            source=_common({f.source for f in facts}), metadata=rep.metadata,
        )
        # The correction lives where the corrected facts lived, with their kind (a persona stays a persona).
        namespaces = {(f.agent_id, f.app_id) for f in facts}
        if len(namespaces) > 1:
            raise InvalidInput("the matched facts belong to several agents/apps; narrow the scope to one",
                               field="criteria")
        ((agent_id, app_id),) = namespaces
        write_ctx = ctx.beside(agent_id, app_id)
        kinds = {f.kind for f in facts}
        replacement_kind = kinds.pop() if len(kinds) == 1 else EdgeKind.FACT
    ids = [f.id for f in facts]
    if inp.mode == "hard":
        # Reported before deleting, so a dry run shows exactly what the real run does.
        refs = Counter(n for f in facts for n in {f.subject_id, f.object_id})
        totals = store.fact_counts(list(refs))
        result.deleted_nodes = [n for n, k in refs.items() if totals.get(n, 0) == k]
        user = scope.user_wide()
        gone = set(ids)
        result.unlinked = [f.id for f in store.facts(FactQuery(scope=user, superseded_by=ids, validity="all"))
                           if f.id not in gone]
    if inp.dry_run:
        return result
    if inp.mode == "hard":
        store.delete_facts(ids)
        store.delete_orphan_nodes(result.deleted_nodes)
        return result
    store.invalidate_facts(ids, ctx.now)
    if replacement is not None:
        ((new, _status),) = commit_triplets(write_ctx, [replacement], kind=replacement_kind)
        store.invalidate_facts(ids, ctx.now, superseded_by=new.id)
        result.replacement_id = new.id
    return result


def _common(values: set[str | None]) -> str | None:
    return values.pop() if len(values) == 1 else None


def _only(values: set[str], field: str) -> str:
    if len(values) != 1:
        raise InvalidInput("is required: the matched facts do not share one", field=field)
    return values.pop()


memory_purge = register(
    Tool(
        name="memory_purge",
        description=(
            "Correct or forget facts. Criteria combine with AND. mode=soft invalidates (kept in history), "
            "mode=supersede invalidates and records the replacement, mode=hard deletes (needs confirm=true). "
            "Use dry_run=true to preview."
        ),
        input_model=PurgeInput,
        run=_purge,
        destructive=True,
    )
)
