"""Answers go out at once on every accepted connection (TCP_NODELAY), also on the listener
``trulymem serve --workers N`` gets from uvicorn: a socket made with ``proto`` 0, on which
asyncio leaves Nagle's algorithm on, so a keep-alive answer written in two pieces waited for
the client's delayed ACK (~40-50 ms a request)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

pytest.importorskip("uvicorn")

from uvicorn.config import Config  # noqa: E402
from uvicorn.server import ServerState  # noqa: E402

from trulymem.server.connections import no_delay  # noqa: E402
from trulymem.server.workers import WorkerProtocol  # noqa: E402


def _listener() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # proto 0, as uvicorn's bind_socket makes it
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.setblocking(False)
    return sock


async def _accepted_nodelay(make: Any) -> int:
    """TCP_NODELAY of the server side of one connection, as the protocol ``make`` left it."""
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    server = await asyncio.get_running_loop().create_server(lambda: make(seen), sock=_listener())
    port = server.sockets[0].getsockname()[1]
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        return await asyncio.wait_for(seen, 10)
    finally:
        writer.close()
        server.close()


class _Plain(asyncio.Protocol):
    def __init__(self, seen: asyncio.Future[int], fix: bool = False) -> None:
        self.seen, self.fix = seen, fix

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if self.fix:
            no_delay(transport)
        self.seen.set_result(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


def test_a_proto_zero_listener_leaves_nagle_on_and_no_delay_turns_it_off() -> None:
    assert asyncio.run(_accepted_nodelay(lambda seen: _Plain(seen))) == 0  # the premise
    assert asyncio.run(_accepted_nodelay(lambda seen: _Plain(seen, fix=True))) != 0


async def _app(scope: Any, receive: Any, send: Any) -> None:  # never reached: no request is sent
    raise AssertionError("no request expected")


class _Probe(WorkerProtocol):
    seen: asyncio.Future[int]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.seen.set_result(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


def test_the_workers_protocol_sets_no_delay() -> None:
    config = Config(app=_app, log_level="warning")
    config.load()

    def make(seen: asyncio.Future[int]) -> _Probe:
        p = _Probe(config=config, server_state=ServerState(), app_state={})
        p.seen = seen
        return p

    assert asyncio.run(_accepted_nodelay(make)) != 0
