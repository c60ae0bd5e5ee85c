"""The HTTP API (FastAPI): REST routes over the one tool layer, API keys, MCP at ``/mcp``.

Every route runs a registered tool, so bodies are validated by the same models as
the OpenAI/MCP schemas (shown in ``/docs``). Errors are JSON ``{"error": {"type",
"field", "message"}}`` (``trulymem.server.errors``): bad input 422, a body that
is not JSON 400, unknown ids 404, conflicts 409, too large 413, over the rate
limit 429, model failures 502, out of time 503. With API keys (``trulymem keys
create``), a user's key reaches only that user's memories — another user's ids
answer 404, as if they did not exist; without keys, only this machine's own
clients are served (no web pages, no foreign host names: 403), and a request
that names no user reaches the server's default user. mem0's platform routes
(``MemoryClient``) are in ``trulymem.server.platform``. Limits per
request are in ``trulymem.server.limits``, per connection in
``trulymem.server.connections``.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from fastapi import Body, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import Receive, Send
from starlette.types import Scope as ASGIScope

from trulymem import __version__, budget
from trulymem.config import DEFAULT_USER, ServerSettings
from trulymem.dream import result_json
from trulymem.dream.scope_plan import apply_reviewed
from trulymem.embed import Embedder
from trulymem.errors import InvalidInput, NotFound, TrulyMemError
from trulymem.filters import mentions_user, names_other_user, scope_of
from trulymem.graph import TrulyMem
from trulymem.keys import any_active, verify
from trulymem.llm.base import LLM
from trulymem.mem0.ops import scope_for
from trulymem.model import Scope, utcnow
from trulymem.server import apidocs, chat, errors, platform
from trulymem.server.errors import HTTPError, parse_json, tool_error
from trulymem.server.fastpath import FastPath
from trulymem.server.limits import RateLimiter, RequestLimits
from trulymem.server.platform import read_query
from trulymem.store import open_store
from trulymem.tools import REGISTRY, ToolContext, call_tool, get_tool, run_tool
from trulymem.web import routes as web

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
API_PATHS = ("/v1/", "/v2/", "/v3/", "/mcp")  # what needs a key on a keyed server


@dataclass(frozen=True)
class Principal:
    user_id: str | None  # a user's key: only this user
    admin: bool
    keyless: bool = False  # a local server without keys: the default user unless a request names another


def query_filters(filters: str | None, run_id: str | None) -> dict[str, Any] | None:
    """``?filters=`` (JSON) and ``?run_id=`` as one mem0 filter; an empty one is refused,
    never read as no filter."""
    for name, given in (("filters", filters), ("run_id", run_id)):
        if given is not None and not given.strip():
            raise InvalidInput("is empty: leave it out, or give a value", field=name)
    try:
        parsed = parse_json(filters.encode()) if filters else None
    except HTTPError as exc:  # the body's rules (nesting, numbers), as a bad parameter
        raise InvalidInput(exc.message, field="filters") from None
    if parsed is not None and not isinstance(parsed, dict):
        raise InvalidInput("must be a JSON object of mem0 filters", field="filters")
    if run_id:
        parsed = {"AND": [parsed, {"run_id": run_id}]} if parsed else {"run_id": run_id}
    return parsed


def create_app(db: str, *, embedder: Embedder | None = None, llm: LLM | None = None, require_keys: bool = False,
               limits: ServerSettings | None = None, mcp: bool = True, default_user: str = DEFAULT_USER) -> FastAPI:
    limits = limits or ServerSettings()
    store = open_store(db)
    scope_of_principal = functools.partial(_scope, default_user=default_user)

    def _principal(header: str | None) -> Principal:
        if header:
            scheme, _, token = header.partition(" ")
            # "Token" is mem0's platform client's scheme; "Bearer" everyone else's
            key = verify(store, token.strip()) if scheme.lower() in ("bearer", "token") else None
            if key is not None:
                return Principal(user_id=key.user_id, admin=key.role == "admin")
        # Only a request without a valid key asks whether any key is active: that reads every
        # key (300 keys cost each keyed request ~1 ms CPU when it was asked first).
        keyed = require_keys or any_active(store)
        if header:
            if keyed:
                raise HTTPError(401, "unauthorized", "invalid or revoked API key")
            # a keyless server is open to this machine anyway; mem0's client cannot omit its key
        elif keyed:
            raise HTTPError(401, "unauthorized", "an API key is required: Authorization: Bearer <key>")
        return Principal(user_id=None, admin=True, keyless=True)  # no keys configured: a local, open server

    def principal_of(request: Any) -> Principal:
        """Who is asking: as ``authenticate`` found (once a request), else from the header."""
        if request is None:  # MCP over stdio has no request: this machine's own client
            return _principal(None)
        known = request.scope.get("state", {}).get("principal")
        return known if isinstance(known, Principal) else _principal(request.headers.get("authorization"))

    def _mcp_check(request: Any, name: str, args: dict[str, Any]) -> None:
        _bind(principal_of(request), args)

    mcp_manager: Any = None
    if mcp:
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

        from trulymem.server.mcp import build_server

        def mcp_ctx(request: Any) -> ToolContext:
            principal = principal_of(request)
            return ToolContext(store=store, scope=scope_of_principal(principal, None), now=utcnow(), embedder=embedder,
                               llm=llm, admin=principal.admin)

        mcp_manager = StreamableHTTPSessionManager(app=build_server(mcp_ctx, check=_mcp_check), stateless=True,
                                                   json_response=True)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if mcp_manager is None:
            yield
        else:
            async with mcp_manager.run():
                yield
        store.close()

    app = FastAPI(title="trulymem", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Long-term graph memory for LLM agents: mem0-compatible memories, triplets, recall, "
                              "tasks, persona and the dream, over one tool layer.")
    app.state.store = store
    errors.install(app)

    async def authenticate(scope: ASGIScope) -> None:
        """The API's key check, first of all (``RequestLimits``): an unauthenticated request gets
        401 whatever else is wrong with it. The principal is kept for the route."""
        if not str(scope.get("path", "")).startswith(API_PATHS):
            return  # the web page, its assets and the docs hold no data
        header = dict(scope.get("headers") or []).get(b"authorization")
        principal = await run_in_threadpool(_principal, header.decode("latin-1") if header else None)
        scope.setdefault("state", {})["principal"] = principal

    def tool_context(request: Request, tool: str, args: dict[str, Any], user_id: str | None) -> ToolContext:
        budget.check()  # a request that waited out its budget for a worker thread does nothing
        principal = principal_of(request)
        decoded = REGISTRY[tool].decode(args)
        _bind(principal, decoded, user_id)  # filters given as JSON text are checked too
        if user_id is not None and args.get("user_id") not in (None, user_id):
            raise InvalidInput("?user_id= and the body name different users", field="user_id")
        named = user_id or args.get("user_id")
        if named is None and principal.keyless and isinstance(decoded, dict) and _names_users(decoded.get("filters")):
            # filters that name users themselves (an OR of them, "*") read those users, as with an admin key
            return ToolContext(store=store, scope=Scope.everyone(), now=utcnow(), embedder=embedder, llm=llm,
                               admin=principal.admin)
        return ToolContext(store=store, scope=scope_of_principal(principal, named),
                           now=utcnow(), embedder=embedder, llm=llm, admin=principal.admin)

    def run(request: Request, tool: str, args: dict[str, Any], user_id: str | None = None) -> Any:
        res = call_tool(tool, tool_context(request, tool, args, user_id), args)
        if not res.ok:
            raise tool_error(res.error or {})
        return res.result

    def run_json(request: Request, tool: str, args: dict[str, Any], user_id: str | None) -> Response:
        """``run``, its result encoded to JSON once, here in the worker thread (pydantic, in Rust):
        the event loop, which every request shares, only sends the bytes."""
        ctx = tool_context(request, tool, args, user_id)
        try:
            out = run_tool(get_tool(tool), ctx, args)
        except TrulyMemError as exc:
            raise tool_error(exc.to_dict()) from None
        return Response(out.model_dump_json(), media_type="application/json")

    def context(request: Request, user_id: str | None = None) -> ToolContext:
        """The context of a request that runs the mem0 operations itself (the platform routes)."""
        budget.check()
        principal = principal_of(request)
        _bind(principal, {}, user_id)
        return ToolContext(store=store, scope=scope_of_principal(principal, user_id), now=utcnow(), embedder=embedder,
                           llm=llm, admin=principal.admin)

    def body_schema(tool: str) -> dict[str, Any]:
        return {"requestBody": {"required": True, "content": {"application/json": {
            "schema": REGISTRY[tool].parameters()}}}}

    def tool_route(method: str, path: str, tool: str, summary: str) -> None:
        fast.add(method, path, tool)

        async def handler(request: Request, payload: dict[str, Any] = Body(...),  # noqa: B008
                          user_id: str | None = None) -> Any:
            return await run_in_threadpool(run_json, request, tool, payload, user_id)

        app.add_api_route(path, handler, methods=[method], summary=summary, openapi_extra=body_schema(tool),
                          name=f"{tool}_{method.lower()}")

    def any_tool_json(request: Request, name: str, payload: dict[str, Any], user_id: str | None) -> Response:
        """``any_tool``'s answer as FastAPI renders it (a JSONResponse of the result)."""
        return JSONResponse(any_tool(request, name, payload, user_id))

    fast = FastPath(run_json, any_tool_json)  # the tool routes below, answered without FastAPI's machinery

    @app.get("/health", summary="Liveness and version")
    async def health() -> dict[str, Any]:  # on the event loop: answers even when every worker thread is busy
        return {"status": "ok", "version": __version__}

    tool_route("POST", "/v1/memories", "add_memory", "Add memories (mem0-compatible)")
    tool_route("POST", "/v1/memories/search", "search_memories", "Search memories")
    tool_route("POST", "/v1/memories/list", "get_memories", "List memories with filters in the body")
    tool_route("POST", "/v1/triplets", "memory_commit", "Commit triplets")
    tool_route("POST", "/v1/recall", "memory_recall", "Recall memories for an intent")
    tool_route("POST", "/v1/purge", "memory_purge", "Invalidate, correct or delete triplets")
    tool_route("POST", "/v1/tasks", "task_create", "Create a task in the chain")
    tool_route("PATCH", "/v1/persona", "persona_set", "Set persona attributes")
    tool_route("POST", "/v1/ingest", "memory_ingest", "Ingest conversation messages as episodes")

    @app.get("/v1/memories", summary="List memories (filters as JSON in ?filters=)")
    def list_memories(request: Request, user_id: str | None = None, agent_id: str | None = None,
                      app_id: str | None = None, run_id: str | None = None, page: int = 1, page_size: int = 100,
                      filters: str | None = None) -> Any:
        read_query(request, {"user_id", "agent_id", "app_id", "run_id", "page", "page_size", "filters"}, mem0_options=False)
        args = {k: v for k, v in {"user_id": user_id, "agent_id": agent_id, "app_id": app_id, "page": page,
                                  "page_size": page_size, "filters": query_filters(filters, run_id)}.items()
                if v is not None}
        return run(request, "get_memories", args)

    @app.delete("/v1/memories", summary="Forget every memory of a user matching ?filters= (kept in history)")
    def delete_all(request: Request, user_id: str | None = None, agent_id: str | None = None,
                   app_id: str | None = None, run_id: str | None = None, filters: str | None = None) -> Any:
        # a parameter left unread would make the delete wider than asked: every one is read or refused
        read_query(request, {"user_id", "agent_id", "app_id", "run_id", "filters"}, mem0_options=False)
        args = {k: v for k, v in {"user_id": user_id, "agent_id": agent_id, "app_id": app_id,
                                  "filters": query_filters(filters, run_id)}.items() if v is not None}
        return run(request, "delete_all_memories", args)  # an empty value is refused by the tool, never ignored

    # ?user_id= names whose memory: an admin key reads every user and changes a memory only as
    # its user (Scope.everyone() is read-only); a keyless server reads and writes its default user
    # unless a request names another; a user's key names itself.
    @app.get("/v1/memories/{memory_id}", summary="One memory")
    def get_memory(request: Request, memory_id: str, user_id: str | None = None) -> Any:
        return run(request, "get_memory", {"memory_id": memory_id}, user_id)

    @app.patch("/v1/memories/{memory_id}", summary="Update a memory's text and/or metadata (?user_id= or in the body)")
    def update_memory(request: Request, memory_id: str, payload: dict[str, Any] = Body(...),  # noqa: B008
                      user_id: str | None = None) -> Any:
        return run(request, "update_memory", {**payload, "memory_id": memory_id}, user_id)

    @app.delete("/v1/memories/{memory_id}", summary="Forget a memory (kept in history)")
    def delete_memory(request: Request, memory_id: str, user_id: str | None = None) -> Any:
        return run(request, "delete_memory", {"memory_id": memory_id}, user_id)

    @app.get("/v1/memories/{memory_id}/history", summary="A memory's versions")
    def memory_history(request: Request, memory_id: str, user_id: str | None = None) -> Any:
        return run(request, "memory_history", {"memory_id": memory_id}, user_id)

    @app.get("/v1/tasks", summary="The task chain")
    def tasks(request: Request, user_id: str | None = None, limit: int = 20, state: str | None = None,
              kind: str = "task") -> Any:
        return run(request, "task_list", {"limit": limit, "kind": kind, **({"state": state} if state else {})}, user_id)

    @app.put("/v1/tasks/{task_id}/state", summary="Change a task's state")
    def task_state(request: Request, task_id: str, payload: dict[str, Any] = Body(...),  # noqa: B008
                   user_id: str | None = None) -> Any:
        return run(request, "task_set_state", {**payload, "task_id": task_id}, user_id)

    @app.get("/v1/persona", summary="The persona")
    def persona(request: Request, user_id: str | None = None) -> Any:
        return run(request, "persona_get", {}, user_id)

    @app.get("/v1/stats", summary="Counts")
    def stats(request: Request, user_id: str | None = None) -> Any:
        return run(request, "memory_stats", {}, user_id)

    @app.post("/v1/dream", summary="Dream: report (dry_run), auto, or apply the reviewed plan with a person's choices")
    def dream(request: Request, payload: dict[str, Any] = Body(...),  # noqa: B008
              user_id: str | None = None) -> Any:
        if payload.get("mode") == "apply":
            return _dream_apply(request, payload, user_id)
        return run(request, "memory_dream", payload, user_id)

    def _dream_apply(request: Request, payload: dict[str, Any], user_id: str | None) -> Any:
        """The plan made again as the dry run made it (``trulymem.dream.scope_plan``), refused
        with 409 when ``plan_id`` names another, applied with ``choices`` (conflict -> A/B/skip),
        ``review`` (pair -> merge/keep/skip), ``skip_merges`` and ``skip_prunes``."""
        budget.check()
        principal = principal_of(request)
        _bind(principal, payload, user_id)
        if user_id is not None and payload.get("user_id") not in (None, user_id):
            raise InvalidInput("?user_id= and the body name different users", field="user_id")
        named = get_tool("memory_dream").parse({k: payload[k] for k in ("user_id", "agent_id", "app_id")
                                                if payload.get(k) is not None})  # the dry run's rules
        scope = scope_for(scope_of_principal(principal, user_id or named.user_id), named.user_id, named.agent_id,
                          named.app_id)
        if scope.user_id is None:
            raise InvalidInput("applying a dream needs a user_id: it works on one user's memories", field="user_id")
        if payload.get("branch") is not None and not isinstance(payload["branch"], str):
            raise InvalidInput("must be a string", field="branch")
        mem = TrulyMem(store, scope=scope, clock=utcnow, embedder=embedder)  # the dry run's, over this store
        result, line = apply_reviewed(mem, payload, branch=payload.get("branch"))
        return {**result_json(result), "output": line}

    @app.post("/v1/tools/{name}", summary="Run any tool by name (the same schemas as MCP and OpenAI)")
    def any_tool(request: Request, name: str, payload: dict[str, Any] = Body(default_factory=dict),  # noqa: B008
                 user_id: str | None = None) -> Any:
        if name not in REGISTRY or name == "context_rewrite":
            raise NotFound(f"no tool {name!r}", field="name")
        return run(request, name, payload, user_id)

    platform.mount(app, run, context, lambda request: principal_of(request).admin)
    chat.mount(app, context, llm)  # POST /v1/chat
    web.mount(app, run, context)  # the web app at / and its /v1/graph routes
    apidocs.mount(app)  # /docs from local files, not a CDN

    if mcp_manager is not None:
        async def mcp_asgi(scope: ASGIScope, receive: Receive, send: Send) -> None:
            # no MCP session without a valid key when keys are in use: ``authenticate`` (in
            # RequestLimits, for every API path /mcp included) refused it before this point
            await mcp_manager.handle_request(scope, receive, send)

        app.mount("/mcp", mcp_asgi)

    # big replies (the graph: ~700 KB at 10k facts) compressed; small ones are not worth the CPU
    app.add_middleware(GZipMiddleware, minimum_size=4096, compresslevel=5)
    app.add_middleware(RequestLimits, max_body=limits.max_body, budget=limits.request_budget,
                       limiter=RateLimiter(limits.rate_limit, limits.burst), keyless=not require_keys, fast=fast,
                       authenticate=authenticate)
    return app


def _bind(principal: Principal, args: dict[str, Any], user_id: str | None = None) -> None:
    """A user's key names only its own user: any other answers 404, like an unknown id."""
    for name, value in (("user_id", args.get("user_id")), ("filters", args.get("filters"))):
        if value is not None and not isinstance(value, str if name == "user_id" else dict):
            raise InvalidInput(f"must be a {'string' if name == 'user_id' else 'JSON object'}", field=name)
    named = {user_id, args.get("user_id"), scope_of(args.get("filters")).get("user_id")} - {None}
    if any(isinstance(u, str) and not u.strip() for u in named):  # never read as "no user named", nor hidden as an unknown one
        raise InvalidInput("is empty: leave it out, or name one", field="user_id")
    if principal.user_id is None:
        return
    if named - {principal.user_id}:
        raise NotFound("no such user", field="user_id")
    if names_other_user(args.get("filters"), principal.user_id):
        raise NotFound("no such user", field="user_id")


def _names_users(filters: Any) -> bool:
    """Filters with a ``user_id`` condition that pins no one user (``OR``, ``in``, ``"*"``)."""
    return isinstance(filters, dict) and mentions_user(filters) and "user_id" not in scope_of(filters)


def _scope(principal: Principal, user_id: str | None, *, default_user: str) -> Scope:
    """Whose memory a request reaches: a user's key its user; an admin key the named user or, reading,
    every user; a keyless server the named user or its default user — every user only for a read whose
    filters name users themselves (``tool_context``)."""
    return scope_for(Scope.everyone(), principal.user_id or user_id or (default_user if principal.keyless else None))
