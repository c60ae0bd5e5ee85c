"""The request time budget inside the library's long loops: a request that runs out of it
while filtering, listing, searching, recalling or matching a purge answers 503
``budget_exceeded`` and changes nothing — checked against a real ``trulymem serve``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Served, snapshot
from trulymem import BudgetExceeded, TrulyMem, budget

pytestmark = pytest.mark.reliability

MEMORIES = 20_000


def _spent() -> Any:
    """A budget that has already run out: every check inside it fails, deterministically."""
    cm = budget.time_budget(1e-6)
    cm.__enter__()
    time.sleep(0.001)
    return cm


@pytest.mark.parametrize(("tool", "args"), [
    ("get_memories", {"filters": {"memory": {"contains": "tea"}}}),
    ("search_memories", {"query": "tea"}),
    ("memory_recall", {"query_intent": "tea", "depth": 2}),
    ("delete_all_memories", {"filters": {"memory": {"contains": "tea"}}}),
    ("delete_all_memories", {}),
    ("memory_purge", {"criteria": {"relation": "likes"}}),
])
def test_the_library_stops_inside_its_loops_and_changes_nothing(mem: TrulyMem, tool: str, args: dict[str, Any]) -> None:
    mem.commit([{"subject": "user", "relation": "likes", "object": "tea"}])
    mem.call("add_memory", {"text": "tea at five"})
    before = snapshot(mem)
    spent = _spent()
    try:
        res = mem.call(tool, args)
    finally:
        spent.__exit__(None, None, None)
    assert not res.ok and res.error is not None and res.error["type"] == "budget_exceeded", res.error
    assert "nothing was changed" in res.error["message"]
    assert snapshot(mem) == before
    assert mem.call(tool, args).ok  # no budget outside a server: the same call runs to the end


def _seed(db: Path) -> float:
    """``MEMORIES`` memories for alice, two for bob; the seconds one unfiltered listing of
    alice's memories takes here, in the library (the loop a server request runs)."""
    with TrulyMem(db, user_id="alice", embedder="hashing") as mem:
        for start in range(0, MEMORIES, 2_000):
            res = mem.call("memory_commit", {"triplets": [
                {"subject": "user", "relation": "memory", "object": f"note {i} about deploys and coffee"}
                for i in range(start, start + 2_000)]})
            assert res.ok, res.error
        bob = mem.with_scope(user_id="bob")
        bob.call("add_memory", {"text": "bob likes tea"})
        bob.call("add_memory", {"text": "bob plays chess"})
        took = []
        for _ in range(3):  # the fastest of three: a busy moment must not make the budget generous
            t = time.perf_counter()
            assert mem.call("get_memories", {"page_size": 1}).ok
            took.append(time.perf_counter() - t)
        return min(took)


def test_a_server_request_over_budget_in_a_filter_loop_answers_503_and_changes_nothing(db_path: Path) -> None:
    pytest.importorskip("fastapi")
    listing = _seed(db_path)
    # A quarter of what the listing takes: long enough for the request to reach the loop,
    # too short for the loop to finish. Measured, not assumed: slower machines get more.
    s = Served(str(db_path), "--request-budget", f"{max(listing / 4, 0.02):.3f}")
    outcomes: dict[str, int] = {}
    try:
        with httpx.Client(base_url=s.url, timeout=60) as c:
            def count() -> int:
                return int(c.get("/v1/stats", params={"user_id": "alice"}).json()["facts_valid"])

            before = count()
            attempts = [
                ("list", c.get("/v1/memories", params={"user_id": "alice"})),
                ("list, filter in the body", c.post("/v1/memories/list", json={
                    "user_id": "alice", "filters": {"memory": {"icontains": "COFFEE"}}})),
                ("delete all, filtered", c.post("/v1/tools/delete_all_memories", params={"user_id": "alice"},
                                                json={"filters": {"memory": {"contains": "note"}}})),
                ("delete all", c.delete("/v1/memories", params={"user_id": "alice"})),
            ]
            for what, r in attempts:
                assert r.status_code == 503, (what, r.text)
                error = r.json()["error"]
                assert set(error) == {"type", "field", "message"} and error["type"] == "budget_exceeded", r.text
                # stopped inside the library's loop, not before the request started
                assert error["message"].startswith("filtering memories ran out"), r.text
                assert int(r.headers["retry-after"]) >= 1
                outcomes[what] = r.status_code
            assert count() == before  # the deletes over budget deleted nothing
            small = c.get("/v1/memories", params={"user_id": "bob"})  # the server itself is fine
            assert small.status_code == 200 and small.json()["total"] == 2
    finally:
        s.stop()
    with TrulyMem(db_path, user_id="alice") as mem:
        assert mem.stats().facts_valid == before
    print(f"\nlisting {MEMORIES} memories takes {listing:.2f} s in the library; with a budget of a quarter of that "
          f"{len(outcomes)} requests answered 503 from inside the filter loop, 0 memories deleted")


def test_no_request_inherits_an_earlier_requests_budget_on_a_kept_alive_connection(db_path: Path) -> None:
    """A body big enough to pause reading makes uvicorn start the connection's next request from
    inside the previous one's task: with the deadline inherited (and "an earlier deadline wins"),
    every later request on that connection answered 503 once the big one's budget ran out —
    found by the HTTP fuzz bench (8,004 of 10,156 calls)."""
    with TrulyMem(db_path, user_id="alice", embedder="hashing") as mem:
        mem.call("add_memory", {"text": "I like tea"})
    s = Served(str(db_path), "--request-budget", "1", "--user", "alice")
    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            big = c.post("/v1/memories", params={"user_id": "alice"}, json={"app_id": "x" * 200_000, "infer": True})
            assert big.status_code == 422
            for _ in range(2):
                time.sleep(1.2)  # past the big request's deadline
                r = c.post("/v1/memories/search", json={"query": "tea"})
                assert r.status_code == 200, r.text
                assert [m["memory"] for m in r.json()["results"]] == ["I like tea"]
    finally:
        s.stop()


def test_a_fresh_budget_ignores_an_outer_deadline_and_no_budget_clears_it() -> None:
    with budget.time_budget(1e-6):
        time.sleep(0.001)
        with budget.time_budget(60, fresh=True):
            budget.check()  # the spent outer deadline does not reach in
        with budget.time_budget(None, fresh=True):
            assert budget.remaining() is None
        with pytest.raises(BudgetExceeded):
            budget.check()
