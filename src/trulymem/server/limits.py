"""Per-request limits, applied before any route runs: requests without a key
only from this machine's own clients, a rate limit per API key, a time budget,
and a body read whole — at most ``max_body`` bytes and, for the JSON routes,
parseable JSON — so that no route ever sees a body it cannot use.

Everything refused here is answered in the one error shape
(``trulymem.server.errors``): 401 for an API request without a valid key on a keyed
server (before anything else about it is read), 403 for a keyless request from a web page or under
a foreign host name, 413 for a body over the limit however it is sent
(``Content-Length`` or chunked), 400 for a body that is not UTF-8 JSON within
the nesting and number limits, 429 with ``Retry-After`` over the rate limit. At
``/mcp`` a body that is not such JSON gets a JSON-RPC error instead, the shape MCP
clients read (``errors.jsonrpc_refusal``).
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trulymem.budget import time_budget
from trulymem.server.errors import HTTPError, answer, error_response, jsonrpc_refusal, parse_json, retry_after

# (scope, receive, send, the parsed JSON body) -> whether it answered the request
FastRoute = Callable[[Scope, Receive, Send, Any], Awaitable[bool]]
Authenticate = Callable[[Scope], Awaitable[None]]
EXEMPT = ("/health",)  # liveness answers whatever the limits say
RAW = ("/mcp",)  # MCP answers in its own (JSON-RPC) error shape


class RateLimiter:
    """Token buckets: ``rate`` requests per second per key, up to ``burst`` at once; ``rate`` 0 is no limit."""

    MAX_KEYS = 10_000  # beyond this many buckets, the full ones (idle keys) are forgotten

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, max(1.0, burst), clock
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)
        self._lock = threading.Lock()

    def wait(self, key: str) -> float:
        """Take a token for ``key``: 0.0 if there was one, else the seconds until there will be."""
        if self.rate <= 0:
            return 0.0
        with self._lock:
            now = self.clock()
            tokens, when = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - when) * self.rate)
            if tokens >= 1:
                self._buckets[key] = (tokens - 1, now)
                if len(self._buckets) > self.MAX_KEYS:
                    self._forget_idle(now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate

    def _forget_idle(self, now: float) -> None:
        for key, (tokens, when) in list(self._buckets.items()):
            if tokens + (now - when) * self.rate >= self.burst:
                del self._buckets[key]


def client_key(scope: Scope) -> str:
    """Whose bucket a request draws from: its API key (by a hash of the token: no database
    lookup on the event loop), else the client's address."""
    for name, value in scope.get("headers") or []:
        if name == b"authorization":
            scheme, _, token = value.partition(b" ")
            if scheme.lower() == b"bearer" and token.strip():
                return "key:" + hashlib.sha256(token.strip()).hexdigest()[:32]
    client = scope.get("client")
    return f"addr:{client[0] if client else '-'}"


@functools.lru_cache(maxsize=256)  # a pure function of the Host/Origin text, which repeats request after request
def _local_name(host: str) -> bool:
    """``localhost`` or a loopback address, with or without a port."""
    if host.startswith("["):  # [::1]:8765
        name = host[1:].partition("]")[0]
    elif host.count(":") == 1:  # localhost:8765
        name = host.partition(":")[0]
    else:  # a bare name, or a bare IPv6 address
        name = host
    if name.lower() in ("localhost", "") or name.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def foreign(scope: Scope) -> str | None:
    """Why a request without an API key may not be served, or ``None``.

    A server without keys trusts whoever can reach it on this machine, and a web page in the
    user's browser can reach localhost too: a cross-site form or ``fetch`` (its ``Origin`` is
    not local) or a DNS-rebound host name (its ``Host`` is not local) is refused."""
    headers = dict(scope.get("headers") or [])
    if b"authorization" in headers:
        return None  # a key decides; browsers cannot attach one to a cross-site request unasked
    origin = headers.get(b"origin")
    if origin is not None:
        scheme, _, rest = origin.decode("latin-1").partition("://")
        if scheme not in ("http", "https") or not _local_name(rest.split("/")[0]):
            return f"a request without an API key from a web page (Origin: {origin.decode('latin-1')[:100]})"
    host = headers.get(b"host")
    if host is not None and not _local_name(host.decode("latin-1")):
        return f"a request without an API key addressed to {host.decode('latin-1')[:100]!r}, not to localhost"
    return None


def _is_json(scope: Scope) -> bool:
    """Whether FastAPI would parse this body as JSON: no content type, application/json or */*+json."""
    for name, value in scope.get("headers") or []:
        if name == b"content-type":
            kind = bytes(value).split(b";")[0].strip().lower()
            return kind == b"application/json" or (kind.startswith(b"application/") and kind.endswith(b"+json"))
    return True


class RequestLimits:
    """ASGI middleware (outermost but for Starlette's error catcher): rate limit, time budget, body checks."""

    def __init__(self, app: ASGIApp, *, max_body: int, budget: float, limiter: RateLimiter, keyless: bool,
                 fast: FastRoute | None = None, authenticate: Authenticate | None = None) -> None:
        self.app, self.max_body, self.budget, self.limiter = app, max_body, budget, limiter
        self.keyless = keyless  # started without keys: serve this machine's own clients only
        self.fast = fast  # answers the plain tool requests itself (trulymem.server.fastpath)
        # who is asking, before the body or parameters are looked at (raises HTTPError 401)
        self.authenticate = authenticate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or path in EXEMPT:
            await self.app(scope, receive, send)
            return
        if "//" in path:  # an empty segment (an id of "/", sent as %2F) would be redirected to another route
            await self._refuse(scope, receive, send, HTTPError(
                404, "not_found", f"no route {path!r}: a path segment is empty (an id cannot be empty or '/')"))
            return
        why = foreign(scope) if self.keyless else None
        if why:
            await self._refuse(scope, receive, send, HTTPError(
                403, "forbidden", f"refused {why}: a server without keys serves only this machine's own "
                "clients; create an API key (trulymem keys create) to serve others"))
            return
        wait = self.limiter.wait(client_key(scope))
        if wait > 0:
            await self._refuse(scope, receive, send, HTTPError(
                429, "rate_limited", f"over {self.limiter.rate:g} requests per second for this API key or client; "
                f"retry in {wait:.1f} s", headers=retry_after(wait)))
            return
        if self.authenticate is not None:
            try:  # an unauthenticated request learns nothing about how its body or parameters are read
                await self.authenticate(scope)
            except HTTPError as exc:
                await answer(exc)(scope, receive, send)
                return
        # a context variable: it follows the request into its worker thread; fresh, as no
        # earlier request's deadline may reach this one
        with time_budget(self.budget, fresh=True):
            body: bytes | None = None
            data: Any = None
            try:
                body = await self._read(scope, receive)
                if body is None:
                    return  # the client left before sending its body: nobody to answer
                if body and _is_json(scope):
                    data = parse_json(body)  # refused here with a clear 400, never half-parsed by a route
            except HTTPError as exc:
                if path.startswith(RAW) and exc.status == 400 and body:
                    # in MCP's own shape (the SDK itself would answer a 5,000-digit number with a 500)
                    status, payload = jsonrpc_refusal(body, exc.message)
                    await JSONResponse(payload, status_code=status)(scope, receive, send)
                else:
                    await self._refuse(scope, receive, send, exc)
                return
            sent = False

            async def replay() -> Message:
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()  # after the body: wait for the disconnect, as the server would

            if data is not None and self.fast is not None and await self.fast(scope, replay, send, data):
                return
            await self.app(scope, replay, send)

    async def _read(self, scope: Scope, receive: Receive) -> bytes | None:
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            raise self._too_large()
        chunks: list[bytes] = []
        size = 0
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return None
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > self.max_body:  # a chunked body has no length to check up front
                raise self._too_large()
            chunks.append(chunk)
            if not msg.get("more_body", False):
                return b"".join(chunks)

    def _too_large(self) -> HTTPError:
        return HTTPError(413, "too_large", f"request body over {self.max_body} bytes (--max-body)", "body")

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, exc: HTTPError) -> None:
        response: Any = error_response(exc.status, exc.type, exc.message, exc.field, exc.headers)
        await response(scope, receive, send)
