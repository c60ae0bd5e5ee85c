"""An existing PostgreSQL database made before migration 2 ("no relation index") upgrades in
place when opened: the migration is recorded, the index is gone, the facts and the reads that
used it are unchanged; one made before migration 3 ("nodes by key") gains the index and finds
the same nodes by key."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.contract.conftest import Server
from trulymem import TrulyMem
from trulymem.model import Scope
from trulymem.store.base import FactQuery, NodeQuery
from trulymem.store.postgres import schema
from trulymem.text.normalize import folded_key

TRIPLETS = [
    {"subject": "alice", "relation": "likes", "object": "tea"},
    {"subject": "bob", "relation": "likes", "object": "coffee"},
    {"subject": "alice", "relation": "works at", "object": "acme"},
]
_names = itertools.count()


@pytest.fixture
def raw_url(pg_server: Server) -> Iterator[str]:
    """A new, empty database (not the migrated template)."""
    import psycopg

    name = f"upgrade_{next(_names)}"
    with psycopg.connect(pg_server.cluster.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield pg_server.cluster.url(name)
    with psycopg.connect(pg_server.cluster.url(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def _liked(mem: TrulyMem) -> list[tuple[str, str]]:
    facts = mem.store.facts(FactQuery(scope=Scope(user_id="u"), relation_keys=["likes"]))
    return sorted((f.subject_id, f.object_id) for f in facts)


def _state(url: str) -> tuple[list[int], list[str]]:
    import psycopg

    with psycopg.connect(url) as conn:
        versions = [int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        indexes = [str(r[0]) for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'facts'")]
    return versions, indexes


def test_database_at_version_1_upgrades_in_place(raw_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = [m for m in schema.MIGRATIONS if m[0] < 2]
    with monkeypatch.context() as old:  # this trulymem as it was before migration 2
        old.setattr(schema, "MIGRATIONS", before)
        old.setattr(schema, "LATEST", before[-1][0])
        with TrulyMem(raw_url, user_id="u", embedder="none") as mem:
            mem.commit(TRIPLETS)
            liked = _liked(mem)
    versions, indexes = _state(raw_url)
    assert versions == [1] and "facts_user_relation" in indexes

    with TrulyMem(raw_url, user_id="u", embedder="none") as mem:
        assert _liked(mem) == liked and len(liked) == 2
        assert mem.store.count_facts(FactQuery(scope=Scope(user_id="u"))) == len(TRIPLETS)
    versions, indexes = _state(raw_url)
    assert versions[:2] == [1, 2]
    assert "facts_user_relation" not in indexes
    assert {"facts_active_triple", "facts_one_next_task", "facts_one_previous_task"} <= set(indexes)
    # migration 5: the structural-kind index replaced the full one, the per-user walk's index added
    assert "facts_user_kind" not in indexes and {"facts_user_structural", "facts_user_seq"} <= set(indexes)


def _node_indexes(url: str) -> list[str]:
    import psycopg

    with psycopg.connect(url) as conn:
        return [str(r[0]) for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'nodes'")]


def test_database_at_version_2_gains_the_key_index(raw_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = [m for m in schema.MIGRATIONS if m[0] < 3]
    with monkeypatch.context() as old:  # this trulymem as it was before migration 3
        old.setattr(schema, "MIGRATIONS", before)
        old.setattr(schema, "LATEST", before[-1][0])
        with TrulyMem(raw_url, user_id="u", embedder="none") as mem:
            mem.commit(TRIPLETS)
            found = sorted(n.id for n in mem.store.nodes(NodeQuery(scope=Scope(user_id="u"), keys=["alice", "tea"])))
    assert "nodes_user_key" not in _node_indexes(raw_url)

    with TrulyMem(raw_url, user_id="u", embedder="none") as mem:
        assert sorted(n.id for n in mem.store.nodes(NodeQuery(scope=Scope(user_id="u"), keys=["alice", "tea"]))) == found
        assert len(found) == 2
    versions, _ = _state(raw_url)
    assert versions == [m[0] for m in schema.MIGRATIONS]
    assert "nodes_user_key" in _node_indexes(raw_url)
    import psycopg

    with psycopg.connect(raw_url) as conn:  # migration 4
        options = conn.execute("SELECT reloptions FROM pg_class WHERE relname = 'facts_tsv'").fetchone()
    assert options is not None and "fastupdate=on" in options[0]


UNITS = [{"subject": "user", "relation": "memory", "object": "The upload limit is 10 MB"},
         {"subject": "Build 7 QA", "relation": "runs on", "object": "2 GB runners"},
         {"subject": "user", "relation": "likes", "object": "tea"}]


def test_database_before_migration_6_keeps_unit_case_in_its_keys(raw_url: str) -> None:
    """Keys written before migration 6 fold a unit's case ("10 mb"); opening the database
    rekeys them, so the same text still reinforces its fact and "10 Mb" is a fact of its own."""
    import psycopg

    with TrulyMem(raw_url, user_id="u", embedder="none") as mem:
        mem.commit(UNITS)
    with psycopg.connect(raw_url) as conn:  # as trulymem wrote it before migration 6
        for node, name in conn.execute("SELECT id, name FROM nodes").fetchall():
            conn.execute("UPDATE nodes SET key = %s WHERE id = %s", (folded_key(name), node))
        conn.execute("DELETE FROM schema_migrations WHERE version = 6")
    with TrulyMem(raw_url, user_id="u", embedder="none") as mem:
        assert mem.commit(UNITS).created == []
        assert len(mem.commit([{**UNITS[0], "object": "The upload limit is 10 Mb"}]).created) == 1
        assert mem.store.count_facts(FactQuery(scope=Scope(user_id="u"))) == len(UNITS) + 1
    assert _state(raw_url)[0] == [m[0] for m in schema.MIGRATIONS]
    with psycopg.connect(raw_url) as conn:
        keys = {r[0] for r in conn.execute("SELECT key FROM nodes")}
    assert {"the upload limit is 10 MB", "build 7 QA", "2 GB runners", "user", "tea"} <= keys
