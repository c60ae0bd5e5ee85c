"""``memory_commit``: write triplets; the same triplet twice reinforces one fact."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, Protocol

from pydantic import BaseModel, Field, model_validator

from trulymem.errors import InvalidInput
from trulymem.model import MAX_NAME, MAX_RELATION, MAX_TEXT, EdgeKind, Fact, NodeType, Scope, UTCDatetime, new_ids
from trulymem.store.base import FactQuery, NodeSpec, Store, replaces
from trulymem.text import name_key, relation_key
from trulymem.text.speculation import speculation_reason, speculation_warning
from trulymem.text.statements import preference, preference_keys, single_valued, slot_keys
from trulymem.tools.base import InputPart, Tool, ToolContext, ToolInput, register
from trulymem.tools.fields import (
    MAX_TRIPLETS,
    Confidence,
    Label,
    Message,
    Metadata,
    Name,
    NodeTypeName,
    Relation,
    Text,
)

_KINDS = {k.value.casefold(): k for k in EdgeKind if k is not EdgeKind.FACT}
_RESERVED_RELATIONS = {"has_state": "task_set_state", "next_task": "task_create", "has_persona": "persona_set"}
# The seed writes guesses as ``user[speculation] likes music``: a mark on the subject, not a new node.
_SPECULATION_MARK = re.compile(r"^\s*\[(?:speculation|speculative|inferred|推测|猜测)\]\s*|\s*\[(?:speculation|"
                               r"speculative|inferred|推测|猜测)\]\s*$", re.IGNORECASE)
_RESERVED_TYPES = {NodeType.TASK.value: "task_create", NodeType.STATE.value: "task_set_state",
                   NodeType.PERSONA.value: "persona_set"}


class TripletIn(InputPart):
    subject: Name = Field(description="The thing the fact is about, e.g. 'user' or 'idiom_chain_current'.")
    relation: Relation = Field(description="What links subject to object, e.g. 'likes', 'lives_in', 'content'.")
    object: Text = Field(description="The value or thing, e.g. 'rock music' or '为所欲为'.")
    confidence: Confidence = Field(1.0, description="How sure, 0 to 1.")
    subject_type: NodeTypeName | None = Field(None, description="Node type of the subject, default EntityNode.")
    object_type: NodeTypeName | None = Field(None, description="Node type of the object, default EntityNode.")
    speculation: bool = Field(False, description="True when inferred rather than stated by the user.")
    type: Label | None = Field(None, description="A category label, e.g. 'preference' or 'session_state'.")
    pinned: bool = Field(False, description="Pinned facts rank first and are never consolidated away.")
    source: Label | None = Field(None, description="Where the fact came from, e.g. 'user' or 'import'.")
    metadata: Metadata = Field(default_factory=dict, description="Free JSON metadata.")
    valid_at: UTCDatetime | None = Field(None, description="When the fact became true (event time); default now.")

    @model_validator(mode="before")
    @classmethod
    def _speculation_mark(cls, data: Any) -> Any:
        subject = data.get("subject") if isinstance(data, dict) else None
        # every mark has a "[": the test before the search saves a regex per triplet
        if isinstance(subject, str) and "[" in subject and _SPECULATION_MARK.search(subject):
            if data.get("speculation") is False:
                raise InvalidInput("is marked [speculation] but speculation is false", field="subject")
            data = {**data, "subject": _SPECULATION_MARK.sub("", data["subject"]), "speculation": True}
        return data


class Triplet(Protocol):
    """What ``commit_triplets`` reads of a triplet: a validated ``TripletIn`` or a ``Link``."""

    @property
    def subject(self) -> str: ...
    @property
    def relation(self) -> str: ...
    @property
    def object(self) -> str: ...
    @property
    def confidence(self) -> float: ...
    @property
    def subject_type(self) -> str | None: ...
    @property
    def object_type(self) -> str | None: ...
    @property
    def speculation(self) -> bool: ...
    @property
    def type(self) -> str | None: ...
    @property
    def pinned(self) -> bool: ...
    @property
    def source(self) -> str | None: ...
    @property
    def metadata(self) -> Mapping[str, Any]: ...
    @property
    def valid_at(self) -> datetime | None: ...


_NO_METADATA: Mapping[str, Any] = MappingProxyType({})


class Link(NamedTuple):
    """A triplet the code builds itself from parts already validated (an ingest's structural
    links): no pydantic model per triplet, which was ~7 us each. Made by ``built_triplet``.
    A named tuple: made in a quarter of a frozen dataclass's time (which sets each field
    through ``object.__setattr__``), and as read-only."""

    subject: str
    relation: str
    object: str
    subject_type: str | None = None
    object_type: str | None = None
    type: str | None = None
    source: str | None = None
    valid_at: datetime | None = None
    confidence: float = 1.0
    speculation: bool = False
    pinned: bool = False

    @property
    def metadata(self) -> Mapping[str, Any]:
        return _NO_METADATA


@lru_cache(maxsize=4096)  # an ingest names each speaker, episode and session in several links
def _plain(value: str, limit: int) -> bool:
    """``value`` is what a ``Name``/``Text``/``Relation`` field would keep unchanged."""
    return 0 < len(value) <= limit and value == value.strip() and bool(name_key(value))


def built_triplet(subject: str, relation: str, obj: str, *, subject_type: str | None = None,
                  object_type: str | None = None, type: str | None = None, source: str | None = None,
                  valid_at: datetime | None = None) -> Triplet:
    """A triplet from parts the caller built out of validated input (``type``/``source`` are
    the caller's own labels, ``valid_at`` already UTC): a ``Link`` when ``TripletIn`` would
    keep every part as it is, else the validated ``TripletIn`` (a ``[speculation]`` mark, an
    overlong name: it normalises or refuses them as it always has)."""
    if "[" not in subject and _plain(subject, MAX_NAME) and _plain(relation, MAX_RELATION) and _plain(obj, MAX_TEXT):
        return Link(subject, relation, obj, subject_type, object_type, type, source, valid_at)
    return TripletIn(subject=subject, relation=relation, object=obj, subject_type=subject_type,
                     object_type=object_type, type=type, source=source, valid_at=valid_at)


class CommitInput(ToolInput):
    triplets: list[TripletIn] = Field(min_length=1, max_length=MAX_TRIPLETS)
    turn_id: Label | None = Field(None, description="Provenance: the conversation turn that produced these facts.")
    message_ids: list[Label] = Field(default_factory=list, max_length=100, description="Provenance: message ids.")
    supersede: bool = Field(True, description="A stated new value of a single-valued relation (lives_in, works_at, "
                                              "birthday, favorite_* …) replaces the current one, which stays in history.")
    user_message: Message | None = Field(None, description=(
        "The user's message these facts come from. A fact about the user that it does not state with the same "
        "polarity (a question, someone else, a condition, the opposite) is stored with speculation=true, and the "
        "result warns why."))

    @model_validator(mode="after")
    def _no_forged_structure(self) -> CommitInput:
        # Task states, the chain and the persona have invariants (one current state, one
        # chain order) that only their own tools keep.
        for i, t in enumerate(self.triplets):
            check_relation(t.relation, f"triplets.{i}.relation")
            if t.subject_type is None and t.object_type is None:
                continue
            for side in ("subject_type", "object_type"):
                owner = _RESERVED_TYPES.get(getattr(t, side) or "")
                if owner:
                    raise InvalidInput(f"{getattr(t, side)} nodes are created by {owner}", field=f"triplets.{i}.{side}")
        return self


class CommittedFact(BaseModel):
    id: str
    status: Literal["created", "reinforced"]
    text: str
    mention_count: int


class CommitResult(BaseModel):
    created: list[str]
    reinforced: list[str]
    facts: list[CommittedFact]
    superseded: list[str] = Field(default_factory=list, description="Earlier values these facts replaced.")
    warnings: list[str] = Field(default_factory=list, description="Facts stored as speculation, and why.")


def check_relation(relation: str, field: str) -> None:
    """Refuse relations whose edges only the task and persona tools may write."""
    owner = _RESERVED_RELATIONS.get(relation_key(relation))
    if owner:
        raise InvalidInput(f"{relation!r} edges are written by {owner}", field=field)


def edge_kind(relation: str) -> EdgeKind:
    """Structural relations (``HAS_STATE`` …) keep their kind; anything else is a plain fact."""
    return _KINDS.get(relation_key(relation), EdgeKind.FACT)


def commit_triplets(
    ctx: ToolContext,
    triplets: Sequence[Triplet],
    *,
    kind: EdgeKind | None = None,
    turn_id: str | None = None,
    message_ids: list[str] | None = None,
    supersede: bool = False,
    provenance: Sequence[tuple[str | None, Sequence[str]]] | None = None,
) -> list[tuple[Fact, str]]:
    """Resolve nodes, then insert new facts and reinforce existing ones, as one batch;
    with ``supersede``, a stated new value of a single-valued relation invalidates the
    subject's current one (``superseded_by`` the new fact). ``provenance`` gives each
    triplet its own ``(turn_id, message_ids)`` in place of the batch's (an ingest commits
    many turns at once); a fact keeps the provenance of the triplet that created it.

    Returns ``(fact, "created" | "reinforced")`` in input order (a triplet repeated
    within the batch reinforces its own first occurrence)."""
    scope, store, now = ctx.scope.writable(), ctx.store, ctx.now
    if provenance is not None and len(provenance) != len(triplets):
        raise InvalidInput(f"has {len(provenance)} provenance entries for {len(triplets)} triplets",
                           field="provenance")
    store.ensure_user(scope.user_id, now)  # type: ignore[arg-type]
    triples = _resolve(store, scope, triplets, now)
    existing = store.active_facts_for(triples)
    batch: dict[tuple[str, str, str], tuple[Fact, str]] = {}
    user_id, agent_id, app_id, session_id = scope.user_id, scope.agent_id, scope.app_id, scope.session_id
    default_mids = list(message_ids or ())
    kinds: dict[str, EdgeKind] = {}  # relation -> its edge kind: a batch has few relations
    for i, (t, triple) in enumerate(zip(triplets, triples)):
        prior = batch.get(triple) or ((existing[triple], "reinforced") if triple in existing else None)
        if prior is not None:
            batch[triple] = (_reinforce(prior[0], t, now, kind), prior[1])
            continue
        if provenance is not None:
            tid, mids = provenance[i][0], list(provenance[i][1])
        else:
            tid, mids = turn_id, default_mids.copy()
        relation = t.relation
        edge = kind or kinds.get(relation) or kinds.setdefault(relation, edge_kind(relation))
        batch[triple] = (Fact(  # its id comes below, with the batch's others
            id="", user_id=user_id, agent_id=agent_id, app_id=app_id,  # type: ignore[arg-type]
            session_id=session_id, subject_id=triple[0], relation=relation,
            object_id=triple[2], kind=edge, confidence=t.confidence,
            speculation=t.speculation, pinned=t.pinned, type=t.type, source=t.source,
            metadata=dict(t.metadata) if t.metadata else {}, turn_id=tid,
            message_ids=mids, created_at=now, updated_at=now,
            valid_at=t.valid_at or now,
            subject=t.subject, object=t.object,
        ), "created")
    created = [f for f, status in batch.values() if status == "created"]
    for f, fid in zip(created, new_ids(len(created))):  # in creation order, as one by one
        f.id = fid
    store.insert_facts(created)
    store.reinforce_facts([f for f, status in batch.values() if status == "reinforced"])
    if supersede:
        supersede_single_valued(ctx, created)
    return [batch[triple] for triple in triples]


def current_facts(ctx: ToolContext, triplets: Sequence[Triplet]) -> list[Fact | None]:
    """The active fact each triplet would reinforce, if any (its nodes are resolved, so
    call inside the write transaction that commits them)."""
    scope = ctx.scope.writable()
    ctx.store.ensure_user(scope.user_id, ctx.now)  # type: ignore[arg-type]
    triples = _resolve(ctx.store, scope, triplets, ctx.now)
    found = ctx.store.active_facts_for(triples)
    return [found.get(t) for t in triples]


def _resolve(store: Store, scope: Scope, triplets: Sequence[Triplet], now: datetime) -> list[tuple[str, str, str]]:
    """Each triplet as ``(subject id, relation key, object id)``, creating missing nodes."""
    keys = [(name_key(t.subject), relation_key(t.relation), name_key(t.object)) for t in triplets]
    wanted: dict[str, tuple[str, str]] = {}  # by_key's rule, without a NodeSpec per mention of a node
    entity = NodeType.ENTITY
    for t, (sk, _, ok) in zip(triplets, keys):
        # a node is named many times in a batch (an episode in each of its links): most mentions
        # find it wanted with its type already, and only a specific type after EntityNode replaces
        prev = wanted.get(sk)
        if prev is None or (prev[1] == entity and replaces(prev[1], t.subject_type or entity)):
            wanted[sk] = (t.subject, t.subject_type or entity)
        prev = wanted.get(ok)
        if prev is None or (prev[1] == entity and replaces(prev[1], t.object_type or entity)):
            wanted[ok] = (t.object, t.object_type or entity)
    nodes = store.resolve_nodes(scope, [NodeSpec(k, name, type_) for k, (name, type_) in wanted.items()], now)
    return [(nodes[sk], rk, nodes[ok]) for sk, rk, ok in keys]


def supersede_single_valued(ctx: ToolContext, created: list[Fact]) -> list[str]:
    """Invalidate the values that ``created`` replaces — the current value of a single-valued
    relation, or the opposite preference for the same thing (dislikes rock replaces likes
    rock); returns their ids. A guess never replaces anything, and pinned values stay (the
    dream shows the conflict instead)."""
    slots: dict[tuple[str, str], Fact] = {}
    prefs: dict[tuple[str, str], Fact] = {}
    kinds: dict[str, tuple[str | None, bool]] = {}  # relation -> (its slot, is a preference): a batch has few
    for f in created:
        if f.kind != EdgeKind.FACT or f.speculation:
            continue
        known = kinds.get(f.relation)
        if known is None:
            known = kinds[f.relation] = (single_valued(f.relation), preference(f.relation) is not None)
        canon, prefers = known
        if canon:
            slots[(f.subject_id, canon)] = f  # within one batch the last value wins
        elif prefers:
            prefs[(f.subject_id, f.object_id)] = f
    current = _slot_values(ctx, slots) + _opposite_preferences(ctx, prefs)
    successor: dict[str, str] = {}  # old fact id -> the new one that replaces it
    for old in current:
        if old.pinned:
            continue
        new = slots.get((old.subject_id, single_valued(old.relation) or ""))
        if new is not None and old.object_id == new.object_id:
            new = None
        if new is None:
            new = prefs.get((old.subject_id, old.object_id))
            old_pref = preference(old.relation)
            if new is not None and (old_pref is None or old_pref == preference(new.relation)):
                new = None
        if new is not None and old.id != new.id:
            successor[old.id] = new.id
    if successor:
        ctx.store.supersede_facts(list(successor.items()), ctx.now)  # one batch, not one call per new value
    return list(successor)


def _slot_values(ctx: ToolContext, slots: dict[tuple[str, str], Fact]) -> list[Fact]:
    """The current facts in the single-valued slots of ``slots``' subjects."""
    if not slots:
        return []
    return ctx.store.facts(FactQuery(
        scope=ctx.scope.user_wide(), subject_ids=list({s for s, _ in slots}), kinds=[EdgeKind.FACT],
        relation_keys=sorted({k for _, canon in slots for k in slot_keys(canon)})))


def _opposite_preferences(ctx: ToolContext, prefs: dict[tuple[str, str], Fact]) -> list[Fact]:
    """The current facts stating the opposite preference between the same subject and object:
    each one looked up as a triple (every subject's facts with every object's, the query this
    replaces, read thousands of a hub's facts per commit)."""
    triples = [(s, key, o) for (s, o), f in prefs.items() for key in preference_keys(not preference(f.relation))]
    found = ctx.store.active_facts_for(triples) if triples else {}
    return [f for f in found.values() if f.kind == EdgeKind.FACT]


def _reinforce(fact: Fact, t: Triplet, now: datetime, kind: EdgeKind | None) -> Fact:
    if t.speculation and not fact.speculation and kind in (None, fact.kind):
        return fact  # a guess adds nothing to what the user stated: not a mention, not more confidence
    merged: dict[str, Any] = {**fact.metadata, **t.metadata}
    return dataclasses.replace(
        fact,
        kind=kind or fact.kind,  # persona_set adopts a plain (AI, role, x) fact as persona
        mention_count=fact.mention_count + 1,
        updated_at=now,
        confidence=max(fact.confidence, t.confidence),
        # A user stating what was only guessed makes it a plain fact.
        speculation=fact.speculation and t.speculation,
        pinned=fact.pinned or t.pinned,
        type=t.type or fact.type,
        metadata=merged,
    )


def checked_against(triplets: list[TripletIn], said: str, user_id: str | None) -> tuple[list[TripletIn], list[str]]:
    """``triplets`` with each claim that ``said`` (the user's message) does not state — about
    the user, or hedged — marked speculation, and a warning for each one marked; a triplet
    already marked stays as it is."""
    out: list[TripletIn] = []
    warnings: list[str] = []
    for t in triplets:
        why = None if t.speculation else speculation_reason(t.subject, t.relation, t.object, said, user_id)
        if why:
            t = t.model_copy(update={"speculation": True})
            warnings.append(speculation_warning(why, t.subject, t.relation, t.object))
        out.append(t)
    return out, warnings


def _commit(ctx: ToolContext, inp: CommitInput) -> CommitResult:
    triplets, warnings = inp.triplets, []  # type: list[TripletIn], list[str]
    if inp.user_message is not None:
        triplets, warnings = checked_against(inp.triplets, inp.user_message, ctx.scope.user_id)
    done = commit_triplets(ctx, triplets, turn_id=inp.turn_id, message_ids=inp.message_ids)
    superseded = supersede_single_valued(ctx, [f for f, st in done if st == "created"]) if inp.supersede else []
    facts: dict[str, dict[str, Any]] = {}
    for fact, status in done:
        facts.setdefault(fact.id, {"id": fact.id, "status": status, "text": fact.render(),
                                   "mention_count": fact.mention_count})
    rows = list(facts.values())
    # One validation call for the whole batch: per-item model construction dominates big commits.
    return CommitResult.model_validate({
        "created": [f["id"] for f in rows if f["status"] == "created"],
        "reinforced": [f["id"] for f in rows if f["status"] == "reinforced"],
        "facts": rows,
        "superseded": superseded,
        "warnings": warnings,
    })


memory_commit = register(
    Tool(
        name="memory_commit",
        description=(
            "Store facts as (subject) -[relation]-> (object) triplets. Write what the user states; "
            "anything you only infer must have speculation=true. Pass the user's message as user_message: a fact "
            "about the user it does not state is then stored as speculation. Committing a known fact again "
            "reinforces it."
        ),
        input_model=CommitInput,
        run=_commit,
        bulk=True,
    )
)
