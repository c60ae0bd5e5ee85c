"""The interfaces the fuzzing runs through — ``TrulyMem.call()``, a real ``trulymem serve``
(``/v1/tools/{name}`` and every REST route) and the real ``mcp`` client (``trulymem mcp`` on
stdio and ``/mcp``) — each as a ``Caller`` for ``fuzzing.fuzz_tool``. Shared by the tests and
``bench/bench_reliability.py`` (``fuzz_library``, ``fuzz_http``, ``fuzz_mcp``).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.helpers import Served, snapshot
from tests.reliability.fuzzing import CODES, HTTP_CODES, Outcome, Tally, fuzz_tool, seed, to_json
from trulymem import TrulyMem
from trulymem.keys import create_key
from trulymem.model import Scope
from trulymem.tools import REGISTRY

SERVED_TOOLS = sorted(n for n in REGISTRY if n != "context_rewrite")  # what HTTP and MCP expose


# --- the library --------------------------------------------------------------------------------

class Library:
    """A fresh, seeded in-memory store for every example, called through ``TrulyMem.call()``."""

    SCOPES = ["alice", "alice/agent", "everyone"]

    def __init__(self, catch: bool = False) -> None:
        self.catch = catch  # count an exception outside the error tree instead of letting it fail the test
        self.mem: TrulyMem | None = None
        self.mid = ""

    def fresh(self) -> None:
        if self.mem is not None:
            self.mem.close()
        self.mem = TrulyMem(":memory:", user_id="alice", embedder="hashing")
        self.mid = seed(self.mem)

    def snapshot(self) -> list[str]:
        assert self.mem is not None
        return snapshot(self.mem)

    def call(self, name: str, args: Any, scope: str) -> Outcome:
        mem = self.mem
        assert mem is not None
        caller = {"alice": mem, "alice/agent": mem.with_scope(agent_id="a1"),
                  "everyone": TrulyMem(mem.store, scope=Scope.everyone(), embedder=mem.embedder)}[scope]
        try:
            res = caller.call(name, args)
        except Exception as exc:
            if not self.catch:
                raise
            return Outcome(ok=False, untyped=f"{type(exc).__name__}: {exc}"[:300])
        if res.ok:
            json.dumps(res.to_dict())  # plain JSON data
            return Outcome(ok=True)
        err = res.error or {}
        message = err.get("message")
        untyped = None
        if err.get("type") not in CODES or not isinstance(message, str) or not message:
            untyped = f"not a typed error: {err}"
        elif "validation error for" in message or len(message) >= 2_000:
            untyped = f"pydantic's text or an overlong message: {message[:200]}"
        return Outcome(ok=False, type=str(err.get("type")), message=str(message), untyped=untyped)


def fuzz_library(examples: int, *, strict: bool = True) -> Tally:
    """Every tool through ``call()``."""
    lib, tally = Library(catch=not strict), Tally()
    try:
        for name in sorted(REGISTRY):
            fuzz_tool(name, REGISTRY[name].parameters(), lib.call, lib.snapshot, lambda: lib.mid, tally,
                      examples=examples, scopes=Library.SCOPES, strict=strict, before_each=lib.fresh)
    finally:
        if lib.mem is not None:
            lib.mem.close()
    return tally


# --- a served database ------------------------------------------------------------------------

class Database:
    """A seeded database file with keys for alice and an admin, read beside the server that
    serves it: its export (every user) and a memory id that is still alice's."""

    def __init__(self, path: Path) -> None:
        self.mem = TrulyMem(path, user_id="alice", embedder="hashing")
        self.mid = seed(self.mem)
        self.alice = create_key(self.mem.store, user_id="alice")[1]
        self.admin = create_key(self.mem.store, admin=True)[1]

    def snapshot(self) -> list[str]:
        return snapshot(self.mem)

    def memory_id(self) -> str:
        """The seeded memory's id while it lives (an update's old id follows it), else a new one's."""
        if not self.mem.call("get_memory", {"memory_id": self.mid}).ok:
            self.mid = str(self.mem.call("add_memory", {"text": "I like jazz"}).result["results"][0]["id"])  # type: ignore[index]
        return self.mid


@contextmanager
def served(tmp: Path) -> Iterator[tuple[Database, Served]]:
    db = Database(tmp / "fuzz.db")
    s = Served(str(tmp / "fuzz.db"))
    try:
        yield db, s
    finally:
        s.stop()
        db.mem.close()


# --- HTTP ---------------------------------------------------------------------------------------

def _param(value: Any) -> str:
    return value if isinstance(value, str) else to_json(value).decode()


def _path_id(value: Any) -> str:
    return quote(_param(value), safe="")


def rest_request(name: str, args: Any) -> tuple[str, str, dict[str, str], Any] | None:
    """The REST route a tool is also served at, as ``(method, path, query, body)`` (body
    ``None``: none sent), or ``None`` for a tool served only at ``/v1/tools/{name}``."""
    a = dict(args) if isinstance(args, dict) else {}
    body = a if isinstance(args, dict) else args
    query = {k: _param(v) for k, v in a.items() if v is not None}
    by_id = {"get_memory": ("GET", ""), "update_memory": ("PATCH", ""), "delete_memory": ("DELETE", ""),
             "memory_history": ("GET", "/history")}
    if name in by_id:
        method, tail = by_id[name]
        path = f"/v1/memories/{_path_id(a.pop('memory_id', 'none'))}{tail}"
        return method, path, {k: v for k, v in query.items() if k == "user_id"}, a if method == "PATCH" else None
    if name == "task_set_state":
        return "PUT", f"/v1/tasks/{_path_id(a.pop('task_id', 'none'))}/state", {}, a
    posts = {"add_memory": "/v1/memories", "search_memories": "/v1/memories/search", "memory_commit": "/v1/triplets",
             "get_memories": "/v1/memories/list", "memory_recall": "/v1/recall", "memory_purge": "/v1/purge",
             "task_create": "/v1/tasks", "memory_ingest": "/v1/ingest", "memory_dream": "/v1/dream"}
    if name in posts:
        return "POST", posts[name], {}, body
    if name == "persona_set":
        return "PATCH", "/v1/persona", {}, body
    gets = {"memory_stats": "/v1/stats", "persona_get": "/v1/persona", "task_list": "/v1/tasks"}
    if name in gets:
        return "GET", gets[name], query, None
    if name == "delete_all_memories":
        return "DELETE", "/v1/memories", query, None
    return None


def answer(status: int | None, text: str, *, shape_needed: bool = True) -> Outcome:
    """An HTTP answer as an ``Outcome``: 2xx, or the one error shape with a known type."""
    if status is not None and 200 <= status < 300:
        return Outcome(ok=True, status=status)
    try:
        error = json.loads(text)["error"]
        assert set(error) == {"type", "field", "message"} and error["type"] in HTTP_CODES
        assert isinstance(error["message"], str) and error["message"]
        assert "validation error for" not in error["message"] and len(error["message"]) < 2_000
    except (ValueError, KeyError, TypeError, AssertionError):
        return Outcome(ok=False, status=status, message=text[:200], untyped=f"{status}: {text[:200]}")
    return Outcome(ok=False, type=str(error["type"]), message=error["message"], status=status)


class Http:
    """Calls through a real server: a scope is whose key (alice's, or an admin's with or
    without ``?user_id=alice``) and which route (``/v1/tools/{name}`` or the REST route)."""

    SCOPES = ["alice tools", "alice rest", "admin tools", "admin rest", "admin?alice tools", "admin?alice rest"]

    def __init__(self, db: Database, server: Served) -> None:
        import httpx

        self.db, self.client = db, httpx.Client(base_url=server.url, timeout=120)

    def call(self, name: str, args: Any, scope: str) -> Outcome | None:
        import httpx

        who, route = scope.split()
        token = self.db.alice if who == "alice" else self.db.admin
        params = {"user_id": "alice"} if who == "admin?alice" else {}
        headers = {"Authorization": f"Bearer {token}", "content-type": "application/json"}
        try:
            request = rest_request(name, args) if route == "rest" else None
            if request is None:
                method, path, query, body = "POST", f"/v1/tools/{name}", {}, args
            else:
                method, path, query, body = request
            r = self.client.request(method, path, params={**query, **params}, headers=headers,
                                    content=None if body is None else to_json(body))
        except (httpx.InvalidURL, UnicodeEncodeError):
            return None  # no URL can carry it (over 64 KB for httpx, a lone surrogate): nothing sent
        except httpx.TransportError as exc:
            return Outcome(ok=False, untyped=f"no answer: {type(exc).__name__}: {exc}"[:300])
        return answer(r.status_code, r.text)

    def close(self) -> None:
        self.client.close()


def fuzz_http(examples: int, *, strict: bool = True, tmp: Path | None = None) -> Tally:
    """Every served tool through a real ``trulymem serve``."""
    tally = Tally()
    with ExitStack() as stack:
        where = tmp or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        db, server = stack.enter_context(served(where))
        http = Http(db, server)
        stack.callback(http.close)
        for name in SERVED_TOOLS:
            fuzz_tool(name, REGISTRY[name].parameters(), http.call, db.snapshot, db.memory_id, tally,
                      examples=examples, scopes=Http.SCOPES, strict=strict)
        if tally.server_errors:  # what the server logged about them (its tracebacks name no client)
            server.log.seek(0)
            tally.problems.append("server log: " + server.log.read()[-3000:])
    return tally


# --- MCP ----------------------------------------------------------------------------------------

MCP_HTTP_BODY = 1 << 20  # the server's default --max-body


def sendable(args: Any, over_http: bool) -> bool:
    """Whether the ``mcp`` client can send these arguments at all: it encodes UTF-8 JSON itself
    (a lone surrogate kills its writer task, a 5,000-digit integer or 1,000-deep nesting is
    refused by its serializer) and takes only an object. Over HTTP a body over the server's
    limit is answered 413, which the client does not survive (its session task dies, and every
    later call waits for ever): ``test_fuzz_interfaces`` checks that 413 with a plain client."""
    if not isinstance(args, dict):
        return False
    try:
        size = len(json.dumps(args, ensure_ascii=False).encode("utf-8"))
    except (ValueError, RecursionError, UnicodeEncodeError):
        return False
    return not over_http or size < MCP_HTTP_BODY - 4096  # room for the JSON-RPC envelope


class Mcp:
    """Calls through the real ``mcp`` client; each session lives on a portal's event loop."""

    def __init__(self, sessions: dict[str, Any], portal: Any) -> None:
        self.sessions, self.portal = sessions, portal

    def call(self, name: str, args: Any, scope: str) -> Outcome | None:
        if not sendable(args, over_http=scope.startswith("http")):
            return None
        session = self.sessions[scope]
        from mcp.shared.exceptions import McpError

        try:
            res = self.portal.call(lambda: session.call_tool(name, args, read_timeout_seconds=timedelta(seconds=120)))
        except McpError as exc:  # a JSON-RPC error: typed when the server refused the message itself
            text = exc.error.message
        except Exception as exc:  # a dead session, a timeout
            return Outcome(ok=False, untyped=f"{type(exc).__name__}: {exc}"[:300])
        else:
            text = res.content[0].text if res.content else ""  # type: ignore[union-attr]
            if not res.isError:
                return Outcome(ok=True)
        kind, _, rest = text.partition(": ")
        untyped = None if kind in CODES and rest and "validation error for" not in text else f"untyped: {text[:200]}"
        return Outcome(ok=False, type=kind, message=rest, untyped=untyped)


def _stdio(db: Path, user: str) -> Any:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    @asynccontextmanager
    async def session() -> Any:
        params = StdioServerParameters(command=sys.executable, args=["-m", "trulymem", "mcp", "--db", str(db),
                                                                     "--user", user],
                                       env={**os.environ, "TRULYMEM_EMBEDDER": "hashing"})
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            yield s

    return session()


def _http(url: str, token: str) -> Any:
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    @asynccontextmanager
    async def session() -> Any:
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as client, \
                streamable_http_client(url + "/mcp/", http_client=client) as (read, write, _), \
                ClientSession(read, write) as s:
            await s.initialize()
            yield s

    return session()


def fuzz_mcp(examples: int, *, strict: bool = True, tmp: Path | None = None) -> Tally:
    """Every served tool through the ``mcp`` client: ``trulymem mcp`` on stdio (alice) and
    ``/mcp`` of a real server (alice's key, an admin's key)."""
    from anyio.from_thread import start_blocking_portal

    tally = Tally()
    with ExitStack() as stack:
        where = tmp or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        db, server = stack.enter_context(served(where))
        portal = stack.enter_context(start_blocking_portal())
        sessions = {
            "stdio": stack.enter_context(portal.wrap_async_context_manager(_stdio(where / "fuzz.db", "alice"))),
            "http alice": stack.enter_context(portal.wrap_async_context_manager(_http(server.url, db.alice))),
            "http admin": stack.enter_context(portal.wrap_async_context_manager(_http(server.url, db.admin))),
        }
        mcp = Mcp(sessions, portal)
        for name in SERVED_TOOLS:
            fuzz_tool(name, REGISTRY[name].parameters(), mcp.call, db.snapshot, db.memory_id, tally,
                      examples=examples, scopes=sorted(sessions), strict=strict)
    return tally
