"""A flood of connections that never finish their headers, against a real `trulymem serve`
under a 1,024 open-file limit: `/health` keeps answering during and after, and the server
keeps no socket it does not need (no CLOSE_WAIT leak)."""

from __future__ import annotations

import os
import resource
import select
import socket
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.helpers import Served

pytest.importorskip("fastapi")
pytestmark = [pytest.mark.reliability,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts the server's sockets in /proc")]

FLOOD = 2000
SERVER_FILES = 1024
HEADER_TIMEOUT = 6.0  # long enough to tell a client's own close from the server's timeout


def _server_limit() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_NOFILE, (SERVER_FILES, SERVER_FILES))


def server_sockets(pid: int) -> int:
    fds = Path(f"/proc/{pid}/fd")
    count = 0
    for fd in fds.iterdir():
        try:
            count += os.readlink(fd).startswith("socket:")
        except OSError:  # closed while we looked
            pass
    return count


@pytest.fixture
def many_files() -> Iterator[None]:
    """This process holds the flood's 2,000 client sockets: raise its own soft limit for the test."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = FLOOD + 256
    if hard != resource.RLIM_INFINITY and hard < want:
        pytest.skip(f"needs {want} open files, the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def health(url: str) -> float:
    """Seconds `/health` took; fails the test if it does not answer 200 within 5 s (figures: bench_reliability)."""
    t = time.monotonic()
    r = httpx.get(url + "/health", timeout=5)
    assert r.status_code == 200, r.text
    return time.monotonic() - t


def dripped_until_closed(sock: socket.socket, within: float) -> bool:
    """Send one byte every 0.25 s until the server closes the connection (True) or ``within`` s pass."""
    deadline = time.monotonic() + within
    poll = select.poll()  # not select(): the flood pushes this descriptor past 1,024
    poll.register(sock, select.POLLIN)
    while time.monotonic() < deadline:
        try:
            sock.send(b"X")
            if poll.poll(250) and sock.recv(1024) == b"":
                return True
        except OSError:  # reset by the server
            return True
    return False


def idle_connections(port: int, n: int) -> list[socket.socket]:
    """``n`` connections that each send half a request and then nothing."""
    out = []
    for _ in range(n):
        c = socket.create_connection(("127.0.0.1", port), timeout=5)
        c.sendall(b"GET /health HTTP/1.1\r\nHost: flood\r\n")
        out.append(c)
    return out


def test_idle_connection_flood_leaves_health_answering(db_path: Path, many_files: None) -> None:
    s = Served(str(db_path), "--header-timeout", str(HEADER_TIMEOUT), preexec_fn=_server_limit)
    flood: list[socket.socket] = []
    stay: list[socket.socket] = []
    try:
        health(s.url)
        baseline = server_sockets(s.proc.pid)
        flood = idle_connections(s.port, FLOOD)
        drip = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        drip.setblocking(False)
        during = [health(s.url) for _ in range(5)]
        held = server_sockets(s.proc.pid)
        assert held < SERVER_FILES - 64, f"{held} sockets: the connection cap did not hold"
        # clients that give up are let go at once (no CLOSE_WAIT), long before any timeout
        stay = idle_connections(s.port, 20)
        for c in flood:
            c.close()
        flood.clear()
        assert wait_for(lambda: server_sockets(s.proc.pid) <= baseline + len(stay) + 8, within=2.0), \
            f"{server_sockets(s.proc.pid)} sockets after the flood left"
        after = [health(s.url) for _ in range(5)]
        # a client dripping its headers a byte at a time is cut off at the header deadline all the same
        assert dripped_until_closed(drip, HEADER_TIMEOUT + 4), "a dripping client outlived the header timeout"
        drip.close()
        # and connections whose clients never leave are closed by the server at that deadline
        assert wait_for(lambda: server_sockets(s.proc.pid) <= baseline + 4, within=HEADER_TIMEOUT + 4), \
            "idle connections outlived the header timeout"
        health(s.url)
        print(f"\n/health during a {FLOOD}-connection flood: max {max(during) * 1000:.0f} ms; "
              f"after: max {max(after) * 1000:.0f} ms; server sockets: {baseline} before, {held} during")
    finally:
        for c in flood + stay:
            c.close()
        s.stop()


def wait_for(condition: Callable[[], bool], within: float) -> bool:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True
