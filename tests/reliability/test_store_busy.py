"""A database locked for longer than the busy timeout is a typed, retryable ``StoreBusy`` (issue
30): the library says so, and a server answers 503 with ``Retry-After`` — not 500 ``store_error``.
Nothing is changed, and the same request succeeds once the lock is free."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.helpers import Served, snapshot
from trulymem import StoreBusy, TrulyMem
from trulymem.store.sqlite import SQLiteStore


@contextmanager
def held(db: Path) -> Iterator[None]:
    """Another process's writer holding SQLite's write lock."""
    raw = sqlite3.connect(db, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        raw.execute("ROLLBACK")
        raw.close()


def test_the_library_says_busy(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with TrulyMem(db, user_id="alice") as m:
        m.call("add_memory", {"text": "tea"})
        before = snapshot(m)
    mem = TrulyMem(SQLiteStore(db, busy_timeout_ms=200), user_id="alice")
    try:
        with held(db):
            res = mem.call("add_memory", {"text": "coffee"})
            assert not res.ok and res.error is not None and res.error["type"] == "store_busy", res.error
            assert "retry" in res.error["message"]
            with pytest.raises(StoreBusy):
                mem.run("add_memory", {"text": "coffee"})
        assert snapshot(mem) == before
        assert mem.call("add_memory", {"text": "coffee"}).ok  # the lock is free: the same call succeeds
    finally:
        mem.close()


def test_a_server_answers_503_with_retry_after(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with TrulyMem(db, user_id="alice") as m:
        m.call("add_memory", {"text": "tea"})
    s = Served(str(db))
    try:
        with httpx.Client(base_url=s.url, timeout=120, params={"user_id": "alice"}) as c:
            with held(db):
                r = c.post("/v1/memories", json={"text": "coffee"})
            assert r.status_code == 503, r.text
            assert r.json()["error"]["type"] == "store_busy" and int(r.headers["Retry-After"]) >= 1
            texts = [x["memory"] for x in c.get("/v1/memories").json()["results"]]
            assert texts == ["tea"]  # nothing was written
            assert c.post("/v1/memories", json={"text": "coffee"}).status_code == 200
    finally:
        s.stop()
