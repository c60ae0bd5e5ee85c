"""Several processes on one PostgreSQL database: ``trulymem serve --workers 3`` answering
client processes while library processes write the same user directly. Nothing
acknowledged is lost, one folded name is one node, and each task has one current state
and one place in the chain — held by constraints and transactions, checked here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import Served
from trulymem import TrulyMem
from trulymem.model import EdgeKind, NodeType, Scope
from trulymem.store import FactQuery, NodeQuery

CLIENT = """
import json, sys, httpx
url, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
acked = []
with httpx.Client(base_url=url, timeout=60) as c:
    for i in range(n):
        r = c.post("/v1/tools/memory_commit", json={"triplets": [
            {"subject": "User" if i % 2 else " user", "relation": "met", "object": f"person {tag}-{i}"},
            {"subject": "user", "relation": "likes", "object": "Green Tea"}]})
        r.raise_for_status()
        acked.append(r.json())
        t = c.post("/v1/tools/task_create", json={"task_id": f"T{tag}-{i}", "description": "d"})
        t.raise_for_status()
        for state in ("paused", "in_progress", "completed"):
            c.post("/v1/tools/task_set_state", json={"task_id": f"T{tag}-{i}", "state": state}).raise_for_status()
print(json.dumps(acked))
"""

LIBRARY = """
import json, sys
from trulymem import TrulyMem
url, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
acked = []
with TrulyMem(url, user_id="default") as m:
    for i in range(n):
        res = m.commit([{"subject": "USER", "relation": "met", "object": f"person {tag}-{i}"},
                        {"subject": "user", "relation": "likes", "object": "green tea"}])
        acked.append(res.model_dump(mode="json"))
        m.task_create(f"T{tag}-{i}", "d")
        m.task_set_state(f"T{tag}-{i}", "paused")
print(json.dumps(acked))
"""


def test_workers_and_library_processes_share_one_database(pg_url: str, tmp_path: Path) -> None:
    n = 12
    server = Served(pg_url, "--workers", "3")
    try:
        procs = [subprocess.Popen([sys.executable, "-c", CLIENT, server.url, f"h{k}", str(n)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for k in range(4)]
        procs += [subprocess.Popen([sys.executable, "-c", LIBRARY, pg_url, f"l{k}", str(n)], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True) for k in range(2)]
        outs = [p.communicate(timeout=600) for p in procs]
    finally:
        server.stop()
    assert [err for (_, err), p in zip(outs, procs) if p.returncode != 0] == []
    acked = [json.loads(out) for out, _ in outs]
    writers = len(procs)
    with TrulyMem(pg_url, user_id="default") as m:
        store, scope = m.store, Scope(user_id="default")
        with store.transaction(write=False):
            stored = {f.id for f in store.facts(FactQuery(scope=scope, validity="all"))}
            users = store.nodes(NodeQuery(scope=scope, keys=["user"]))
            tea = store.nodes(NodeQuery(scope=scope, keys=["green tea"]))
            tasks = store.nodes(NodeQuery(scope=scope, types=[NodeType.TASK]))
            states = store.facts(FactQuery(scope=scope, kinds=[EdgeKind.HAS_STATE]))
            chain = store.facts(FactQuery(scope=scope, kinds=[EdgeKind.NEXT_TASK]))
            likes = store.facts(FactQuery(scope=scope, relation_keys=["likes"]))
    for result in acked:
        assert {f["id"] for r in result for f in r["facts"]} <= stored  # no acknowledged write lost
    assert len(users) == 1 and len(tea) == 1  # one node per folded name
    assert len(likes) == 1 and likes[0].mention_count == writers * n  # every reinforcement counted
    assert len(tasks) == writers * n
    per_task: dict[str, int] = {}
    for f in states:
        per_task[f.subject_id] = per_task.get(f.subject_id, 0) + 1
    assert set(per_task.values()) == {1} and len(per_task) == len(tasks)  # one current state per task
    assert len(chain) == len(tasks) - 1  # one line through every task
    assert len({f.subject_id for f in chain}) == len({f.object_id for f in chain}) == len(chain)


def test_writers_racing_for_new_names_make_one_node_each(pg_url: str) -> None:
    """New names are inserted without ON CONFLICT under the user's write lock: threads creating
    the same new names at once wait for each other and all end up with the same nodes."""
    import threading
    from datetime import UTC, datetime

    from trulymem.store.base import NodeSpec

    mem = TrulyMem(pg_url, user_id="racer", embedder="none")
    mem.ensure_user()
    store = mem.store
    specs = [NodeSpec(f"name {i}", f"Name {i}", NodeType.ENTITY) for i in range(300)]
    results: list[dict[str, str]] = []
    errors: list[BaseException] = []

    def write() -> None:
        try:
            with store.transaction():
                results.append(store.resolve_nodes(Scope(user_id="racer"), specs, datetime.now(UTC)))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 4
    assert all(r == results[0] for r in results)
    # outside a write transaction (no lock) the ON CONFLICT path finds the same nodes
    assert store.resolve_nodes(Scope(user_id="racer"), specs, datetime.now(UTC)) == results[0]
    assert len(store.nodes(NodeQuery(scope=Scope(user_id="racer")))) == 300
    mem.close()
