from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from tests.helpers import triplet
from trulymem import SchemaError, SQLiteStore, StoreError, TrulyMem
from trulymem.store.schema import LATEST


def test_file_database_uses_wal_foreign_keys_and_records_migrations(db_path: Path) -> None:
    store = SQLiteStore(db_path)
    conn = store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    rows = conn.execute("SELECT version, name FROM schema_migrations").fetchall()
    assert rows[-1][0] == LATEST and rows[0][1] == "graph core"
    store.close()
    SQLiteStore(db_path).close()  # reopening applies nothing twice
    with sqlite3.connect(db_path) as raw:
        assert raw.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == LATEST


def test_lookups_use_indexes(db_path: Path) -> None:
    mem = TrulyMem(db_path, user_id="u")
    mem.commit([triplet("user", "likes", "rock")])
    conn = mem.store._conn  # type: ignore[attr-defined]
    plans = {
        "subject": "SELECT * FROM facts WHERE subject_id = 'x' AND invalid_at IS NULL ORDER BY pinned DESC, updated_at DESC",
        "object": "SELECT * FROM facts WHERE object_id = 'x' ORDER BY pinned DESC, updated_at DESC",
        "node key": "SELECT * FROM nodes WHERE user_id='u' AND agent_id='' AND app_id='' AND key IN ('a','b')",
        "node id": "SELECT * FROM nodes WHERE id = 'x'",
        "node type": "SELECT * FROM nodes WHERE user_id='u' AND type='TaskNode' ORDER BY created_at DESC",
        "relation": "SELECT * FROM facts WHERE user_id='u' AND relation_key='likes'",
        "kind": "SELECT * FROM facts WHERE user_id='u' AND kind='HAS_PERSONA'",
        "type": "SELECT * FROM facts WHERE user_id='u' AND type IN ('session_state')",
        "source": "SELECT * FROM facts WHERE user_id='u' AND source = 'mem0-dream'",
        "listing": "SELECT * FROM facts WHERE user_id='u' ORDER BY created_at DESC LIMIT 10",
        "history": "SELECT * FROM facts WHERE superseded_by = 'x'",
    }
    for name, sql in plans.items():
        plan = " ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + sql))
        assert "USING" in plan and "SCAN facts" not in plan and "SCAN nodes" not in plan, (name, plan)
        assert "TEMP B-TREE" not in plan or name not in ("listing",), (name, plan)


def test_data_survives_reopen(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="u") as mem:
        mem.commit([triplet("user", "喜欢", "猫娘")])
    with TrulyMem(db_path, user_id="u") as mem:
        assert "猫娘" in mem.recall("猫娘").text


def test_newer_schema_is_refused(db_path: Path) -> None:
    SQLiteStore(db_path).close()
    with sqlite3.connect(db_path) as raw:
        raw.execute("INSERT INTO schema_migrations VALUES (999, 'from the future', '2030-01-01')")
    with pytest.raises(SchemaError, match="newer"):
        SQLiteStore(db_path)


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("this is not sqlite " * 100)
    with pytest.raises(StoreError, match="cannot open database"):
        SQLiteStore(bad)


def test_foreign_keys_protect_nodes(db_path: Path) -> None:
    mem = TrulyMem(db_path, user_id="u")
    mem.commit([triplet("user", "likes", "rock")])
    conn = mem.store._conn  # type: ignore[attr-defined]
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("DELETE FROM nodes WHERE key = 'rock'")


def test_two_connections_share_one_file(db_path: Path) -> None:
    """A second process-like writer waits (busy_timeout) instead of failing."""
    a = TrulyMem(db_path, user_id="u")
    b = TrulyMem(db_path, user_id="u")
    errors: list[BaseException] = []

    def write(m: TrulyMem, tag: str) -> None:
        try:
            for i in range(30):
                m.commit([triplet("user", "wrote", f"{tag} {i}")])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(a, "a")), threading.Thread(target=write, args=(b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert a.stats().facts_valid == 60


def test_memory_database(tmp_path: Path) -> None:
    mem = TrulyMem(":memory:", user_id="u")
    mem.commit([triplet("a", "r", "b")])
    assert mem.stats().facts_valid == 1
    assert list(tmp_path.iterdir()) == []
