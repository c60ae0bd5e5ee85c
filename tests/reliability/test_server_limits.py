"""Hostile requests against a real `trulymem serve`: every refusal in the one error shape
(`{"error": {"type", "field", "message"}}`), with the status the README gives, and nothing
changed; the per-key rate limit; the database file readable by its owner only."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.helpers import Served
from trulymem import TrulyMem, budget
from trulymem.config import Settings
from trulymem.errors import BudgetExceeded, ConfigError
from trulymem.server.limits import RateLimiter

pytestmark = pytest.mark.reliability


def refused(r: httpx.Response, status: int, type_: str, field: str | None = None) -> str:
    """Assert ``r`` is the error shape with this status and type (and field); return its message."""
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert set(error) == {"type", "field", "message"} and error["type"] == type_, r.text
    if field is not None:
        assert error["field"] == field, r.text
    assert error["message"], r.text
    return str(error["message"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    pytest.importorskip("fastapi")
    s = Served(str(tmp_path_factory.mktemp("limits") / "memory.db"), "--max-body", "8192")
    yield s
    s.stop()


def _chunks(total: int) -> Iterator[bytes]:
    yield b'{"user_id": "alice", "text": "'
    for _ in range(total // 1024):
        yield b"x" * 1024
    yield b'"}'


def _count(c: httpx.Client) -> int:
    stats = c.get("/v1/stats").json()
    return int(stats["facts_valid"]) + int(stats["facts_invalid"])


def test_bodies_over_the_limit_get_413_however_sent(server: Served) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        before = _count(c)
        chunked = c.post("/v1/memories", content=_chunks(20_000), headers={"content-type": "application/json"})
        assert chunked.request.headers.get("transfer-encoding") == "chunked"  # no length to check up front
        refused(chunked, 413, "too_large", "body")
        sized = c.post("/v1/memories", content=b"".join(_chunks(20_000)), headers={"content-type": "application/json"})
        refused(sized, 413, "too_large", "body")
        assert _count(c) == before
        assert c.get("/health").status_code == 200  # the connection layer is fine afterwards


@pytest.mark.parametrize(("body", "words"), [
    (b'{"user_id": "alice", "text": "caf\xe9"}', "UTF-8"),
    (b"[" * 1000 + b"]" * 1000, "deeper"),
    (b'{"user_id": "alice", "text": "x", "metadata": {"n": ' + b"9" * 5000 + b"}}", "digits"),
    (b'{"user_id": "alice", "text": "x", "metadata": {"n": NaN}}', "NaN"),
    (b'{"user_id": "alice", "text": ', "not JSON"),
])
def test_bodies_that_are_not_json_get_400(server: Served, body: bytes, words: str) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        before = _count(c)
        r = c.post("/v1/memories", content=body, headers={"content-type": "application/json"})
        assert words in refused(r, 400, "invalid_input", "body")
        assert _count(c) == before


def test_routing_and_protocol_errors_share_the_shape(server: Served) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        assert "/nope" in refused(c.get("/nope"), 404, "not_found")
        refused(c.put("/health"), 405, "method_not_allowed")
        refused(c.post("/v1/memories", json={"user_id": "alice", "text": "x", "metadata": "nope"}), 422,
                "invalid_input", "metadata")
        long_number = '{"n": ' + "9" * 200 + "}"
        refused(c.get("/v1/memories", params={"filters": long_number}), 422, "invalid_input", "filters")
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        answer = b""
        while chunk := raw.recv(4096):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"application/json" in head.lower()
    assert json.loads(body)["error"]["type"] == "invalid_input"


def test_keyless_server_refuses_web_pages_and_foreign_host_names(server: Served) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        assert c.post("/v1/memories", json={"user_id": "carol", "text": "my secret"}).status_code == 200
        before = _count(c)
        # what any web page can make the browser send to localhost, no preflight: a bodiless POST
        csrf = c.post("/v1/tools/delete_all_memories", params={"user_id": "carol"},
                      headers={"origin": "https://evil.example"})
        assert "web page" in refused(csrf, 403, "forbidden")
        # DNS rebinding: the page's own name, resolved to 127.0.0.1
        rebound = c.get("/v1/memories", params={"user_id": "carol"}, headers={"host": f"evil.example:{server.port}"})
        refused(rebound, 403, "forbidden")
        assert _count(c) == before
        same_site = c.get("/v1/memories", params={"user_id": "carol"},
                          headers={"origin": server.url, "host": f"localhost:{server.port}"})
        assert same_site.status_code == 200 and same_site.json()["total"] == 1  # e.g. the /docs page


def _key(db: Path, user: str) -> str:
    out = subprocess.run([sys.executable, "-m", "trulymem", "keys", "create", "--db", str(db), "--user", user,
                          "--json"], capture_output=True, text=True, check=True)
    return str(json.loads(out.stdout)["token"])


def test_rate_limit_per_api_key(db_path: Path) -> None:
    pytest.importorskip("fastapi")
    alice, bob = _key(db_path, "alice"), _key(db_path, "bob")
    s = Served(str(db_path), "--rate-limit", "2", "--rate-burst", "3")
    try:
        a = httpx.Client(base_url=s.url, timeout=30, headers={"Authorization": f"Bearer {alice}"})
        b = httpx.Client(base_url=s.url, timeout=30, headers={"Authorization": f"Bearer {bob}"})
        statuses = [a.post("/v1/memories", json={"text": f"tea {i}"}).status_code for i in range(3)]
        assert statuses == [200, 200, 200]
        over = a.post("/v1/memories", json={"text": "one too many"})
        refused(over, 429, "rate_limited")
        assert 1 <= int(over.headers["retry-after"]) <= 2
        assert b.post("/v1/memories", json={"text": "bob's own bucket"}).status_code == 200
        assert httpx.get(s.url + "/health", timeout=30).status_code == 200  # liveness is never limited
        time.sleep(0.6)  # one token back at 2 per second
        assert a.get("/v1/memories").status_code == 200
        a.close()
        b.close()
    finally:
        s.stop()
    with TrulyMem(db_path, user_id="alice") as mem:  # the refused write changed nothing
        assert sorted(m["memory"] for m in mem.call("get_memories", {}).result["results"]) == ["tea 0", "tea 1", "tea 2"]


def test_a_request_that_spent_its_budget_changes_nothing(db_path: Path) -> None:
    pytest.importorskip("fastapi")
    s = Served(str(db_path), "--request-budget", "0.3")

    def slow_body() -> Iterator[bytes]:  # the budget runs out while the body trickles in
        yield b'{"user_id": "alice", '
        time.sleep(0.6)
        yield b'"text": "too late"}'

    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            late = c.post("/v1/memories", content=slow_body(), headers={"content-type": "application/json"})
            assert "time budget" in refused(late, 503, "budget_exceeded")
            assert int(late.headers["retry-after"]) >= 1
            assert c.post("/v1/memories", json={"user_id": "alice", "text": "in time"}).status_code == 200
    finally:
        s.stop()
    with TrulyMem(db_path, user_id="alice") as mem:
        assert [m["memory"] for m in mem.call("get_memories", {}).result["results"]] == ["in time"]


def test_rate_limiter_refills_at_its_rate() -> None:
    now = [0.0]
    limiter = RateLimiter(rate=2, burst=3, clock=lambda: now[0])
    assert [limiter.wait("k") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.wait("k") == pytest.approx(0.5)
    assert limiter.wait("other") == 0.0
    now[0] += 0.5
    assert limiter.wait("k") == 0.0
    assert RateLimiter(rate=0, burst=0).wait("k") == 0.0  # 0: no limit


def test_new_database_files_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)  # a common umask: the files would be world-readable
    try:
        with TrulyMem(tmp_path / "new.db", user_id="alice") as mem:
            mem.commit([{"subject": "user", "relation": "likes", "object": "tea"}])
            made = [p for p in tmp_path.iterdir() if p.name.startswith("new.db")]
            assert {p.name for p in made} >= {"new.db", "new.db-wal", "new.db-shm"}
            for p in made:
                assert stat.S_IMODE(p.stat().st_mode) == 0o600, p.name
        shared = tmp_path / "shared.db"
        shared.touch(mode=0o644)
        os.chmod(shared, 0o644)
        TrulyMem(shared, user_id="alice").close()
        assert stat.S_IMODE(shared.stat().st_mode) == 0o644  # an existing file keeps the mode its owner chose
    finally:
        os.umask(old)


def test_time_budget() -> None:
    budget.check()  # no budget outside a server: nothing to run out
    with budget.time_budget(0.05):
        budget.check()
        assert 0 < (budget.remaining() or 0) <= 0.05
        with budget.time_budget(10):
            assert (budget.remaining() or 99) <= 0.05  # the outer, earlier deadline wins
        time.sleep(0.06)
        with pytest.raises(BudgetExceeded):
            budget.check()
    assert budget.remaining() is None


def test_limits_come_from_env_and_config_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("rate_limit = 5\nheader_timeout = 2.5\nmax_connections = 300\n")
    s = Settings.load(env={"TRULYMEM_CONFIG": str(config), "TRULYMEM_RATE_LIMIT": "7"}).server
    assert (s.rate_limit, s.burst, s.header_timeout, s.max_connections) == (7, 14, 2.5, 300)
    assert Settings.load(env={}).server.rate_limit == 0  # off by default
    with pytest.raises(ConfigError, match="idle_timeout"):
        Settings.load(env={"TRULYMEM_IDLE_TIMEOUT": "0"})
    with pytest.raises(ConfigError, match="max_body must be between 1,024"):
        Settings.load(env={"TRULYMEM_MAX_BODY": "10"})
