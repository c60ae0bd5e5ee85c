"""mem0's memory operations on trulymem's graph, shared by ``trulymem.Memory``, the
MCP tools and the HTTP API.

A mem0 memory is a fact ``(user) -[memory]-> (text)`` in the same graph as every
triplet, so recall and the dream see both; what an assistant said is
``(assistant) -[memory]-> (text)``, never a fact about the user. ``run_id`` is the
session; a message's ``role`` and ``name`` (mem0's ``actor_id``) are kept in the
fact's metadata and shown at the top level. Updates keep history: a new text
supersedes the old fact and the memory keeps its public id and ``created_at`` (its
first version's, see ``ids``); metadata-only updates change the fact in place; an
update to another memory's text is refused (two memories are never fused); the same
text added with other metadata values is a new version (an UPDATE). Deletes
invalidate, they do not erase. A memory a dream merged into another, or that lost a
conflict, is gone under its id (``NotFound`` naming the memory that took its place)
and its history ends with a DELETE saying so.

Filters narrow, never widen: a call names entity ids as arguments or in its filters
(the two naming different ids is refused), and what it reads or deletes is only what
both select.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterator
from dataclasses import replace
from itertools import islice
from typing import Any

from trulymem import budget
from trulymem.errors import Conflict, InvalidInput, NotFound
from trulymem.filters import Env, check_filter, compile_filter, scope_of, users_of
from trulymem.llm.base import LLM, json_reply
from trulymem.mem0.ids import (
    Retirement,
    first_versions,
    newest,
    retirement,
    stored_ids,
)
from trulymem.mem0.items import OWNER, SUBJECTS, born, item_dicts, said_by
from trulymem.memories import MEMORY_RELATION, MemoryItem, as_items, is_memory, iter_memories
from trulymem.model import MAX_TEXT, Fact, Scope, UTCDatetime, to_json
from trulymem.recall import RecallQuery, recall
from trulymem.store.base import FactQuery, NodeQuery
from trulymem.text import name_key
from trulymem.tools.base import ToolContext, embed_dirty, validate_as
from trulymem.tools.commit import TripletIn, commit_triplets, current_facts
from trulymem.tools.fields import MAX_LABEL, MAX_TRIPLETS, Label, Metadata, Query, Text

MAX_PAGE = 1000
_RESERVED_META = {"type", "pinned", "confidence"}
EXTRACT_PROMPT = ("Extract the facts worth remembering about the user from this conversation, each as one short "
                  "self-contained sentence in the conversation's language. Reply with a JSON list of strings and "
                  "nothing else; [] when there is nothing.\n\n{conversation}")


def scope_for(base: Scope, user_id: str | None = None, agent_id: str | None = None, app_id: str | None = None,
              run_id: str | None = None) -> Scope:
    """The scope a call writes into: the defaults, overridden by what the call names
    (no user at all: every user, read-only)."""
    if not (user_id or base.user_id):
        return Scope.everyone()
    return Scope(user_id=user_id or base.user_id, agent_id=agent_id or base.agent_id, app_id=app_id or base.app_id,
                 session_id=run_id or base.session_id)


def filtered_scope(defaults: Scope, filters: Any, user_id: str | None = None, agent_id: str | None = None,
                   app_id: str | None = None) -> Scope:
    """The scope a filtered call (list, search, delete_all) works in: the ids it names as
    arguments, else those its filters require (top level and ``AND``), else the defaults.
    An argument and a filter naming different ids is refused, never one of them dropped."""
    named = scope_of(filters)
    given = {"user_id": user_id, "agent_id": agent_id, "app_id": app_id}
    for key, value in given.items():
        if value is not None and not value.strip():
            raise InvalidInput("is empty: leave it out, or name one", field=key)  # never read as "any"
        if value and named.get(key) and named[key] != value:
            raise InvalidInput(f"the arguments and the filters name different {key}s", field=f"filters.{key}")
    return scope_for(defaults, *(value or named.get(key) for key, value in given.items()))


def _read_scope(base: Scope, filters: Any) -> Scope:
    """What a filtered call reads: ``base`` narrowed by the ids its filters require (a
    filter naming another id than ``base`` is refused: the answer would not be what was asked)."""
    named = scope_of(filters)
    for key in ("user_id", "agent_id", "app_id"):
        if getattr(base, key) and named.get(key) and named[key] != getattr(base, key):
            raise InvalidInput(f"the arguments and the filters name different {key}s", field=f"filters.{key}")
    user = named.get("user_id", base.user_id)
    if not user:
        return Scope.everyone()
    return Scope(user_id=user, agent_id=named.get("agent_id", base.agent_id), app_id=named.get("app_id", base.app_id))


def _messages(messages: Any) -> list[dict[str, str]]:
    """Each message's role, text and optional ``name`` (mem0's ``actor_id``), checked as
    ``memory_commit`` checks an object (at most 4,000 characters: one memory, not a document)."""
    if isinstance(messages, str):
        return [{"role": "user", "content": validate_as(Text, messages, "messages")}]
    if isinstance(messages, dict):
        messages = [messages]
    if not isinstance(messages, list) or not messages:
        raise InvalidInput("must be a string, a message or a non-empty list of messages", field="messages")
    if len(messages) > MAX_TRIPLETS:
        raise InvalidInput(f"holds {len(messages)} messages; the limit is {MAX_TRIPLETS} a call", field="messages")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise InvalidInput("must be an object with a 'content' string", field=f"messages.{i}")
        role = m.get("role", "user")
        if not isinstance(role, str) or not 0 < len(role) <= MAX_LABEL:
            raise InvalidInput(f"must be a string of 1-{MAX_LABEL} characters", field=f"messages.{i}.role")
        msg = {"role": role, "content": validate_as(Text, m.get("content"), f"messages.{i}.content")}
        if m.get("name") is not None:
            msg["name"] = validate_as(Label, m["name"], f"messages.{i}.name")
        out.append(msg)
    return out


def _fields(metadata: dict[str, Any] | None) -> dict[str, Any]:
    """A memory's fact fields from mem0 metadata, with ``memory_commit``'s limits: JSON of at
    most 16 KB, a ``type`` label, a boolean ``pinned``, a ``confidence`` from 0 to 1."""
    if not isinstance(metadata, dict | None):
        raise InvalidInput("must be an object", field="metadata")
    meta = validate_as(Metadata, metadata or {}, "metadata")
    fields: dict[str, Any] = {"metadata": {k: v for k, v in meta.items() if k not in _RESERVED_META}}
    if meta.get("type") is not None:
        fields["type"] = validate_as(Label, meta["type"], "metadata.type")
    if "pinned" in meta:
        if not isinstance(meta["pinned"], bool):
            raise InvalidInput("must be true or false", field="metadata.pinned")
        fields["pinned"] = meta["pinned"]
    if meta.get("confidence") is not None:
        c = meta["confidence"]
        if isinstance(c, bool) or not isinstance(c, int | float) or not 0 <= c <= 1:
            raise InvalidInput("must be a number from 0 to 1", field="metadata.confidence")
        fields["confidence"] = float(c)
    return fields


# mem0 metadata keys with a meaning here, honoured when a memory is added (never kept as free
# metadata): ``speculation`` a guess rather than a stated fact, ``valid_at`` when it became true,
# ``app_id`` the app namespace it is written into (as mem0's app_id: a scope, filterable)
_ADD_META = ("speculation", "valid_at", "app_id")


# a memory's ids, which mem0 writes into its metadata: named there, they must be the call's own
_ID_META = {"user_id": "user_id", "agent_id": "agent_id", "run_id": "session_id"}


def _added(ctx: ToolContext, metadata: Any) -> tuple[ToolContext, dict[str, Any]]:
    """``add``'s context and fact fields: ``_fields`` and the ``_ADD_META`` keys honoured;
    an id in the metadata (``user_id``, ``agent_id``, ``run_id``) is the call's or refused."""
    if not isinstance(metadata, dict):
        return ctx, _fields(metadata)
    for key, attr in _ID_META.items():
        if key in metadata and metadata[key] != getattr(ctx.scope, attr):
            raise InvalidInput(f"names {metadata[key]!r}, but the memory is added for {getattr(ctx.scope, attr)!r}: "
                               f"a memory's {key} is an argument, not metadata", field=f"metadata.{key}")
    metadata = {k: v for k, v in metadata.items() if k not in _ID_META}
    extra: dict[str, Any] = {}
    if metadata.get("speculation") is not None:
        if not isinstance(metadata["speculation"], bool):
            raise InvalidInput("must be true or false", field="metadata.speculation")
        extra["speculation"] = metadata["speculation"]
    if metadata.get("valid_at") is not None:
        if isinstance(metadata["valid_at"], bool):
            raise InvalidInput("must be a date and time (ISO 8601) or seconds since 1970", field="metadata.valid_at")
        extra["valid_at"] = validate_as(UTCDatetime, metadata["valid_at"], "metadata.valid_at")
    app = metadata.get("app_id")
    if app is not None:
        app = validate_as(Label, app, "metadata.app_id")
        if ctx.scope.app_id not in (None, app):
            raise InvalidInput(f"names app {app!r} but the call's app_id is {ctx.scope.app_id!r}",
                               field="metadata.app_id")
        ctx = ctx.within(ctx.scope.replace(app_id=app))
    fields = _fields({k: v for k, v in metadata.items() if k not in _ADD_META})
    return ctx, {**fields, **extra}


def _number(value: Any, field: str, low: float, high: float, *, integer: bool = True) -> None:
    kinds = int if integer else int | float
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
        bounds = f" from {low:g} to {high:g}" if math.isfinite(low) and math.isfinite(high) else ""
        raise InvalidInput(f"must be {'an integer' if integer else 'a number'}{bounds}", field=field)


def extract_facts(llm: LLM, messages: list[dict[str, str]], prompt: str | None = None) -> list[str]:
    """The facts about the user in a conversation; ``prompt`` is mem0's custom instructions."""
    text = "\n".join(f"{m['role']}: {m['content']}" for m in messages)
    ask = EXTRACT_PROMPT.format(conversation=text)
    if prompt:
        ask = f"{validate_as(Text, prompt, 'prompt')}\n\n{ask}"
    reply = llm.complete([{"role": "user", "content": ask}]).content
    try:
        facts = json_reply(reply)
    except ValueError:
        raise InvalidInput("the model's fact list was not JSON; nothing stored", field="infer") from None
    if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
        raise InvalidInput("the model did not answer with a list of strings; nothing stored", field="infer")
    if any(len(f.strip()) > MAX_TEXT for f in facts):
        raise InvalidInput(f"the model wrote a fact over {MAX_TEXT} characters; nothing stored", field="infer")
    return [f.strip() for f in facts if name_key(f)]


def add(ctx: ToolContext, messages: Any, *, metadata: dict[str, Any] | None = None, infer: bool = False,
        llm: LLM | None = None, prompt: str | None = None) -> dict[str, Any]:
    """Store memories: each message's text (``infer=False``, or no model; system messages
    are skipped, as mem0 does), or the facts the model extracts from the conversation."""
    msgs = _messages(messages)
    ctx, fields = _added(ctx, metadata)
    ctx.scope.writable()  # before a model is asked anything
    inferred = infer and llm is not None
    if inferred and llm:  # facts about the user, as in mem0 (no role: they come from the whole conversation)
        triplets = [TripletIn(subject=OWNER, relation=MEMORY_RELATION, object=t, **fields)
                    for t in extract_facts(llm, msgs, prompt)]
        said: list[dict[str, str]] = [{} for _ in triplets]
    else:
        said = [m for m in msgs if m["role"] != "system"]
        triplets = [TripletIn(subject=SUBJECTS.get(m["role"], OWNER), relation=MEMORY_RELATION,
                              object=m["content"].strip(), **{**fields, "metadata": {
                                  **fields["metadata"], **said_by(m)}})
                    for m in said]
    if not triplets:
        return {"results": []}
    with ctx.store.transaction():
        # the same text again reinforces its memory; with other metadata values it is a new
        # version of that memory (an UPDATE), so the values it replaces stay in the history
        before = current_facts(ctx, triplets)
        versioned = {i: f for i, f in enumerate(before) if f is not None and _changes(f.metadata, triplets[i].metadata)}
        ctx.store.invalidate_facts([f.id for f in versioned.values()], ctx.now)
        triplets = [t.model_copy(update={"metadata": {**versioned[i].metadata, **t.metadata}}) if i in versioned else t
                    for i, t in enumerate(triplets)]
        done = commit_triplets(ctx, triplets)
        for i, f in versioned.items():
            ctx.store.invalidate_facts([f.id], ctx.now, superseded_by=done[i][0].id)
        if ctx.embedder is not None:
            embed_dirty(ctx.store, ctx.embedder)
        ids = first_versions(ctx.store, Scope.everyone(), [f for f, _ in done])
    out = []
    for i, ((f, status), t, m) in enumerate(zip(done, triplets, said, strict=True)):
        event = "UPDATE" if i in versioned else "ADD" if status == "created" else "NONE"
        item = {"id": ids[f.id], "memory": f.object or t.object, "event": event}
        out.append(item if inferred else {**item, "actor_id": m.get("name"), "role": m["role"]})
    return {"results": out, **({} if not infer or inferred else {
        "note": "infer=True needs a chat model (TRULYMEM_LLM_MODEL); the text was stored as given"})}


def _changes(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether ``new`` metadata gives a key ``old`` has another value (adding keys loses nothing)."""
    return any(k in old and old[k] != v for k, v in new.items())


def _fact(ctx: ToolContext, memory_id: str, scope: Scope) -> Fact:
    """The memory's current version. Only a memory's own versions are followed: an id that
    was deleted, or retired into another memory, is ``NotFound`` saying so (and naming it)."""
    facts = ctx.store.facts(FactQuery(scope=scope, ids=stored_ids(memory_id), validity="all"))
    if not facts or not is_memory(facts[0]):
        raise NotFound(f"no memory {memory_id!r}", field="memory_id")
    f = newest(ctx.store, scope, facts[0])
    if f.invalid_at is None:
        return f
    gone = retirement(ctx.store, scope, f)
    if gone is None:
        raise NotFound(f"memory {memory_id!r} was deleted (its history keeps it)", field="memory_id")
    raise NotFound(f"memory {memory_id!r} {_retired(gone)}; its history says so", field="memory_id")


def _retired(gone: Retirement) -> str:
    """``was merged into memory '…'`` (and where that one is now, when it moved on)."""
    how = "was merged into memory" if gone.reason == "merged" else "was superseded by memory"
    tail = ", since deleted" if gone.current is None else "" if gone.current == gone.successor else \
        f", now part of memory {gone.current!r}"
    return f"{how} {gone.successor!r}{tail}"


def owner(ctx: ToolContext, memory_id: str) -> Scope:
    """The scope of the user a memory belongs to: for the local, whole-database API
    (``trulymem.Memory``), whose ``update``/``delete`` name only the memory."""
    with ctx.store.transaction(write=False):  # any version: a deleted or retired memory's user still owns its history
        facts = ctx.store.facts(FactQuery(scope=Scope.everyone(), ids=stored_ids(memory_id), validity="all"))
        if not facts or not is_memory(facts[0]):
            raise NotFound(f"no memory {memory_id!r}", field="memory_id")
        return Scope(user_id=facts[0].user_id)


def get(ctx: ToolContext, memory_id: str, scope: Scope) -> dict[str, Any]:
    with ctx.store.transaction(write=False):
        return item_dicts(ctx, as_items(ctx.store, scope, [_fact(ctx, memory_id, scope)]))[0]


def _env(ctx: ToolContext, wildcard_any: bool) -> Env:
    """The filter environment of a call: ``memory_ids`` resolved to the current versions
    of those memories (an unknown, deleted or retired id selects nothing, as a filter does)."""
    def resolve(ids: list[str]) -> set[str]:
        wanted = [stored_ids(memory_id) for memory_id in ids]
        seen = Scope.everyone()
        # the first versions in one read (a filter may name hundreds); each followed to its newest
        found = {f.id: f for f in ctx.store.facts(FactQuery(scope=seen, ids=[s for w in wanted for s in w],
                                                            validity="all"))} if wanted else {}
        firsts = [next((found[s] for s in w if s in found), None) for w in wanted]
        current = (newest(ctx.store, seen, f) for f in firsts if f is not None and is_memory(f))
        return {f.id for f in current if f.invalid_at is None}
    return Env(resolve=resolve, wildcard_any=wildcard_any)


def _matching(ctx: ToolContext, base: Scope, filters: dict[str, Any] | None, *,
              wildcard_any: bool = False) -> Iterator[MemoryItem]:
    test = compile_filter(filters, ctx.limits, _env(ctx, wildcard_any))
    scope = _read_scope(base, filters)
    found = iter_memories(ctx.store, scope, page_size=500)
    if "created_at" in json.dumps(filters, default=str):  # the memory's creation, not its newest version's
        listed = found
        pages = iter(lambda: list(islice(listed, 500)), [])
        found = (m for page in pages for m in born(ctx, page))
    return (m for m in found if _in_time("filtering memories") and test(m))


def _in_time(what: str) -> bool:
    """``budget.check`` as a filter clause: every caller of ``_matching`` reads all of its
    matches before it writes anything, so stopping on any item leaves nothing half done."""
    budget.check(what)
    return True


def get_all(ctx: ToolContext, base: Scope, *, filters: dict[str, Any] | None = None, page: int = 1,
            page_size: int = 100, wildcard_any: bool = False) -> dict[str, Any]:
    _number(page, "page", 1, 1 << 31)
    _number(page_size, "page_size", 1, MAX_PAGE)
    check_filter(filters, ctx.limits)
    with ctx.store.transaction(write=False):
        items = list(_matching(ctx, base, filters, wildcard_any=wildcard_any))
        start = (page - 1) * page_size
        results = item_dicts(ctx, items[start:start + page_size])
    return {"results": results, "total": len(items), "page": page,
            "page_size": page_size, "total_pages": max(1, math.ceil(len(items) / page_size)),
            "has_more": start + page_size < len(items)}


def search(ctx: ToolContext, base: Scope, query: str, *, filters: dict[str, Any] | None = None, top_k: int = 10,
           threshold: float | None = None, wildcard_any: bool = False) -> dict[str, Any]:
    """The ``top_k`` memories recall ranks highest for ``query`` among those the filters
    select. Recall runs within one user: a call reaching every user searches each user its
    filter names (``{"OR": [{"user_id": …}, …]}`` or ``{"user_id": {"in": […]}}``), and the
    answers are merged by score."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("must not be empty", field="query")
    if len(query) > ctx.limits.search_query_chars:
        raise InvalidInput(f"is {len(query)} characters; the limit is {ctx.limits.search_query_chars}", field="query")
    query = validate_as(Query, query, "query")
    _number(top_k, "top_k", 1, 100)
    if threshold is not None:  # above 1 matches nothing, as in mem0
        _number(threshold, "threshold", float("-inf"), float("inf"), integer=False)
    test = compile_filter(filters, ctx.limits, _env(ctx, wildcard_any))
    scope = _read_scope(base, filters)
    users = [scope.user_id] if scope.user_id is not None else users_of(filters) or _users_matching(ctx, base, filters)
    if users is None:
        raise InvalidInput("search needs a user_id or a filter (several users: an OR of them, in, or '*')",
                           field="user_id")
    found: list[tuple[float, MemoryItem]] = []
    for user in users:
        found += _search_user(ctx, scope.replace(user_id=user, all_users=False), query, test, top_k, threshold)
    found.sort(key=lambda pair: -pair[0])
    top = found[:top_k]
    with ctx.store.transaction(write=False):
        return {"results": item_dicts(ctx, [m for _, m in top], [score for score, _ in top])}


def _users_matching(ctx: ToolContext, base: Scope, filters: dict[str, Any] | None) -> list[str] | None:
    """Every user with a memory the filter selects, for a call reaching every user whose
    filter names none (``{"user_id": "*"}``, an ``agent_id``): recall then runs per user.
    ``None`` without a filter: mem0 refuses a search that names no entity at all."""
    if not filters or not base.all_users:
        return None
    with ctx.store.transaction(write=False):
        return sorted({m.user_id for m in _matching(ctx, base, filters)})


def _search_user(ctx: ToolContext, scope: Scope, query: str, test: Any, top_k: int,
                 threshold: float | None) -> list[tuple[float, MemoryItem]]:
    with ctx.store.transaction(write=False):
        res = recall(ctx.store, scope.replace(session_id=None), RecallQuery(query, depth=0, limit=max(50, top_k * 5)),
                     ctx.now, embedder=ctx.embedder)
        ids = [f.id for f in res.facts]
        facts = {f.id: f for f in ctx.store.facts(FactQuery(scope=scope.user_wide(), ids=ids))}
        budget.check("searching memories")
        items = {m.id: m for m in as_items(ctx.store, scope, [f for f in facts.values() if is_memory(f)])}
        top = max((f.score for f in res.facts), default=1.0) or 1.0
        found: list[tuple[float, MemoryItem]] = []
        for rf in res.facts:
            item = items.get(rf.id)
            if item is None:
                continue
            score = rf.score / top
            if test(item) and (threshold is None or score >= threshold):
                found.append((score, item))
            if len(found) >= top_k:
                break
    return found


def check_update(text: Any, metadata: Any) -> tuple[str | None, dict[str, Any]]:
    """An update's text and fact fields, checked as ``memory_commit`` checks them."""
    if text is None and metadata is None:
        raise InvalidInput("give text and/or metadata", field="text")
    for key in (*_ADD_META, *_ID_META) if isinstance(metadata, dict) else ():
        if key in metadata:
            raise InvalidInput("is set when a memory is added; an update cannot change it (add the memory again)",
                               field=f"metadata.{key}")
    return (None if text is None else validate_as(Text, text, "text")), (
        {} if metadata is None else _fields(metadata))


def update(ctx: ToolContext, memory_id: str, base: Scope, *, text: str | None = None,
           metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    text, extra = check_update(text, metadata)
    scope = base.writable()  # Scope.everyone() reads every user and writes none
    with ctx.store.transaction():
        f = _fact(ctx, memory_id, scope.user_wide())
        new_meta = f.metadata if metadata is None else validate_as(
            Metadata, {**f.metadata, **extra["metadata"]}, "metadata")  # the merged metadata within the limit too
        if text is not None and text.strip() != (f.object or "") and name_key(text) == name_key(f.object or ""):
            # the same text in other case or width: the node's display name is what changes
            node = ctx.store.nodes(NodeQuery(scope=Scope.everyone(), ids=[f.object_id]))[0]
            ctx.store.restore_rows([{"record": "node", **to_json(dataclasses.replace(
                node, name=text.strip(), updated_at=ctx.now))}])
            text = None
        if text is None or text.strip() == (f.object or ""):
            changed = replace(f, metadata=new_meta, type=extra.get("type", f.type), pinned=extra.get("pinned", f.pinned),
                              confidence=extra.get("confidence", f.confidence), updated_at=ctx.now)
            ctx.store.restore_rows([{"record": "fact", **to_json(changed, exclude={"subject", "object"})}])
            return {"message": "Memory updated successfully!", "id": first_versions(ctx.store, scope, [f])[f.id]}
        # the new version keeps the memory's provenance: its run, source and speculation mark
        here = ctx.within(Scope(user_id=f.user_id, agent_id=f.agent_id, app_id=f.app_id, session_id=f.session_id))
        fields = {"type": extra.get("type", f.type), "pinned": extra.get("pinned", f.pinned),
                  "confidence": extra.get("confidence", f.confidence), "metadata": new_meta, "source": f.source,
                  "speculation": f.speculation}
        ctx.store.invalidate_facts([f.id], ctx.now)
        new, how = commit_triplets(here, [TripletIn(subject=f.subject or OWNER, relation=f.relation,
                                                    object=text.strip(), **fields)])[0]
        if how == "reinforced":  # another memory says this already: two memories must not silently become one
            other = first_versions(ctx.store, scope, [new])[new.id]
            raise Conflict(f"memory {other} already says this; nothing was changed (delete one of the two, or "
                           "update this one to other words)", field="text")
        ctx.store.invalidate_facts([f.id], ctx.now, superseded_by=new.id)
        if ctx.embedder is not None:
            embed_dirty(ctx.store, ctx.embedder)
        pid = first_versions(ctx.store, scope, [new])[new.id]  # the memory's id, as before the update
    return {"message": "Memory updated successfully!", "id": pid}


def delete(ctx: ToolContext, memory_id: str, base: Scope) -> dict[str, Any]:
    scope = base.writable()  # Scope.everyone() reads every user and writes none
    with ctx.store.transaction():
        f = _fact(ctx, memory_id, scope.user_wide())
        ctx.store.invalidate_facts([f.id], ctx.now)
        pid = first_versions(ctx.store, scope, [f])[f.id]
    return {"message": "Memory deleted successfully!", "id": pid}


def delete_all(ctx: ToolContext, base: Scope, filters: dict[str, Any] | None = None) -> dict[str, Any]:
    check_filter(filters, ctx.limits)
    if _read_scope(base, filters).user_id is None:  # never across users
        raise InvalidInput("delete_all needs a user_id (argument or filter)", field="user_id")
    with ctx.store.transaction():
        ids = [m.id for m in _matching(ctx, base, filters)]
        ctx.store.invalidate_facts(ids, ctx.now)
    return {"message": f"{len(ids)} memories deleted successfully!", "deleted": len(ids)}
