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
    assert versions == [1, 2, 3, 4, 5, 6, 7]
    assert "facts_user_relation" not in indexes
    # the invariants' unique indexes stay
    assert {"facts_active_triple", "facts_one_next_task", "facts_one_previous_task"} <= set(indexes)
