"""Commits on a database that has lived: with planner statistics the existing-triple
lookup stays one index lookup per triple (no Bloom-filter scan of every fact)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from trulymem import TrulyMem


def triplets(n: int, offset: int = 0) -> list[dict[str, str]]:
    return [{"subject": f"person {i % 97}", "relation": f"rel{i % 13}", "object": f"thing {i + offset}"}
            for i in range(n)]


def test_a_reopened_database_looks_triples_up_by_index(db_path: Path) -> None:
    mem = TrulyMem(db_path, user_id="u")
    mem.commit(triplets(3000))
    mem.close()
    conn = sqlite3.connect(db_path)
    conn.execute("ANALYZE")  # what PRAGMA optimize writes once a table is big enough
    conn.commit()
    conn.close()
    mem = TrulyMem(db_path, user_id="u")
    seen: list[str] = []
    mem.store._conn.set_trace_callback(seen.append)  # type: ignore[attr-defined]
    res = mem.commit(triplets(600) + triplets(300, offset=10_000))
    mem.store._conn.set_trace_callback(None)  # type: ignore[attr-defined]
    assert len(res.reinforced) == 600 and len(res.created) == 300
    lookups = [s for s in seen if "json_each" in s and "relation_key" in s]
    assert lookups
    for sql in lookups:
        plan = " | ".join(r[3] for r in mem.store._conn.execute("EXPLAIN QUERY PLAN " + sql))  # type: ignore[attr-defined]
        assert "BLOOM" not in plan and "facts_active_triple" in plan, plan
    mem.close()
