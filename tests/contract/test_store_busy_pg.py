"""PostgreSQL's side of ``StoreBusy`` (issue 30; SQLite's is tests/reliability/test_store_busy.py):
no free pooled connection within the pool's timeout is the same typed, retryable error, and a
server answers it 503 with Retry-After (``trulymem.server.errors``)."""

from __future__ import annotations

import threading
import time

import pytest

from trulymem import StoreBusy, TrulyMem
from trulymem.server.errors import tool_error


def test_no_free_connection_is_store_busy(pg_url: str) -> None:
    from trulymem.store.postgres import PostgresStore

    store = PostgresStore(pg_url, pool_size=1, timeout_s=0.5)
    mem = TrulyMem(store, user_id="alice")
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        with store.transaction(write=False):
            held.set()
            done.wait(30)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert held.wait(30)
        res = mem.call("add_memory", {"text": "tea"})
        assert not res.ok and res.error is not None and res.error["type"] == "store_busy", res.error
        err = tool_error(res.error)
        assert err.status == 503 and err.headers == {"Retry-After": "1"}
        with pytest.raises(StoreBusy):
            mem.run("get_memories", {})
    finally:
        done.set()
        t.join(30)
    time.sleep(0.1)
    assert mem.call("add_memory", {"text": "tea"}).ok  # free again: the same call succeeds
    mem.close()


def test_a_lock_held_past_lock_timeout_is_store_busy_and_writes_nothing(pg_url: str) -> None:
    import psycopg

    from trulymem.store.postgres import PostgresStore

    store = PostgresStore(pg_url, pool_size=2, timeout_s=5)
    mem = TrulyMem(store, user_id="alice")
    mem.commit([{"subject": "user", "relation": "likes", "object": "tea"}])
    with psycopg.connect(pg_url) as holder:  # another session holds the table past our lock timeout
        holder.execute("LOCK TABLE facts IN ACCESS EXCLUSIVE MODE")
        with pytest.raises(StoreBusy, match="retry shortly"), store.transaction():
            store._n("SET LOCAL lock_timeout = '300ms'")  # the pool's is 60 s: a test waits less
            mem.commit([{"subject": "user", "relation": "likes", "object": "coffee"}])
        holder.rollback()
    assert [f.object for f in mem.history("user", "likes")] == ["tea"]  # the whole transaction was rolled back
    mem.close()
