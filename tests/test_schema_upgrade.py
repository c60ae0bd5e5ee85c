"""An existing SQLite database made before migration 7 ("no relation index") upgrades in place
when opened: the migration is recorded, the index is gone, every fact is still there and the
reads that used the index return what they returned before."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from trulymem import TrulyMem
from trulymem.model import Scope
from trulymem.store import schema
from trulymem.store.base import FactQuery
from trulymem.text.normalize import folded_key

TRIPLETS = [
    {"subject": "alice", "relation": "likes", "object": "tea"},
    {"subject": "bob", "relation": "likes", "object": "coffee"},
    {"subject": "alice", "relation": "works at", "object": "acme"},
]


def _liked(mem: TrulyMem) -> list[tuple[str, str]]:
    facts = mem.store.facts(FactQuery(scope=Scope(user_id="u"), relation_keys=["likes"]))
    return sorted((f.subject_id, f.object_id) for f in facts)


def _state(path: Path) -> tuple[list[int], list[str]]:
    with sqlite3.connect(path) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        indexes = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' "
                                              "AND tbl_name = 'facts' ORDER BY name")]
    return versions, indexes


def test_database_at_version_6_upgrades_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.db"
    before = [m for m in schema.MIGRATIONS if m[0] < 7]
    with monkeypatch.context() as old:  # this trulymem as it was before migration 7
        old.setattr(schema, "MIGRATIONS", before)
        old.setattr(schema, "LATEST", before[-1][0])
        with TrulyMem(str(path), user_id="u", embedder="none") as mem:
            mem.commit(TRIPLETS)
            liked = _liked(mem)
    versions, indexes = _state(path)
    assert versions == [1, 2, 3, 4, 5, 6] and "facts_user_relation" in indexes

    with TrulyMem(str(path), user_id="u", embedder="none") as mem:
        assert _liked(mem) == liked and len(liked) == 2
        assert mem.store.count_facts(FactQuery(scope=Scope(user_id="u"))) == len(TRIPLETS)
    versions, indexes = _state(path)
    assert versions == [m[0] for m in schema.MIGRATIONS]
    assert "facts_user_relation" not in indexes
    # the invariants' unique indexes stay
    assert {"facts_active_triple", "facts_one_next_task", "facts_one_previous_task"} <= set(indexes)


UNITS = [{"subject": "user", "relation": "memory", "object": "The upload limit is 10 MB"},
         {"subject": "Build 7 QA", "relation": "runs on", "object": "2 GB runners"},
         {"subject": "user", "relation": "likes", "object": "tea"}]


def test_database_before_migration_8_keeps_unit_case_in_its_keys(tmp_path: Path) -> None:
    """Keys written before migration 8 fold a unit's case ("10 mb"); opening the file rekeys
    them, so the same text still reinforces its fact and "10 Mb" is a fact of its own."""
    path = tmp_path / "old.db"
    with TrulyMem(str(path), user_id="u", embedder="none") as mem:
        mem.commit(UNITS)
    with sqlite3.connect(path) as conn:  # as trulymem wrote it before migration 8
        conn.create_function("folded", 1, folded_key)
        conn.execute("UPDATE nodes SET key = folded(name)")
        conn.execute("DELETE FROM schema_migrations WHERE version = 8")
        assert ("the upload limit is 10 mb",) in conn.execute("SELECT key FROM nodes").fetchall()
    with TrulyMem(str(path), user_id="u", embedder="none") as mem:
        assert mem.commit(UNITS).created == []
        assert len(mem.commit([{**UNITS[0], "object": "The upload limit is 10 Mb"}]).created) == 1
        assert mem.store.count_facts(FactQuery(scope=Scope(user_id="u"))) == len(UNITS) + 1
    with sqlite3.connect(path) as conn:
        assert 8 in [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
        keys = {r[0] for r in conn.execute("SELECT key FROM nodes")}
    assert {"the upload limit is 10 MB", "build 7 QA", "2 GB runners", "user", "tea"} <= keys
