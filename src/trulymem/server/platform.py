"""mem0's hosted-platform API, so ``mem0ai``'s ``MemoryClient`` and ``AsyncMemoryClient``
work against ``trulymem serve`` by changing ``host=`` only.

The routes, methods, trailing slashes and answer shapes are the ones the client's
code uses (``mem0/client/main.py``, mem0ai 2.x, and 1.x's ``POST /v1/memories/``,
``/v2/memories/`` and ``/v2/memories/search/``); each maps onto a memory tool, so
bodies are checked, keys bound and errors shaped as on every other route. What
differs from the platform, on purpose:

- ``add`` stores before it answers (no background queue): the answer is the
  stored memories, ``{"results": [{"id", "memory", "event"}]}``. ``infer`` is on
  unless turned off, as on the platform; without a chat model the text is stored
  as given, with a ``note`` saying so.
- Without a user in the request, a user's key reaches its user, a keyless server
  its default user, an admin key every user (``users``) or refuses to write. By id
  (get, update, delete, history, batch), an admin key and a keyless server act on the
  memory as its own user: its id says whose it is.
- ``search``'s ``metadata`` (1.x) is a filter on those metadata keys, ANDed with
  ``filters``; ``get_all``'s ``top_k`` is the page size of the first page.
- Options that only shape the platform's ranking or extraction (``rerank``,
  ``keyword_search``, ``custom_categories`` …) are accepted and ignored; options
  whose meaning trulymem cannot honour (``expiration_date``, ``timestamp``,
  ``categories``, ``structured_data_schema`` …) answer one ``invalid_input``, and
  so does any other field or query parameter: nothing that narrows a read or a
  delete is ever dropped. ``DELETE /v1/memories/`` takes ``filters`` as mem0's
  client sends them (``str()`` of a dict, or JSON) beside ``user_id`` … ``run_id``.
- Exports, summaries, profiles, feedback, projects and webhooks answer 501
  ``not_supported``.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Body, FastAPI, Request

from trulymem.errors import InvalidInput, NotFound, TrulyMemError
from trulymem.filters import SCOPE_FIELDS, WILDCARD, and_filter, with_run
from trulymem.limits import LIMITS
from trulymem.mem0 import ops
from trulymem.memories import iter_memories
from trulymem.server.errors import HTTPError, parse_json
from trulymem.tools import ToolContext

RunTool = Callable[[Request, str, dict[str, Any], str | None], Any]
MakeContext = Callable[[Request, str | None], ToolContext]
AnyUser = Callable[[Request], bool]

ENTITY_KEYS = {"user": "user_id", "agent": "agent_id", "app": "app_id", "run": "run_id"}
MAX_BATCH = 1000  # the platform's own limit per batch call
# accepted and ignored: they tune the platform's extraction or ranking, not what is stored or found
IGNORED = {"rerank", "keyword_search", "fields", "latest_only", "show_expired", "async_mode", "output_format",
           "version", "enable_graph", "includes", "excludes", "custom_instructions", "agent_custom_instructions",
           "custom_categories", "immutable", "org_id", "project_id", "filter_memories"}
UNSUPPORTED = {"expiration_date", "timestamp", "categories", "structured_data_schema", "reference_date",
               "start_date", "end_date", "metadata_filters"}
ENTITY_IDS = (*SCOPE_FIELDS, "run_id")
MAX_FILTER_PARAM = 4 * LIMITS.filter_chars  # a filter's Python repr is wordier than the JSON the cap counts


def _body(payload: Any, allowed: set[str]) -> dict[str, Any]:
    """The fields a route uses; ignored options dropped; anything else one error naming it."""
    if not isinstance(payload, dict):
        raise InvalidInput("the body must be a JSON object", field="body")
    out: dict[str, Any] = {}
    for k, v in payload.items():
        if k in allowed:
            if v is not None:
                out[k] = v
        elif k in UNSUPPORTED and v is not None:
            raise InvalidInput(_unsupported(k), field=k)
        elif k not in IGNORED and k not in UNSUPPORTED:
            raise InvalidInput("unknown field", field=k)
    return out


def _unsupported(name: str) -> str:
    return "is not supported by trulymem; use filters" if name == "metadata_filters" else \
        "is not supported by trulymem"


def read_query(request: Request, allowed: set[str], *, mem0_options: bool = True) -> dict[str, str]:
    """The query parameters a route uses (``mem0_options``: mem0's ignored options dropped,
    its unsupported ones refused by name); any other, or one given twice, is refused: a
    parameter left unread could widen what a call reads or deletes."""
    out: dict[str, str] = {}
    for k, v in request.query_params.multi_items():
        if k in allowed:
            if k in out:
                raise InvalidInput("is given more than once", field=k)
            out[k] = v
        elif mem0_options and k in UNSUPPORTED:
            raise InvalidInput(_unsupported(k), field=k)
        elif not (mem0_options and k in IGNORED):
            raise InvalidInput("unknown query parameter", field=k)
    return out


def _filters_param(text: str) -> dict[str, Any]:
    """``?filters=`` as JSON, or as what mem0's client sends: httpx writes a dict query value
    with ``str()``, a Python literal, read here with ``ast.literal_eval`` (literals only, no
    code; its size capped first). What it holds is then checked like any filter."""
    if len(text) > MAX_FILTER_PARAM:
        raise InvalidInput(f"is longer than {MAX_FILTER_PARAM} characters", field="filters")
    try:
        value = parse_json(text.encode())
    except HTTPError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise InvalidInput("is neither JSON nor a Python dict literal", field="filters") from None
    if not isinstance(value, dict):
        raise InvalidInput("must be an object", field="filters")
    return value


def _entity_ids(filters: Any) -> dict[str, str]:
    """The ids ``add``'s filters name (``{"user_id": …}``, optionally in ``AND``s): they say
    where the memory goes, so any other condition is refused rather than dropped."""
    if filters is None:
        return {}
    if not isinstance(filters, dict):
        raise InvalidInput("must be an object", field="filters")
    out: dict[str, str] = {}
    for k, v in filters.items():
        if k == "AND" and isinstance(v, list):
            for sub in v:
                for key, value in _entity_ids(sub).items():
                    if out.setdefault(key, value) != value:
                        raise InvalidInput(f"names two {key}s", field=f"filters.{key}")
        elif k in ENTITY_IDS and isinstance(v, str) and v != WILDCARD:
            if out.setdefault(k, v) != v:
                raise InvalidInput(f"names two {k}s", field=f"filters.{k}")
        else:
            raise InvalidInput("add's filters name only user_id, agent_id, app_id and run_id", field=f"filters.{k}")
    return out


def _add_args(body: dict[str, Any]) -> dict[str, Any]:
    """Where ``add`` writes: ``user_id`` … ``run_id`` at the top level or inside ``filters``
    (the v3 client's way). Listing, searching and deleting pass their filters whole to the
    tools, which read the ids they require and refuse ones that differ from the arguments."""
    named = _entity_ids(body.get("filters"))
    for key, value in named.items():
        if body.get(key) not in (None, value):
            raise InvalidInput(f"the body and the filters name different {key}s", field=f"filters.{key}")
    return {**named, **{k: body[k] for k in ENTITY_IDS if k in body}}


def _entities(given: dict[str, Any]) -> dict[str, Any]:
    """The ``user_id``, ``agent_id`` and ``app_id`` a request gives (an empty one too: the tools refuse it)."""
    return {k: given[k] for k in SCOPE_FIELDS if given.get(k) is not None}


def _page_url(request: Request, page: int) -> str:
    return str(request.url.include_query_params(page=page))


def mount(app: FastAPI, run: RunTool, context: MakeContext, any_user: AnyUser) -> None:
    """Add the platform routes to ``app``: ``run`` runs a tool for a request, ``context``
    gives a request's tool context (its key checked, its user bound), ``any_user`` says
    whether the request may act on any user's memory by id. Left out of ``/docs``,
    which describes trulymem's own API: these are mem0's, for mem0's client (the README lists them)."""
    router = APIRouter(include_in_schema=False)

    def query(request: Request, allowed: set[str], filters: bool = False) -> dict[str, Any]:
        """``_query`` (and ``?filters=`` read, with ``filters``); when it refuses, the key is
        checked first: an unauthorised caller learns nothing, not even what is unknown."""
        try:
            out: dict[str, Any] = read_query(request, allowed)
            if filters and "filters" in out:
                out["filters"] = _filters_param(out["filters"])
            return out
        except InvalidInput:
            context(request, None)
            raise

    def owner(request: Request, memory_id: str, named: str | None = None) -> str | None:
        """The user to act as on one memory: a user's key its own; an admin key or a keyless
        server the memory's own (or ``named``, the user the call names: another's memory
        is then not found, as with a user's key)."""
        ctx = context(request, named)
        if not any_user(request):
            return named
        return named or ops.owner(ctx, memory_id).user_id

    @router.get("/v1/ping/", summary="mem0 platform: check the key")
    def ping(request: Request) -> dict[str, Any]:
        ctx = context(request, None)
        query(request, set())
        # the client's constructor needs an org and a project: one database is one of each
        return {"status": "ok", "message": "trulymem", "org_id": "trulymem", "project_id": "trulymem",
                "user_email": None, "user_id": ctx.scope.user_id}

    @router.post("/v1/memories/", summary="mem0 platform: add memories (mem0ai 1.x)")
    @router.post("/v3/memories/add/", summary="mem0 platform: add memories")
    def add(request: Request, payload: Any = Body(...)) -> Any:  # noqa: B008
        query(request, set())
        body = _body(payload, {"messages", "user_id", "agent_id", "app_id", "run_id", "metadata", "infer", "filters"})
        args = {**_add_args(body), "messages": body.get("messages"), "infer": body.get("infer", True),
                **({"metadata": body["metadata"]} if "metadata" in body else {})}
        return run(request, "add_memory", args, None)

    @router.post("/v2/memories/", summary="mem0 platform: list memories (mem0ai 1.x)")
    @router.post("/v3/memories/", summary="mem0 platform: list memories (filters in the body, page in the query)")
    def get_all(request: Request, payload: Any = Body(default_factory=dict), page: int = 1,  # noqa: B008
                page_size: int | None = None) -> Any:
        given = query(request, {"page", "page_size"})
        body = _body(payload, {"filters", "user_id", "agent_id", "app_id", "run_id", "top_k"})
        if "top_k" in body and {"page", "page_size"} & set(given):
            raise InvalidInput("give top_k, or page and page_size", field="top_k")
        size = page_size if page_size is not None else body.get("top_k", 100)
        filters = with_run(body.get("filters"), body.get("run_id"))
        args = {**_entities(body), "page": page, "page_size": size,
                **({"filters": filters} if filters is not None else {})}
        res = run(request, "get_memories", args, None)
        return {"count": res["total"], "next": _page_url(request, page + 1) if res["has_more"] else None,
                "previous": _page_url(request, page - 1) if page > 1 else None, "results": res["results"]}

    @router.post("/v2/memories/search/", summary="mem0 platform: search memories (mem0ai 1.x)")
    @router.post("/v3/memories/search/", summary="mem0 platform: search memories")
    def search(request: Request, payload: Any = Body(...)) -> Any:  # noqa: B008
        query(request, set())
        body = _body(payload, {"query", "filters", "top_k", "limit", "threshold", "user_id", "agent_id", "app_id",
                               "run_id", "metadata"})
        filters = with_run(body.get("filters"), body.get("run_id"))
        if "metadata" in body:  # 1.x's metadata narrows by those keys: a filter on them, beside the others
            if not isinstance(body["metadata"], dict):
                raise InvalidInput("must be an object", field="metadata")
            filters = and_filter(filters, {"metadata": body["metadata"]})
        if "limit" in body:
            if "top_k" in body:
                raise InvalidInput("give top_k or limit, not both", field="limit")
            body["top_k"] = body.pop("limit")
        args: dict[str, Any] = {**_entities(body), **({"filters": filters} if filters is not None else {}),
                                **{k: body[k] for k in ("query", "top_k", "threshold") if k in body}}
        return {"results": run(request, "search_memories", args, None)["results"]}

    @router.get("/v1/memories/{memory_id}/", summary="mem0 platform: one memory")
    def get(request: Request, memory_id: str) -> Any:
        query(request, set())
        return run(request, "get_memory", {"memory_id": memory_id}, owner(request, memory_id))

    @router.put("/v1/memories/{memory_id}/", summary="mem0 platform: update a memory's text and/or metadata")
    def update(request: Request, memory_id: str, payload: Any = Body(...)) -> Any:  # noqa: B008
        query(request, set())
        body = _body(payload, {"text", "metadata", "user_id"})
        named = body.pop("user_id", None)
        if named is not None and not isinstance(named, str):
            raise InvalidInput("must be a string", field="user_id")
        user = owner(request, memory_id, named)
        res = run(request, "update_memory", {**body, "memory_id": memory_id}, user)
        current: dict[str, Any] = run(request, "get_memory", {"memory_id": res["id"]}, user)
        return {**current, "message": res["message"]}

    @router.delete("/v1/memories/{memory_id}/", summary="mem0 platform: forget a memory (kept in history)")
    def delete(request: Request, memory_id: str, delete_linked: bool = False) -> Any:
        # older versions of a memory are superseded already: only the current one is ever found
        query(request, {"delete_linked"})
        res = run(request, "delete_memory", {"memory_id": memory_id}, owner(request, memory_id))
        return {"message": res["message"]}

    @router.get("/v1/memories/{memory_id}/history/", summary="mem0 platform: a memory's versions")
    def history(request: Request, memory_id: str) -> Any:
        query(request, set())
        return run(request, "memory_history", {"memory_id": memory_id}, owner(request, memory_id))["results"]

    @router.delete("/v1/memories/", summary="mem0 platform: forget the memories the entity ids and filters select")
    def delete_all(request: Request) -> Any:
        given = query(request, {*ENTITY_IDS, "filters"}, filters=True)
        filters = with_run(given.get("filters"), given.get("run_id"))
        args = {**_entities(given), **({"filters": filters} if filters is not None else {})}
        res = run(request, "delete_all_memories", args, None)
        return {"message": res["message"]}

    @router.get("/v1/entities/", summary="mem0 platform: the users, agents, apps and runs with memories")
    def entities(request: Request) -> Any:
        ctx = context(request, None)
        query(request, set())
        counts: Counter[tuple[str, str]] = Counter()
        with ctx.store.transaction(write=False):
            for m in iter_memories(ctx.store, ctx.scope, page_size=500):
                for kind, key in ENTITY_KEYS.items():
                    if getattr(m, key):
                        counts[(kind, getattr(m, key))] += 1
        results = [{"id": name, "name": name, "type": kind, "total_memories": n}
                   for (kind, name), n in sorted(counts.items())]
        return {"count": len(results), "next": None, "previous": None, "results": results}

    @router.delete("/v2/entities/{kind}/{name}/", summary="mem0 platform: forget an entity's memories")
    def delete_entity(request: Request, kind: str, name: str) -> Any:
        query(request, set())
        if kind not in ENTITY_KEYS:
            raise InvalidInput(f"must be one of {', '.join(ENTITY_KEYS)}", field="type")
        # an entity is known by its memories (as in `GET /v1/entities/`): a name with none here is a
        # typo or someone else's, and answering "deleted" would tell the caller a lie
        unknown = NotFound(f"no {kind} named {name!r} has memories here", field="name")
        if kind == "user":
            if not run(request, "delete_all_memories", {"user_id": name}, None).get("deleted"):
                raise unknown
            return {"message": "Entity deleted successfully."}
        ctx = context(request, None)  # an agent, app or run, in each user this request reaches
        with ctx.store.transaction():
            users = sorted({m.user_id for m in iter_memories(ctx.store, ctx.scope, page_size=500)
                            if getattr(m, ENTITY_KEYS[kind]) == name})
            if not users:
                raise unknown
            for user in users:
                run(request, "delete_all_memories", {"user_id": user, "filters": {ENTITY_KEYS[kind]: name}}, None)
        return {"message": "Entity deleted successfully."}

    def batch(request: Request, payload: Any, change: Callable[[str, dict[str, Any]], None]) -> int:
        """Every item or none: one transaction, the first bad item rolls all back."""
        query(request, set())
        _body(payload, {"memories"})
        memories = payload.get("memories") if isinstance(payload, dict) else None
        if not isinstance(memories, list) or not 0 < len(memories) <= MAX_BATCH:
            raise InvalidInput(f"must be a list of 1-{MAX_BATCH} memories", field="memories")
        ctx = context(request, None)
        with ctx.store.transaction():
            for i, item in enumerate(memories):
                if not isinstance(item, dict) or not isinstance(item.get("memory_id"), str):
                    raise InvalidInput("must be an object with a 'memory_id' string", field=f"memories.{i}")
                try:
                    change(item["memory_id"], item)
                except (HTTPError, TrulyMemError) as exc:  # name the item the error is about
                    exc.field = f"memories.{i}.{exc.field or 'memory_id'}"
                    raise
        return len(memories)

    @router.put("/v1/batch/", summary="mem0 platform: update many memories, all or none")
    def batch_update(request: Request, payload: Any = Body(...)) -> Any:  # noqa: B008
        def change(memory_id: str, item: dict[str, Any]) -> None:
            body = _body({k: v for k, v in item.items() if k != "memory_id"}, {"text", "metadata"})
            run(request, "update_memory", {**body, "memory_id": memory_id}, owner(request, memory_id))

        return {"message": f"Successfully updated {batch(request, payload, change)} memories"}

    @router.delete("/v1/batch/", summary="mem0 platform: forget many memories, all or none")
    def batch_delete(request: Request, payload: Any = Body(...)) -> Any:  # noqa: B008
        def change(memory_id: str, item: dict[str, Any]) -> None:
            _body({k: v for k, v in item.items() if k != "memory_id"}, set())  # nothing else an item could mean
            run(request, "delete_memory", {"memory_id": memory_id}, owner(request, memory_id))

        return {"message": f"Successfully deleted {batch(request, payload, change)} memories"}

    def not_supported(request: Request) -> Any:
        context(request, None)  # an unauthorised caller learns nothing, not even what is unsupported
        raise HTTPError(501, "not_supported", f"{request.method} {request.url.path} is a mem0 platform feature "
                        "trulymem does not provide (exports, summaries, profiles, feedback, projects, webhooks)")

    for path, methods in (("/v1/exports/", ["POST"]), ("/v1/exports/get/", ["POST"]), ("/v1/summary/", ["POST"]),
                          ("/v1/feedback/", ["POST"]), ("/v2/entities/user/{entity_id}/profile/", ["GET"]),
                          ("/v2/profiles/jobs/", ["POST"]), ("/v2/profiles/jobs/{job_id}/", ["GET"]),
                          ("/v2/profiles/settings/", ["GET", "POST"]),
                          ("/api/v1/{rest:path}", ["GET", "POST", "PUT", "PATCH", "DELETE"])):
        router.add_api_route(path, not_supported, methods=methods, name=f"platform_unsupported_{path}")
    app.include_router(router)
