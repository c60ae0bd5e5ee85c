"""The SQLite neighbour statement starts from the asked ids whatever the planner's statistics
say: on a reopened conversation-sized database (a few hundred nodes, a few facts each) a
statement without the per-node ordering was planned from a scan of every node (288 ms against
~1 ms; docs/benchmarks.md, 2026-12-02)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from tests.helpers import triplet
from trulymem import TrulyMem
from trulymem.model import Scope
from trulymem.store import NodeQuery
from trulymem.store.base import CURRENT, When
from trulymem.store.queries import neighbor_sql
from trulymem.store.sqlite.rows import DIALECT


def _lived(path: Path) -> list[str]:
    """A conversation-shaped graph, closed (``PRAGMA optimize``) and analysed: the node ids."""
    rng = random.Random(3)
    people = [f"person {i}" for i in range(12)]
    with TrulyMem(path, user_id="alice") as mem:
        for batch in range(6):
            mem.commit([triplet(rng.choice(people), rng.choice(["said", "likes", "visited"]),
                                f"turn {batch} {i} about {rng.choice(people)}") for i in range(350)])
        ids = [n.id for n in mem.store.nodes(NodeQuery(scope=Scope(user_id="alice"), limit=40))]
    conn = sqlite3.connect(path)
    conn.execute("ANALYZE")
    conn.close()
    return ids


def test_neighbour_rows_are_planned_from_the_asked_ids(tmp_path: Path) -> None:
    ids = _lived(tmp_path / "m.db")
    conn = sqlite3.connect(tmp_path / "m.db")
    assert conn.execute("SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'facts'").fetchone()[0] > 0
    for when in (CURRENT, When("all")):
        for asked in (ids[:1], ids[:16], ids):
            sql, params = neighbor_sql(DIALECT, Scope(user_id="alice"), asked, 12, when)
            plan = [r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
            scans = [p for p in plan if p.startswith("SCAN")]
            assert scans and all(p.startswith("SCAN j") for p in scans), plan
    conn.close()
