"""``trulymem migrate``: SQLite -> PostgreSQL -> SQLite, exact (each export equals the source's)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.conftest import Clock
from tests.helpers import triplet
from trulymem import TrulyMem
from trulymem.keys import create_key, verify
from trulymem.store import open_store


def _export(db: str) -> str:
    with TrulyMem(db, user_id="alice") as m:
        buf = io.StringIO()
        m.export_jsonl(buf, all_users=True)
        return buf.getvalue()


def _populate(db: str, project: Path) -> str:
    from trulymem.dream import run_dream

    clock = Clock(datetime.now(UTC) - timedelta(days=200))
    m = TrulyMem(db, user_id="alice", clock=clock, embedder="hashing")
    m.commit([triplet("user", "喜欢", "猫娘", metadata={"why": ["a", 1]}), triplet("user", "lives in", "Lisbon"),
              triplet("user", "memory", "Use PostgreSQL for auth", type="decision"),
              triplet("user", "memory", "Standups are short", type="process", pinned=True)])
    m.purge({"subject": "user", "relation": "lives in"}, mode="supersede", replacement={"object": "Porto"})
    m.task_create("T1", "write the ADR")
    m.task_set_state("T1", "completed")
    m.persona_set({"role": "cat"})
    clock.advance(days=100)
    m.commit([triplet("user", "memory", "Auth DB is PostgreSQL", type="decision")], supersede=False)
    run_dream(m, project_dir=project, auto=True, emit=lambda _: None)
    m.close()
    with TrulyMem(db, user_id="bob", clock=clock, embedder="hashing") as b:
        b.commit([triplet("bob", "likes", "jazz")])
    with open_store(db) as store:
        _, token = create_key(store, user_id="alice")
    return token


def test_sqlite_to_postgres_and_back_is_exact(tmp_path: Path, pg_url: str) -> None:
    src = str(tmp_path / "memory.db")
    token = _populate(src, tmp_path)
    before = _export(src)
    env = {"TRULYMEM_EMBEDDER": "auto"}
    cli = [sys.executable, "-m", "trulymem", "migrate", "--json"]
    done = subprocess.run([*cli, "--from", src, "--to", pg_url], capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, **env})
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    assert counts["users"] == 2 and counts["runs"] == 1 and counts["embedded"] > 0
    assert _export(pg_url) == before
    with open_store(pg_url) as store:
        assert verify(store, token) is not None  # API keys came along
        assert store.runs("alice", "dream")  # the journal too: the dream can be undone there
        assert store.count_nodes_without_vectors() == 0
    with TrulyMem(pg_url, user_id="alice") as m:
        assert "猫娘" in m.recall("猫娘").text
    back = str(tmp_path / "back.db")
    done = subprocess.run([*cli, "--from", pg_url, "--to", back], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _export(back) == before


def test_a_destination_with_memories_is_refused(tmp_path: Path, pg_url: str) -> None:
    from trulymem.cli.migrate import migrate_database
    from trulymem.errors import Conflict

    src = str(tmp_path / "memory.db")
    with TrulyMem(src, user_id="a") as m:
        m.commit([triplet("a", "r", "b")])
    with TrulyMem(pg_url, user_id="z") as m:
        m.commit([triplet("z", "r", "y")])
    before = _export(pg_url)
    with open_store(src) as s, open_store(pg_url) as d, pytest.raises(Conflict, match="already holds memories"):
        migrate_database(s, d)
    assert _export(pg_url) == before


def test_missing_source_is_one_clear_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "trulymem", "migrate", "--from", str(tmp_path / "none.db"),
                           "--to", str(tmp_path / "x.db")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "no database at" in done.stderr
    assert not (tmp_path / "x.db").exists()


def test_a_source_holding_a_nul_names_the_record_and_copies_nothing(tmp_path: Path, pg_url: str) -> None:
    """A SQLite file written before NULs were refused (here: by hand) cannot go to PostgreSQL,
    which stores no NUL: the command names the record and what to do, and copies nothing."""
    import sqlite3

    src = str(tmp_path / "memory.db")
    with TrulyMem(src, user_id="alice") as m:
        m.commit([triplet("user", "likes", "tea"), triplet("user", "memory", "green tea at four")])
    with sqlite3.connect(src) as raw:
        nid = raw.execute("SELECT id FROM nodes WHERE name = 'green tea at four'").fetchone()[0]
        raw.execute("UPDATE nodes SET name = 'green tea' || char(0) || 'at four' WHERE id = ?", (nid,))
    before = _export(pg_url)
    done = subprocess.run([sys.executable, "-m", "trulymem", "migrate", "--from", src, "--to", pg_url],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    said = done.stderr
    assert "NUL" in said and f"node '{nid}' of user 'alice'" in said and "in name" in said, said
    assert "trulymem export" in said and "nothing was copied" in said, said
    assert _export(pg_url) == before  # the destination is still empty
    # the same record over the API: refused alike on both backends
    with TrulyMem(pg_url, user_id="alice") as m:
        assert m.call("add_memory", {"text": "green tea\x00at four"}).error["type"] == "invalid_input"  # type: ignore[index]
