"""The web app's routes: the page at ``/``, its static files, and the JSON it reads and writes.

Every ``/v1/graph…`` route goes through the API's own key check and scope (the
``context`` of ``trulymem.server.http``): a user's key sees its own user, an admin
key the user it names, a keyless local server its default user. The page and its
assets need no key — they hold no data; the page asks for a key when the server
answers 401. The JSON routes are in ``/docs`` like the rest of the API, so the
reliability suite's tenant probe tries each of them with another user's key.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import Body, FastAPI, Request
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from trulymem.errors import InvalidInput
from trulymem.model import as_utc
from trulymem.tools import ToolContext
from trulymem.web import dreams, edits, graph, table

Context = Callable[[Request, str | None], ToolContext]
Run = Callable[..., Any]
STATIC = Path(str(resources.files("trulymem.web") / "static"))
# the page loads nothing from elsewhere: a script or image from another origin is refused by the browser.
# The one inline style allowed is the stylesheet cytoscape.js injects for its container (by its hash:
# update it with the library — the browser's console names the new one).
CYTOSCAPE_STYLE = "'sha256-pgvDUBa4IjFA2yuSJ2cqcyxmNYJMborsd0ORcRv9vw8='"
CSP = (f"default-src 'self'; script-src 'self'; style-src 'self' {CYTOSCAPE_STYLE}; img-src 'self' data: blob:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


def _when(as_of: str | None, field: str = "as_of") -> datetime | None:
    if as_of is None or not as_of.strip():
        return None
    try:
        return as_utc(datetime.fromisoformat(as_of.strip().replace("Z", "+00:00")))
    except ValueError:
        raise InvalidInput("must be an ISO 8601 time, e.g. 2026-01-31T12:00:00Z", field=field) from None


def mount(app: FastAPI, run: Run, context: Context) -> None:
    @app.get("/", include_in_schema=False)
    def index() -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html",
                            headers={"Content-Security-Policy": CSP, "Cache-Control": "no-cache",
                                     "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"})

    app.mount("/web", StaticFiles(directory=STATIC, check_dir=True), name="web")

    @app.get("/v1/graph/session", summary="Who the web app works as: the user a request reaches")
    def session(request: Request, user_id: str | None = None) -> dict[str, Any]:
        ctx = context(request, user_id)
        return {"user_id": ctx.scope.user_id, "keyed": request.headers.get("authorization") is not None}

    @app.get("/v1/graph", summary="A user's memory as a graph: nodes, facts as edges, at a time (as_of)")
    def whole(request: Request, user_id: str | None = None, as_of: str | None = None,
              max_nodes: int = graph.DEFAULT_NODES) -> Response:
        ctx = context(request, user_id)
        view = graph.graph_view(ctx.store, ctx.scope, as_of=_when(as_of), max_nodes=max_nodes)
        # plain JSON already: FastAPI's encoder would walk 10k+ edges again for nothing
        return Response(json.dumps(view, ensure_ascii=False, separators=(",", ":")), media_type="application/json")

    @app.get("/v1/graph/nodes/{node_id}", summary="One node: its facts, their history and provenance")
    def node(request: Request, node_id: str, user_id: str | None = None, as_of: str | None = None) -> dict[str, Any]:
        ctx = context(request, user_id)
        return graph.node_view(ctx.store, ctx.scope, node_id, as_of=_when(as_of))

    @app.get("/v1/graph/nodes/{node_id}/neighbours", summary="A node's neighbours, to expand the graph")
    def neighbours(request: Request, node_id: str, user_id: str | None = None,
                   as_of: str | None = None) -> dict[str, Any]:
        ctx = context(request, user_id)
        return graph.neighbourhood(ctx.store, ctx.scope, node_id, as_of=_when(as_of))

    @app.get("/v1/graph/facts/{fact_id}/versions", summary="A fact's versions, oldest first")
    def versions(request: Request, fact_id: str, user_id: str | None = None) -> list[dict[str, Any]]:
        ctx = context(request, user_id)
        return graph.fact_versions(ctx.store, ctx.scope, fact_id)

    @app.post("/v1/graph/search", summary="memory_recall for the graph: matches and why each matched")
    def search(request: Request, payload: dict[str, Any] = Body(...), user_id: str | None = None) -> Any:  # noqa: B008
        args = {k: payload[k] for k in ("query_intent", "as_of", "limit", "depth") if payload.get(k) is not None}
        return run(request, "memory_recall", {"depth": 1, **args}, user_id)

    @app.get("/v1/graph/tasks", summary="The task chain, newest first, with current states (or those at as_of)")
    def tasks(request: Request, user_id: str | None = None, limit: int = 50, as_of: str | None = None,
              kind: str = "task") -> Any:
        when = _when(as_of)
        if when is None:
            return run(request, "task_list", {"limit": limit, "kind": kind}, user_id)
        if not 1 <= limit <= 500:
            raise InvalidInput("must be from 1 to 500", field="limit")
        if kind not in ("task", "turn", "all"):
            raise InvalidInput("must be task, turn or all", field="kind")
        ctx = context(request, user_id)
        return table.tasks_at(ctx.store, ctx.scope, when, limit, kind)

    @app.get("/v1/graph/memories", summary="Plain facts for the Memories table, filtered (type, relation, pinned, "
                                           "since/until on when they became true, as_of)")
    def memories(request: Request, user_id: str | None = None, type: str | None = None,  # noqa: A002
                 relation: str | None = None, pinned: bool | None = None, since: str | None = None,
                 until: str | None = None, as_of: str | None = None, limit: int = 500) -> Response:
        ctx = context(request, user_id)
        rows = table.memories(ctx.store, ctx.scope, type_=type or None, relation=relation or None, pinned=pinned,
                              since=_when(since, "since"), until=_when(until, "until"), as_of=_when(as_of),
                              limit=limit)
        return Response(json.dumps(rows, ensure_ascii=False, separators=(",", ":")), media_type="application/json")

    @app.post("/v1/graph/corrections/forget", summary="Forget several facts as one correction (one undo)")
    async def forget_many(request: Request, payload: dict[str, Any] = Body(...),  # noqa: B008
                          user_id: str | None = None) -> dict[str, Any]:
        ctx = context(request, user_id)
        return await run_in_threadpool(edits.forget_many, ctx, payload.get("fact_ids"))  # type: ignore[arg-type]

    @app.post("/v1/graph/corrections", summary="Edit, forget, pin or unpin a fact (undoable)")
    async def correct(request: Request, payload: dict[str, Any] = Body(...),  # noqa: B008
                      user_id: str | None = None) -> dict[str, Any]:
        ctx = context(request, user_id)
        fact_id, action, text = payload.get("fact_id"), payload.get("action"), payload.get("text")
        if not isinstance(fact_id, str) or not fact_id:
            raise InvalidInput("the id of the fact to correct is required", field="fact_id")
        return await run_in_threadpool(edits.correct, ctx, fact_id, action, text)  # type: ignore[arg-type]

    @app.get("/v1/graph/corrections", summary="The latest corrections, for undo")
    def corrections(request: Request, user_id: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        ctx = context(request, user_id)
        return edits.recent(ctx.store, ctx.scope, min(max(limit, 1), 200))

    @app.post("/v1/graph/corrections/{run_id}/undo", summary="Undo one correction exactly")
    def undo(request: Request, run_id: str, user_id: str | None = None) -> dict[str, Any]:
        return edits.undo(context(request, user_id), run_id)

    @app.get("/v1/graph/dream/runs", summary="The user's latest dream runs, newest first, for undo")
    def dream_runs(request: Request, user_id: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        return dreams.recent(context(request, user_id), min(max(limit, 1), 200))

    @app.post("/v1/graph/dream/undo", summary="Undo one dream run of the user (run_id), else the latest one")
    def dream_undo(request: Request, payload: dict[str, Any] = Body(default_factory=dict),  # noqa: B008
                   user_id: str | None = None) -> dict[str, Any]:
        ctx = context(request, user_id)
        run_id = payload.get("run_id")
        if run_id is not None and (not isinstance(run_id, str) or not run_id):
            raise InvalidInput("must be the id of a dream run", field="run_id")
        return dreams.undo(ctx, run_id)
