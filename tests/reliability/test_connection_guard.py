"""The listener's accept at the connection limit, one decision at a time, on real loopback sockets."""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("uvicorn")

from trulymem.server.connections import ConnectionGuard, listener  # noqa: E402


def _client(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def test_connections_accepted_but_not_started_are_waited_for_not_refused() -> None:
    """asyncio accepts a whole backlog in one turn and starts the connections a turn later: at the
    limit with only such connections open, a newcomer waits (the flood's own connections are evicted
    once started) instead of being accepted and reset — /health was refused that way under a flood."""
    guard = ConnectionGuard(limit=2)
    sock = listener("127.0.0.1", 0, guard)
    port = sock.getsockname()[1]
    try:
        first, second, newcomer = _client(port), _client(port), _client(port)
        accepted = [sock.accept()[0], sock.accept()[0]]
        assert guard.open == 2 and guard.pending() == 2
        with pytest.raises(BlockingIOError):
            sock.accept()
        assert guard.refused == 0
        newcomer.settimeout(0.2)
        with pytest.raises(TimeoutError):  # still queued, not reset
            newcomer.recv(1)
        accepted[0].close()  # a place frees up: the newcomer is accepted
        assert guard.open == 1
        sock.setblocking(True)
        conn, _ = sock.accept()
        assert guard.open == 2
        for s in (conn, accepted[1], first, second, newcomer):
            s.close()
        assert guard.open == 0
    finally:
        sock.close()


def test_with_every_connection_started_and_busy_a_newcomer_is_refused() -> None:
    guard = ConnectionGuard(limit=1)
    sock = listener("127.0.0.1", 0, guard)
    port = sock.getsockname()[1]
    try:
        busy_client = _client(port)
        busy = sock.accept()[0]
        guard.live[_Busy()] = None  # type: ignore[index]  # started, working on a request
        newcomer = _client(port)
        with pytest.raises(BlockingIOError):  # refused, then nothing left in the queue
            sock.accept()
        assert guard.refused == 1
        newcomer.settimeout(2)
        assert newcomer.recv(1) == b""  # closed by the server
        for s in (busy, busy_client, newcomer):
            s.close()
    finally:
        sock.close()


class _Busy:
    def waiting_on_client(self) -> bool:
        return False
