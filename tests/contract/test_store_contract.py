"""Behaviour every backend must show, checked on SQLite and PostgreSQL alike (``backend``),
plus what only the server backend promises (keys led by user_id, migrations in the
database, clear errors)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.conftest import Clock
from tests.helpers import snapshot, triplet
from trulymem import SchemaError, StoreError, TrulyMem
from trulymem.keys import create_key, revoke_key, verify
from trulymem.model import Scope
from trulymem.store import open_store
from trulymem.text import phrases, query_terms


def _search(m: TrulyMem, query: str) -> set[str]:
    names = {n.id: n.name for n in m.store.nodes(__import__("trulymem.store", fromlist=["NodeQuery"]).NodeQuery(
        scope=Scope(user_id="alice")))}
    found = m.store.search_nodes(Scope(user_id="alice"), phrases(query_terms(query)), 50)
    return {names[nid] for nid, score in found if score > 0}


def test_full_text_matches_sqlite_semantics(mem: TrulyMem) -> None:
    """Stemming (running ~ runs), CJK bigrams, a lone CJK character, phrases in order."""
    mem.commit([triplet("user", "likes", "running in the park"), triplet("user", "喜欢", "猫娘"),
                triplet("user", "lives in", "New York"), triplet("user", "visited", "York New"),
                triplet("user", "said", "成语故事"), triplet("user", "wrote", "Café au lait")])
    assert _search(mem, "runs") == {"running in the park"}
    assert _search(mem, "猫娘") == {"猫娘"}
    assert _search(mem, "猫") == {"猫娘"}
    assert _search(mem, "语故") == {"成语故事"}
    assert _search(mem, "new york,") == {"New York"}  # one comma-separated term: a phrase, in order
    assert _search(mem, "cafe") == {"Café au lait"}  # diacritics removed
    assert _search(mem, "york, park") == {"New York", "York New", "running in the park"}
    assert _search(mem, "nothing here") == set()


def test_bitemporal_queries(mem: TrulyMem, clock: Clock) -> None:
    mem.commit([triplet("user", "lives in", "Lisbon")])
    before_move = clock()
    clock.advance(days=1)
    mem.purge({"subject": "user", "relation": "lives in"}, mode="supersede", replacement={"object": "Porto"})
    assert "Porto" in mem.recall("user").text
    then = mem.recall("user", as_of=before_move).text
    assert "Lisbon" in then and "Porto" not in then
    assert {f.object for f in mem.history("user", "lives in")} == {"Lisbon", "Porto"}


def test_dream_undo_restores_every_row(db: str, tmp_path: Any) -> None:
    from datetime import UTC, datetime

    from trulymem.dream import run_dream, undo_dream
    from trulymem.tools.base import ToolContext

    clock = Clock(datetime.now(UTC) - timedelta(days=200))
    m = TrulyMem(db, user_id="alice", clock=clock, embedder="hashing")
    m.commit([triplet("user", "memory", "Use PostgreSQL for auth", type="decision"),
              triplet("user", "lives_in", "Paris"), triplet("user", "memory", "用户喜欢猫", type="pref")])
    clock.advance(days=100)
    m.commit([triplet("user", "memory", "Auth DB is PostgreSQL", type="decision"), triplet("user", "lives_in", "Berlin"),
              triplet("user", "memory", "用户很喜欢猫咪", type="pref")], supersede=False)
    before = snapshot(m)
    res = run_dream(m, project_dir=tmp_path, auto=True, emit=lambda _: None)
    assert res.applied is not None and snapshot(m) != before
    run = undo_dream(ToolContext(store=m.store, scope=m.scope, now=m.clock(), embedder=m.embedder))
    assert run.id == res.applied.run_id and snapshot(m) == before
    m.close()


def test_api_keys(db: str) -> None:
    with open_store(db) as store:
        key, token = create_key(store, user_id="u1", label="ci")
        found = verify(store, token)
        assert found is not None and found.user_id == "u1"
        revoke_key(store, key.id)
        assert verify(store, token) is None


def test_vectors_exact_search_agrees_across_backends(db: str, clock: Clock) -> None:
    m = TrulyMem(db, user_id="alice", clock=clock, embedder="hashing")
    m.commit([triplet("user", "likes", f"thing number {i}") for i in range(30)])
    m.commit([triplet("user", "enjoys", "jazz music on sunday")])
    hits = m.recall("jazz music sunday").text
    assert "jazz music on sunday" in hits
    assert m.store.count_nodes_without_vectors() == 0
    m.close()


def test_export_is_the_same_on_both_backends(db: str, tmp_path: Any, clock: Clock) -> None:
    """What one backend exports, the other imports and exports again unchanged."""
    import io

    m = TrulyMem(db, user_id="alice", clock=clock)
    m.commit([triplet("user", "喜欢", "猫娘", metadata={"k": [1, 2.5, "x"]}), triplet("user", "lives in", "Lisbon")])
    m.purge({"subject": "user", "relation": "lives in"}, mode="supersede", replacement={"object": "Porto"})
    m.task_create("T1", "d")
    out = io.StringIO()
    m.export_jsonl(out, all_users=True)
    m.close()
    other = TrulyMem(str(tmp_path / "copy.db"), user_id="alice")
    other.import_jsonl(io.StringIO(out.getvalue()))
    again = io.StringIO()
    other.export_jsonl(again, all_users=True)
    other.close()
    assert again.getvalue() == out.getvalue()


# --- the server backend only ---------------------------------------------------------------


def test_every_key_leads_with_user_id(pg_url: str) -> None:
    import psycopg

    open_store(pg_url).close()
    shared = {"users", "settings", "locks", "schema_migrations"}
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT c.conrelid::regclass::text, c.contype, "
            "(SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY k(n, ord) "
            " JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) "
            "FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace "
            "WHERE s.nspname = 'public' AND c.contype IN ('p', 'f', 'u')").fetchall()
    tables = {t for t, _, _ in rows}
    assert {"nodes", "facts", "node_vectors", "runs", "run_changes", "text_vectors"} <= tables
    for table, kind, cols in rows:
        if table not in shared:
            assert cols[0] == "user_id", (table, kind, cols)


def test_migrations_are_recorded_and_applied_once(pg_url: str) -> None:
    import psycopg

    from trulymem.store.postgres.schema import LATEST, MIGRATIONS, migrate

    open_store(pg_url).close()
    open_store(pg_url).close()
    with psycopg.connect(pg_url) as conn:
        assert migrate(conn) == []  # up to date: one read, nothing applied
        rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
        assert rows == [(v, n) for v, n, _ in MIGRATIONS] and rows[-1][0] == LATEST
        conn.execute("INSERT INTO schema_migrations VALUES (999, 'from the future', now())")
    try:
        with pytest.raises(SchemaError, match="newer"):
            open_store(pg_url)
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("DELETE FROM schema_migrations WHERE version = 999")


def test_unreachable_server_is_one_clear_error_without_the_password() -> None:
    from tests.helpers import free_port

    url = f"postgresql://me:s3cret@127.0.0.1:{free_port()}/nothing"
    with pytest.raises(StoreError, match="cannot open database") as info:
        open_store(url, timeout_s=2)
    assert "s3cret" not in str(info.value)


def test_settings_file_and_env_take_a_url(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from trulymem.config import Settings

    monkeypatch.setenv("TRULYMEM_DB", pg_url)
    assert Settings.load().db == pg_url
    with TrulyMem(Settings.load().db, user_id="u") as m:
        m.commit([triplet("a", "r", "b")])
        assert m.stats().facts_valid == 1


def test_write_locks_are_per_user(pg_url: str) -> None:
    """A transaction writing one user does not wait for another user's open write."""
    import threading

    a = TrulyMem(pg_url, user_id="a")
    b = TrulyMem(pg_url, user_id="b")
    a.commit([triplet("x", "r", "y")])
    b.commit([triplet("x", "r", "y")])
    done = threading.Event()
    with a.store.transaction():
        a.store.ensure_user("a", a.clock())  # holds a's lock until the block ends
        t = threading.Thread(target=lambda: (b.commit([triplet("x", "r", "z")]), done.set()))
        t.start()
        assert done.wait(30), "user b waited for user a's transaction"
    t.join()
    a.close()
    b.close()


def test_same_user_writers_wait_instead_of_duplicating(pg_url: str) -> None:
    import threading

    stores = [TrulyMem(pg_url, user_id="u") for _ in range(4)]
    errors: list[BaseException] = []

    def write(m: TrulyMem, k: int) -> None:
        try:
            for i in range(15):
                m.commit([triplet("User", "met", f"Person {i}"), triplet("user", "tick", f"{k}-{i}")])
                m.task_create(f"T{k}-{i}", "d")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(m, k)) for k, m in enumerate(stores)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    m = stores[0]
    stats = m.stats()
    assert stats.facts_by_kind["FACT"]["valid"] == 15 + 60
    assert m.history("user", "met")[0].mention_count == 4
    assert len(m.task_list(limit=100).tasks) == 60
    for s in stores:
        s.close()


def test_clock_skew_does_not_matter_for_as_of(pg_url: str, clock: Clock) -> None:
    m = TrulyMem(pg_url, user_id="u", clock=clock)
    m.commit([triplet("a", "r", "b")])
    assert "a r b" in m.recall("a", as_of=clock() + timedelta(days=1)).text
    assert m.recall("a", as_of=clock() - timedelta(days=1)).text.strip() in ("", "No memories found.") or \
        "a r b" not in m.recall("a", as_of=clock() - timedelta(days=1)).text
    m.close()


def test_without_the_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if `trulymem[postgres]` were not installed
    with pytest.raises(StoreError, match=r'pip install .*\[postgres\]"'):
        open_store("postgresql://nobody@127.0.0.1:1/none")
