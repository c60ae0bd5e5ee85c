"""Connections of ``trulymem serve``: how many, and how long a client may take to send a request.

uvicorn bounds neither (checked against 0.54): ``timeout_keep_alive`` runs only
between requests, so a client that connects and never finishes its headers holds
a file descriptor for good, and once the process is out of descriptors asyncio's
accept fails (EMFILE) and nobody is served — a flood of idle connections stops
the server. ``limit_concurrency`` does not help: it counts idle connections too,
so under such a flood it answers every real request 503. The guard works below
ASGI, at the socket and the HTTP protocol, so it holds whatever the app does:

- :class:`GuardedListener`, the listening socket, counts the connections it
  accepted. At ``max_connections`` (never more than the open-file limit leaves
  room for) it first closes the connections that have waited on their client
  longest — unfinished headers or body, idle keep-alive — and accepts the new
  one once they are gone; connections accepted but not yet started are waited
  for, never taken as busy; with nobody waiting it refuses the new connection.
  Descriptors never run out, so accepting never fails, and a flood costs the
  flooder its own oldest connections.
- :class:`GuardedH11Protocol` is uvicorn's h11 protocol with deadlines: a
  request's line and headers must arrive within ``header_timeout`` of its first
  byte (a client dripping bytes gains nothing), a body may stall at most
  ``idle_timeout``, and a body nobody will read (after an early answer such as
  413) is drained for at most ``idle_timeout``; between requests uvicorn's own
  keep-alive timeout is ``idle_timeout`` as well. A malformed request gets a 400
  in the API's error shape.

The server always runs on asyncio's own event loop with h11: uvloop accepts in C
and httptools is another protocol class, and the guard lives in these two.
"""

from __future__ import annotations

import asyncio
import math
import socket
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from trulymem.config import ServerSettings
from trulymem.server.errors import error_body

BACKLOG = 2048  # the kernel's accept queue (capped by net.core.somaxconn); uvicorn's default
FD_RESERVE = 128  # descriptors kept for everything but connections: the database, logs, stdio, the loop
EVICT_BATCH = 32  # connections closed at once when full: the listener waits one loop turn for them


def connection_limit(configured: int) -> int:
    """``configured``, lowered to what the process's open-file limit leaves room for."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):  # no such limit on this platform
        return configured
    if soft == resource.RLIM_INFINITY:
        return configured
    return max(1, min(configured, soft - FD_RESERVE))


class ConnectionGuard:
    """What the listener and the protocols share: open sockets, live connections in the order they came."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0  # sockets accepted and not yet closed
        self.live: dict[GuardedH11Protocol, None] = {}  # insertion-ordered: oldest first
        self.closing: set[GuardedH11Protocol] = set()  # evicted, their sockets close on the next loop turn
        self.evicted = 0
        self.refused = 0

    def pending(self) -> int:
        """Sockets accepted whose connection has not started yet (asyncio starts it a loop turn later)."""
        return max(0, self.open - len(self.live))

    def evict(self, n: int) -> int:
        """Close up to ``n`` of the oldest connections that are waiting on their client; how many were closed."""
        done = 0
        for proto in list(self.live):
            if done >= n:
                break
            if proto not in self.closing and proto.waiting_on_client():
                self.closing.add(proto)
                proto.transport.abort()
                done += 1
        self.evicted += done
        return done


class _CountedSocket(socket.socket):
    """An accepted connection that tells the guard when it is closed."""

    guard: ConnectionGuard | None = None

    def close(self) -> None:
        guard, self.guard = self.guard, None
        if guard is not None:
            guard.open -= 1
        super().close()


class GuardedListener(socket.socket):
    """A listening socket that never accepts more than ``guard.limit`` connections (see the module doc)."""

    guard: ConnectionGuard

    def accept(self) -> tuple[socket.socket, Any]:
        guard = self.guard
        while guard.open >= guard.limit:
            if guard.closing or guard.pending() or guard.evict(EVICT_BATCH):
                # asyncio reads this as "nothing to accept" and tries again on its next turn, after the
                # evicted sockets have closed or the ones just accepted have become connections that
                # can be evicted (asyncio accepts a whole backlog in one turn before any of them is live)
                raise BlockingIOError
            conn, _ = super().accept()  # every connection is busy with a request: refuse this one
            conn.close()
            guard.refused += 1
        conn, addr = super().accept()
        counted = _CountedSocket(conn.family, conn.type, conn.proto, fileno=conn.detach())
        counted.guard = guard
        guard.open += 1
        return counted, addr


def no_delay(transport: asyncio.BaseTransport) -> None:
    """Send each write at once (TCP_NODELAY). asyncio sets it only on sockets whose ``proto`` is
    TCP; uvicorn's workers accept on a listener made with ``proto`` 0, so without this a
    keep-alive request's answer (headers and body written apart) waited for the client's
    delayed ACK: ~40-50 ms per request with ``--workers 2``, ~3-7 ms on a fresh connection."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:  # the peer already left: nothing to send to
            pass


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with header, body and drain deadlines (see the module doc)."""

    guard: ClassVar[ConnectionGuard]
    header_timeout: ClassVar[float]
    idle_timeout: ClassVar[float]

    _deadline: asyncio.TimerHandle | None = None
    _waiting: str | None = None  # what the deadline is for: "headers", "body" or "drain"

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        no_delay(transport)
        super().connection_made(transport)
        self.guard.live[self] = None
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.live.pop(self, None)
        self.guard.closing.discard(self)
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def waiting_on_client(self) -> bool:
        """No request being worked on: the server waits for headers, a body or the next request."""
        return self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing()

    def _watch(self) -> None:
        them, us = self.conn.their_state, self.conn.our_state
        if self.transport.is_closing():
            want = None
        elif them is h11.IDLE:
            want = "headers"
        elif them is h11.SEND_BODY:
            want = "drain" if us in (h11.DONE, h11.MUST_CLOSE) else "body"
        else:
            want = None
        if want is None:
            self._disarm()
        elif want != self._waiting or want == "body":  # a header or drain deadline is never pushed back
            self._disarm()
            self._waiting = want
            timeout = self.header_timeout if want == "headers" else self.idle_timeout
            self._deadline = self.loop.call_later(timeout, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline, self._waiting = None, None

    def _expired(self) -> None:
        self._deadline, self._waiting = None, None
        if not self.transport.is_closing():
            self.transport.close()  # nothing to answer: the request never arrived whole

    def send_400_response(self, msg: str) -> None:
        """A malformed request (bad request line or headers, headers over h11's size limit)."""
        body = error_body("invalid_input", f"invalid HTTP request: {msg.rstrip('.')}", "request")
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body),
                      h11.EndOfMessage()):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()


def listener(host: str, port: int, guard: ConnectionGuard) -> GuardedListener:
    family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                      flags=socket.AI_PASSIVE)[0]
    sock = GuardedListener(family, kind, proto)
    sock.guard = guard
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
    except OSError:
        sock.close()
        raise
    sock.listen(BACKLOG)
    sock.setblocking(False)
    return sock


Bound = tuple[Any, "ConnectionGuard"]


def bind(host: str, port: int, limits: ServerSettings) -> Bound:
    """The listening socket and its guard (``OSError`` when the port is taken): bound before
    the server says where it listens."""
    guard = ConnectionGuard(connection_limit(limits.max_connections))
    return listener(host, port, guard), guard


def run(app: Any, host: str, port: int, limits: ServerSettings, bound: Bound | None = None) -> None:
    """Serve ``app`` on ``host:port`` (or on the socket ``bind`` made) with uvicorn behind the
    guard, until interrupted."""
    import uvicorn

    sock, guard = bound or bind(host, port, limits)
    protocol = type("GuardedH11Protocol", (GuardedH11Protocol,), {
        "guard": guard, "header_timeout": limits.header_timeout, "idle_timeout": limits.idle_timeout})
    config = uvicorn.Config(
        app, host=host, port=port, http=protocol, loop="asyncio", ws="none", log_level="warning", access_log=False,
        backlog=BACKLOG, timeout_keep_alive=max(1, math.ceil(limits.idle_timeout)),
        limit_concurrency=None,  # counts idle connections: see the module doc; the guard bounds connections
    )
    uvicorn.Server(config).run(sockets=[sock])
