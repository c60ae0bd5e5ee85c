"""Corrections from the web app — edit a fact, forget it, pin or unpin it — each one undoable.

Every change runs an existing tool (``memory_purge`` supersedes or forgets, keeping
history; ``update_memory`` sets ``pinned``), inside one transaction that also
journals it as a run of kind ``web`` (the store's journal, as the dream's): each
touched row's state before and after. Undo puts those rows back exactly, as the
dream's undo does, and refuses if any of them changed since.
"""

from __future__ import annotations

from typing import Any, Literal

from trulymem.errors import Conflict, InvalidInput, NotFound, TrulyMemError
from trulymem.model import EdgeKind, Fact, Node, Scope, new_id, to_json
from trulymem.store.base import Change, FactQuery, NodeQuery, Run, Store
from trulymem.tools import ToolContext, call_tool

KIND = "web"
Action = Literal["edit", "forget", "pin", "unpin"]


def _fact_row(f: Fact) -> dict[str, Any]:
    return {"record": "fact", **to_json(f, exclude={"subject", "object"})}


def _node_row(n: Node) -> dict[str, Any]:
    return {"record": "node", **to_json(n)}


def _facts(store: Store, ids: list[str]) -> dict[str, Fact]:
    return {f.id: f for f in store.facts(FactQuery(scope=Scope.everyone(), ids=ids, validity="all"))} if ids else {}


def _run_tool(ctx: ToolContext, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A tool's result, or its error raised again as the typed error it was (the transaction rolls back)."""
    res = call_tool(name, ctx, args)
    if not res.ok:
        err = res.error or {}
        raise _typed(str(err.get("type")))(str(err.get("message")), field=err.get("field"))
    return res.result or {}


def _typed(code: str) -> type[TrulyMemError]:
    """The error class whose ``code`` a tool's error result carries."""
    todo: list[type[TrulyMemError]] = [TrulyMemError]
    while todo:
        cls = todo.pop()
        if cls.code == code:
            return cls
        todo += cls.__subclasses__()
    return TrulyMemError


def correct(ctx: ToolContext, fact_id: str, action: Action, text: str | None = None) -> dict[str, Any]:
    """Apply one correction to a current fact of the scope's user; returns the run (for undo) and
    the fact's replacement, if any."""
    scope, store = ctx.scope.writable(), ctx.store
    if action not in ("edit", "forget", "pin", "unpin"):
        raise InvalidInput("must be edit, forget, pin or unpin", field="action")
    if action == "edit" and (not isinstance(text, str) or not text.strip()):
        raise InvalidInput("the new text of the fact is required to edit it", field="text")
    with store.transaction():
        target = _facts(store, [fact_id]).get(fact_id)
        if target is None or target.user_id != scope.user_id:
            raise NotFound(f"no fact {fact_id!r}", field="fact_id")
        if not target.is_valid:
            raise Conflict("this fact is no longer current; correct its current version", field="fact_id")
        before = _fact_row(target)
        here = ctx.within(Scope(user_id=target.user_id, agent_id=target.agent_id, app_id=target.app_id))
        replacement = _apply(here, target, action, text)
        changes = _changes(store, ctx, target.id, before, replacement)
        run = Run(id=new_id(), kind=KIND, user_id=target.user_id, agent_id=None, app_id=None, created_at=ctx.now,
                  summary={"action": action, "fact_id": fact_id, "text": target.render(),
                           "replacement_id": replacement})
        store.save_run(run, changes)
    return {"run_id": run.id, "action": action, "fact_id": fact_id, "replacement_id": replacement}


MAX_BULK = 1000


def forget_many(ctx: ToolContext, fact_ids: list[str]) -> dict[str, Any]:
    """Forget several current facts of the scope's user as one correction: one run, one undo.
    Every id must name such a fact, else nothing is forgotten."""
    if not isinstance(fact_ids, list) or not fact_ids or len(fact_ids) > MAX_BULK \
            or not all(isinstance(i, str) and i for i in fact_ids):
        raise InvalidInput(f"must be a list of 1 to {MAX_BULK} fact ids", field="fact_ids")
    ids = list(dict.fromkeys(fact_ids))
    scope, store = ctx.scope.writable(), ctx.store
    with store.transaction():
        found = _facts(store, ids)
        for i in ids:
            f = found.get(i)
            if f is None or f.user_id != scope.user_id:
                raise NotFound(f"no fact {i!r}", field="fact_ids")
            if not f.is_valid:
                raise Conflict(f"fact {i!r} is no longer current", field="fact_ids")
        before = {i: _fact_row(found[i]) for i in ids}
        groups: dict[tuple[str | None, str | None], list[str]] = {}
        for i in ids:  # each purge runs in the namespace its facts were written in
            groups.setdefault((found[i].agent_id, found[i].app_id), []).append(i)
        for (agent, app), group in groups.items():
            here = ctx.within(Scope(user_id=scope.user_id, agent_id=agent, app_id=app))
            _run_tool(here, "memory_purge", {"criteria": {"ids": group}, "mode": "soft"})
        after = _facts(store, ids)
        changes = [Change("fact", i, "changed", before=before[i], after=_fact_row(after[i])) for i in ids]
        shown = "; ".join(found[i].render() for i in ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        run = Run(id=new_id(), kind=KIND, user_id=scope.user_id or "", agent_id=None, app_id=None, created_at=ctx.now,
                  summary={"action": "forget", "fact_id": ids[0], "text": f"{len(ids)} facts: {shown}",
                           "fact_ids": ids})
        store.save_run(run, changes)
    return {"run_id": run.id, "action": "forget", "forgotten": len(ids)}


def _apply(ctx: ToolContext, target: Fact, action: Action, text: str | None) -> str | None:
    if action in ("pin", "unpin"):
        if target.kind != EdgeKind.FACT:
            raise InvalidInput(f"only plain facts can be pinned; this one is {target.kind.value}", field="fact_id")
        if target.pinned == (action == "pin"):
            raise Conflict(f"the fact is already {'pinned' if target.pinned else 'unpinned'}", field="action")
        _run_tool(ctx, "update_memory", {"memory_id": target.id, "metadata": {"pinned": action == "pin"}})
        return None
    if action == "forget":
        _run_tool(ctx, "memory_purge", {"criteria": {"ids": [target.id]}, "mode": "soft"})
        return None
    res = _run_tool(ctx, "memory_purge", {"criteria": {"ids": [target.id]}, "mode": "supersede",
                                          "replacement": {"object": (text or "").strip()}})
    return str(res["replacement_id"])


def _changes(store: Store, ctx: ToolContext, target_id: str, before: dict[str, Any],
             replacement: str | None) -> list[Change]:
    now = _facts(store, [target_id] + ([replacement] if replacement else []))
    out = [Change("fact", target_id, "changed", before=before, after=_fact_row(now[target_id]))]
    if replacement is not None:
        new = now[replacement]
        if new.created_at != ctx.now:  # the same triplet was current already: it was reinforced
            raise Conflict("the new text is already a current fact; forget this one instead", field="text")
        out.append(Change("fact", replacement, "created", after=_fact_row(new)))
        made = store.nodes(NodeQuery(scope=Scope.everyone(), ids=[new.subject_id, new.object_id]))
        out += [Change("node", n.id, "created", after=_node_row(n)) for n in made if n.created_at == ctx.now]
    return out


def recent(store: Store, scope: Scope, limit: int = 20) -> list[dict[str, Any]]:
    """The user's latest corrections, newest first, with whether each was undone."""
    with store.transaction(write=False):
        runs = store.runs(scope.writable().user_id or "", KIND, limit=limit)
    return [{"run_id": r.id, "created_at": r.created_at.isoformat(),
             "undone_at": r.undone_at.isoformat() if r.undone_at else None, **r.summary} for r in runs]


def undo(ctx: ToolContext, run_id: str) -> dict[str, Any]:
    """Put back exactly what one correction changed; refuses if any of it changed since."""
    store, user = ctx.store, ctx.scope.writable().user_id or ""
    with store.transaction():
        run = next((r for r in store.runs(user, KIND, limit=1000) if r.id == run_id), None)
        if run is None:
            raise NotFound(f"no correction {run_id!r} for this user", field="run_id")
        if run.undone_at is not None:
            raise Conflict(f"correction {run_id} was already undone", field="run_id")
        changes = store.run_changes(run.id)
        facts = {i: _fact_row(f) for i, f in _facts(store, [c.item_id for c in changes if c.record == "fact"]).items()}
        nodes = {n.id: _node_row(n) for n in store.nodes(NodeQuery(
            scope=Scope.everyone(), ids=[c.item_id for c in changes if c.record == "node"]))}
        for c in changes:
            if (facts if c.record == "fact" else nodes).get(c.item_id) != c.after:
                raise Conflict(f"the {c.record} changed after this correction; undoing it would lose that change",
                               field="run_id")
        store.delete_facts([c.item_id for c in changes if c.record == "fact" and c.action == "created"])
        store.delete_orphan_nodes([c.item_id for c in changes if c.record == "node" and c.action == "created"])
        store.restore_rows([c.before for c in changes if c.action == "changed" and c.before is not None])
        store.mark_run_undone(run.id, ctx.now)
    return {"run_id": run.id, "undone": True, **run.summary}
