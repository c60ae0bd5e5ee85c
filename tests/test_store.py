from __future__ import annotations

import re
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


def test_every_statement_the_tools_run_uses_an_index(db_path: Path) -> None:
    """Trace the SQL of a workload touching every tool, then EXPLAIN each read:
    no statement may scan the whole facts or nodes table."""
    m = TrulyMem(db_path, user_id="u")
    m.commit([triplet(f"e{i}", "likes", f"e{i + 1}", type="t", source="s") for i in range(50)])
    conn = m.store._conn  # type: ignore[attr-defined]
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    m.persona_set({"role": "cat"})
    m.persona_get()
    m.task_create("T1", "d", info_nodes=["e1"])
    m.task_create("T2", "d")
    m.task_set_state("T1", "paused")
    m.task_list()
    m.commit([triplet("e1", "likes", "e2")])
    for q in ("e1", "likes", "e1 e2", "TaskNode", "persona", "", "猫", "StateNode"):
        m.recall(q, depth=3)
    m.recall("e1", as_of=m.clock())
    m.purge({"subject": "e3", "relation": "likes"}, mode="supersede", replacement={"object": "x"})
    m.purge({"type": "t", "source": "s", "session_id": "s1"}, dry_run=True)
    m.purge({"ids": ["x"], "kind": "FACT"}, dry_run=True)
    m.purge({"subject": "e5"}, mode="hard", confirm=True)
    m.history("e1")
    m.stats()
    conn.set_trace_callback(None)
    reads = [q for q in seen if re.match(r"\s*(SELECT|UPDATE|DELETE|WITH)", q, re.I)]
    assert len(reads) > 50
    for sql in reads:
        plan = " | ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + sql))
        assert not re.search(r"SCAN (f|n|s|o|facts|nodes)\b", plan), (sql, plan)


def test_data_survives_reopen(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="u") as mem:
        mem.commit([triplet("user", "喜欢", "猫娘")])
    with TrulyMem(db_path, user_id="u") as mem:
        assert "猫娘" in mem.recall("猫娘").text


@pytest.mark.parametrize(("sql", "needle"), [
    ("INSERT INTO schema_migrations VALUES (999, 'from the future', '2030-01-01')", "newer"),
    ("UPDATE schema_migrations SET name = 'text ids' WHERE version = 1", "development build"),
])
def test_schemas_this_build_does_not_know_are_refused(db_path: Path, sql: str, needle: str) -> None:
    SQLiteStore(db_path).close()
    with sqlite3.connect(db_path) as raw:
        raw.execute(sql)
    with pytest.raises(SchemaError, match=needle):
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


def test_processes_creating_one_new_file_at_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    db = tmp_path / "race.db"
    code = ("from trulymem import TrulyMem\n"
            f"m = TrulyMem({str(db)!r}, user_id='u')\n"
            "m.commit([{'subject': 'a', 'relation': 'r', 'object': 'b'}])\n")
    procs = [subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE) for _ in range(6)]
    outcomes = [(p.communicate(timeout=120)[1].decode(), p.returncode) for p in procs]
    assert [err for err, code in outcomes if code != 0] == []
    with TrulyMem(db, user_id="u") as m:
        assert m.history("a")[0].mention_count == 6


def test_home_relative_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    with TrulyMem("~/sub/mem.db", user_id="u") as m:
        m.commit([triplet("a", "r", "b")])
    assert (tmp_path / "sub" / "mem.db").exists()
