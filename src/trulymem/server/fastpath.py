"""The tool routes' fast path: a plain request to a tool route, answered without FastAPI's
routing, dependency and body machinery.

A recall over HTTP spent about as much CPU in the HTTP stack as in the recall itself (one
worker under load, py-spy ``--gil``): the middleware chain, FastAPI's route matching, its
second reading of the body (already read and parsed by ``RequestLimits``), dependency
solving and response wrapping. A request the fast path takes — a tool route named exactly,
a JSON object body with ``Content-Type: application/json``, no query parameter but
``user_id`` — runs the route's own function on the body ``RequestLimits`` parsed, in the
same worker thread, and gets the very response FastAPI would have sent (tests compare the
bytes). Anything else (another content type, other query parameters, an empty or non-object
body, a trailing slash) goes the usual way through FastAPI, so every validation message and
error path stays what it was. The limits (rate limit, time budget, body checks) run before
either path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Send
from starlette.types import Scope as ASGIScope

from trulymem.errors import TrulyMemError
from trulymem.server.errors import HTTPError, answer

# (request, tool, body, ?user_id=) -> the response the route sends
Runner = Callable[[Request, str, dict[str, Any], "str | None"], Response]
ANY_TOOL = "/v1/tools/"  # POST /v1/tools/{name}


class FastPath:
    """Tool routes by (method, path), and the runner for ``/v1/tools/{name}``."""

    def __init__(self, run_named: Runner, run_any: Runner) -> None:
        self.routes: dict[tuple[str, str], str] = {}
        self.run_named, self.run_any = run_named, run_any
        self.taken = 0  # requests this path answered (tests check that it really took them)

    def add(self, method: str, path: str, tool: str) -> None:
        self.routes[(method, path)] = tool

    async def __call__(self, scope: ASGIScope, receive: Receive, send: Send, body: Any) -> bool:
        """Answer the request if it is one the fast path takes (True), else leave it (False)."""
        call = self._route(scope, body)
        if call is None:
            return False
        runner, tool, user_id = call
        self.taken += 1
        try:
            response = await run_in_threadpool(runner, Request(scope), tool, body, user_id)
        except (HTTPError, TrulyMemError) as exc:
            response = answer(exc)
        await response(scope, receive, send)
        return True

    def _route(self, scope: ASGIScope, body: Any) -> tuple[Runner, str, str | None] | None:
        if not isinstance(body, dict) or not body or scope.get("root_path"):
            return None
        method, path = scope["method"], scope["path"]
        tool = self.routes.get((method, path))
        runner = self.run_named
        if tool is None:
            name = path[len(ANY_TOOL):] if method == "POST" and path.startswith(ANY_TOOL) else ""
            if not name or "/" in name:
                return None
            tool, runner = name, self.run_any
        if not _json_content(scope):
            return None
        query = scope.get("query_string") or b""
        if not query:
            return runner, tool, None
        pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)  # as Starlette reads it
        if len(pairs) == 1 and pairs[0][0] == "user_id":
            return runner, tool, pairs[0][1]
        return None


def _json_content(scope: ASGIScope) -> bool:
    """Exactly one Content-Type, application/json (FastAPI reads the body as JSON then too)."""
    kinds = [v for k, v in scope.get("headers") or [] if k == b"content-type"]
    return len(kinds) == 1 and bytes(kinds[0]).split(b";")[0].strip().lower() == b"application/json"
