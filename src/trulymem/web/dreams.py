"""The user's dream runs for the web app — what each did, and undo — so a dream stays
undoable after the page that applied it is gone.

A run is undone in its own scope (the agent and app it dreamed over, as
``trulymem dream --undo --run-id`` does), by ``trulymem.dream.undo_dream``: exactly
what it changed is put back, or nothing when any of it changed since.
"""

from __future__ import annotations

from typing import Any

from trulymem.dream.run import KIND, undo_dream
from trulymem.errors import NotFound
from trulymem.model import Scope
from trulymem.store.base import Run
from trulymem.tools import ToolContext

COUNTS = ("merged", "pruned", "resolved", "skipped", "reviewed")


def _row(r: Run) -> dict[str, Any]:
    s = r.summary
    return {"run_id": r.id, "created_at": r.created_at.isoformat(),
            "undone_at": r.undone_at.isoformat() if r.undone_at else None, "agent_id": r.agent_id,
            "app_id": r.app_id, "state": s.get("state", "done"), "auto": bool(s.get("auto")),
            **{k: int(s.get(k) or 0) for k in COUNTS}, "kept": len(s.get("kept") or [])}


def recent(ctx: ToolContext, limit: int = 20) -> list[dict[str, Any]]:
    """The user's latest dream runs (every agent and app of theirs), newest first."""
    store, user = ctx.store, ctx.scope.writable().user_id or ""
    with store.transaction(write=False):
        return [_row(r) for r in store.runs(user, KIND, limit=limit)]


def undo(ctx: ToolContext, run_id: str | None) -> dict[str, Any]:
    """Undo one dream run of the user (``run_id``), or the latest not undone of the scope."""
    scope = ctx.scope.writable()
    if run_id is not None:
        with ctx.store.transaction(write=False):
            run = next((r for r in ctx.store.runs(scope.user_id or "", KIND, limit=1000) if r.id == run_id), None)
        if run is None:
            raise NotFound(f"no dream run {run_id!r} for this user", field="run_id")
        scope = Scope(user_id=scope.user_id, agent_id=run.agent_id, app_id=run.app_id)
    done = undo_dream(ctx.within(scope), run_id)  # refuses (409) a run undone already or changed since
    return {**_row(done), "undone_at": ctx.now.isoformat(), "undone": True}
