"""Switching a database's embedder in place: ``trulymem reindex`` on real SQLite files.

The switch is atomic for readers (the old model's vectors are searched until one
transaction flips the setting), resumable after a kill, and every message names
embedders the way ``--embedder`` does."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tests.helpers import triplet
from trulymem import ConfigError, Conflict, TrulyMem
from trulymem.cli import main
from trulymem.embed import HashingEmbedder, get_embedder
from trulymem.embed.names import HASHING, USE, cli_name
from trulymem.model import Node
from trulymem.reindex import reindex
from trulymem.store.sqlite import SQLiteStore
from trulymem.tools.base import embed_dirty

FACTS = [triplet("user", "practises", "marathon running"), triplet("user", "owns", "a red bicycle"),
         triplet("user", "lives_in", "Lisbon"), triplet("user", "likes", "jazz music")]


def populate(db: Path, n: int = 200) -> int:
    """``FACTS`` plus ``n`` filler facts and a short conversation; returns the node count."""
    with TrulyMem(db, user_id="default", embedder="hashing") as mem:
        mem.commit(FACTS + [triplet(f"project {i}", "uses", f"library number {i}") for i in range(n)])
        mem.run("memory_ingest", {"messages": [{"speaker": "user", "text": "I went jogging by the river"},
                                               {"speaker": "AI", "text": "Sounds lovely!"}]})
        return int(mem.store.count_nodes_to_embed("", missing_only=False))


def vectors_by_model(db: Path) -> dict[str, int]:
    with closing(sqlite3.connect(db)) as conn:
        return dict(conn.execute("SELECT model, count(*) FROM node_vectors GROUP BY model").fetchall())


def cli(*args: str) -> object:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def recalled_by_vector(db: Path, query: str) -> set[str]:
    r = cli("recall", query, "--db", str(db), "--json", "--depth", "0")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    nodes = json.loads(r.output)["nodes"]  # type: ignore[attr-defined]
    return {n["name"] for n in nodes if any("vector" in w for w in n["why"])}


def test_hashing_to_use_to_hashing_on_a_populated_file(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRULYMEM_EMBEDDER", "auto")  # later commands follow the database's model
    nodes = populate(db_path)
    assert vectors_by_model(db_path) == {HASHING: nodes}
    assert "marathon running" in recalled_by_vector(db_path, "runners")  # hashing: shared spelling

    r = cli("reindex", "--embedder", "use", "--db", str(db_path), "--json")
    assert r.exit_code == 0, r.output  # type: ignore[attr-defined]
    assert json.loads(r.output) == {"embedder": "use", "model": USE, "previous": HASHING,  # type: ignore[attr-defined]
                                    "embedded": nodes, "resumed": False, "dropped": nodes}
    assert vectors_by_model(db_path) == {USE: nodes}
    assert "marathon running" in recalled_by_vector(db_path, "跑步")  # USE: meaning, across languages
    assert "Lisbon" in cli("recall", "Lisbon", "--db", str(db_path)).output  # type: ignore[attr-defined]
    # A process still on the old model is told what to pass, by names --embedder accepts.
    with pytest.raises(ConfigError) as info:
        TrulyMem(db_path, user_id="default", embedder="hashing")
    assert "--embedder use" in str(info.value) and "--embedder usem3" not in str(info.value)
    r = cli("stats", "--embedder", "hashing", "--db", str(db_path))
    assert r.exit_code == 1 and "--embedder use" in r.output  # type: ignore[attr-defined]

    r = cli("reindex", "--embedder", "hashing", "--db", str(db_path), "--json")
    assert json.loads(r.output)["previous"] == USE  # type: ignore[attr-defined]
    assert vectors_by_model(db_path) == {HASHING: nodes}
    assert "marathon running" in recalled_by_vector(db_path, "runners")
    assert "Lisbon" in cli("recall", "Lisbon", "--db", str(db_path)).output  # type: ignore[attr-defined]


def test_stored_model_names_map_back_to_embedder_choices() -> None:
    assert cli_name(USE) == "use" and cli_name(HASHING) == "hashing" and cli_name("openai:m") == "openai:m"
    assert cli_name("hashing-ngram-64") is None
    assert get_embedder(HASHING).name == HASHING  # the stored name is accepted where a choice is


def test_a_killed_reindex_resumes_where_it_stopped(db_path: Path) -> None:
    nodes = populate(db_path, n=1500)
    exe = Path(sys.executable).parent / "trulymem"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "trulymem.cli"]
    args = [*cmd, "reindex", "--embedder", "use", "--batch", "20", "--db", str(db_path), "--json"]
    deadline = time.monotonic() + 120
    with subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        try:
            while time.monotonic() < deadline:  # wait until a few batches are committed
                with closing(sqlite3.connect(db_path)) as conn:
                    row = conn.execute("SELECT value FROM settings WHERE key = 'reindex.after'").fetchone()
                if row and int(row[0]) > 100:
                    break
                assert proc.poll() is None, proc.communicate()
                time.sleep(0.05)
        finally:
            proc.send_signal(signal.SIGKILL)
    # Killed mid-way: readers still search the old model, which every node still has.
    done = vectors_by_model(db_path)
    assert 0 < done[USE] < nodes and done[HASHING] == nodes
    with SQLiteStore(db_path) as store:
        assert store.embedding_model() == HASHING
    assert "marathon running" in recalled_by_vector(db_path, "runners")

    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["resumed"] is True and res["embedded"] == nodes - done[USE]  # continued, not restarted
    assert vectors_by_model(db_path) == {USE: nodes}


class Small(HashingEmbedder):
    """A second model that needs no download: hashing into 64 dimensions."""

    def __init__(self) -> None:
        super().__init__(dim=64)


def first_node(mem: TrulyMem) -> Node:
    return mem.store.nodes_to_embed("", 1, missing_only=False)[0][0]


def rewrite(mem: TrulyMem, node: Node, summary: str) -> None:
    """Change a node's text as a writer does: its vector of the searched model follows."""
    with mem.store.transaction():
        mem.store.update_node(node.id, mem.clock(), summary=summary)
        embed_dirty(mem.store, mem.embedder)  # type: ignore[arg-type]


def test_readers_see_the_old_model_until_the_switch(db_path: Path) -> None:
    populate(db_path, n=40)
    writer = TrulyMem(db_path, user_id="bob", embedder="hashing")
    writer.commit([triplet("bob", "plays", "chess")])
    seen: list[tuple[str | None, bool]] = []

    def during(done: int, total: int) -> None:
        if seen:
            return
        # Mid-reindex, another process on the old model reads and writes as usual.
        with TrulyMem(db_path, user_id="default", embedder="hashing") as reader:
            hits = {n.name for n in reader.recall("runners", depth=0).nodes if "vector" in n.why[0]}
            seen.append((reader.store.embedding_model(), "marathon running" in hits))
        writer.commit([triplet("bob", "plays", "the cello")])  # new nodes: vectors of the old model only

    with SQLiteStore(db_path) as store:
        res = reindex(store, Small(), batch=10, progress=during)
        assert store.embedding_model() == "hashing-ngram-64" and store.count_nodes_without_vectors() == 0
    assert seen == [(HASHING, True)]  # the old model's vectors, searched as before
    assert res.model == "hashing-ngram-64" and res.previous == HASHING
    assert set(vectors_by_model(db_path)) == {"hashing-ngram-64"}
    with pytest.raises(Conflict, match="--embedder hashing"):  # the old model's writer may no longer add vectors
        writer.commit([triplet("bob", "reads", "novels")])
    writer.close()


def test_a_changed_node_gets_the_new_models_vector_of_its_new_text(db_path: Path) -> None:
    populate(db_path, n=30)
    small = Small()
    target: dict[str, str] = {}

    def during(done: int, total: int) -> None:
        if target:
            return
        with TrulyMem(db_path, user_id="default", embedder="hashing") as w:
            node = first_node(w)  # long embedded by now
            rewrite(w, node, "rewritten mid-way")
            target["id"], target["name"] = node.id, node.name

    with SQLiteStore(db_path) as store:
        reindex(store, small, batch=5, progress=during)
    assert target
    with closing(sqlite3.connect(db_path)) as conn:
        (blob,) = conn.execute("SELECT v.vec FROM node_vectors v JOIN nodes n ON n.rid = v.node_rid "
                               "WHERE n.id = ?", (target["id"],)).fetchone()
    want = small.embed_passages([f"{target['name']}: rewritten mid-way"])[0]
    assert np.allclose(np.frombuffer(blob, dtype=np.float32), want)


def test_another_users_writes_keep_flowing_during_a_reindex(db_path: Path) -> None:
    populate(db_path, n=4000)
    failures: list[str] = []
    writes = 0
    finished = threading.Event()

    def reindexing() -> None:
        try:
            with SQLiteStore(db_path) as store:
                reindex(store, Small(), batch=256)
        finally:
            finished.set()

    thread = threading.Thread(target=reindexing)
    thread.start()
    other = TrulyMem(SQLiteStore(db_path, busy_timeout_ms=1500), user_id="carol", embedder="hashing")
    try:
        while not finished.is_set():
            try:
                other.commit([triplet("carol", "note", f"note {writes}")])
                writes += 1
            except Conflict:
                break  # the switch happened: this process's model is no longer searched
            except Exception as exc:  # noqa: BLE001 - any failure to write is what this test looks for
                failures.append(repr(exc))
            time.sleep(0.01)
    finally:
        thread.join()
        other.close()
    assert failures == [] and writes > 5


def test_import_embeds_what_it_writes_or_says_how_to(db_path: Path, tmp_path: Path) -> None:
    nodes = populate(db_path, n=20)
    dump = tmp_path / "dump.jsonl"
    assert cli("export", str(dump), "--db", str(db_path)).exit_code == 0  # type: ignore[attr-defined]
    fresh = tmp_path / "fresh.db"
    r = cli("import", str(dump), "--db", str(fresh), "--json")
    res = json.loads(r.output)  # type: ignore[attr-defined]
    assert res["embedded"] == nodes and res["unembedded"] == 0 and res["model"] == HASHING
    assert vectors_by_model(fresh) == {HASHING: nodes}

    bare = tmp_path / "bare.db"
    r = cli("import", str(dump), "--db", str(bare), "--embedder", "none")
    assert r.exit_code == 0 and "trulymem reindex --missing" in r.output  # type: ignore[attr-defined]
    assert f"{nodes} nodes have no vector" in r.output  # type: ignore[attr-defined]
    assert vectors_by_model(bare) == {}
    r = cli("reindex", "--missing", "--db", str(bare), "--json")
    assert json.loads(r.output)["embedded"] == nodes and vectors_by_model(bare) == {HASHING: nodes}  # type: ignore[attr-defined]


def test_one_reindex_at_a_time_but_a_dead_holder_does_not_block(db_path: Path) -> None:
    from datetime import UTC, datetime

    populate(db_path, n=5)
    with SQLiteStore(db_path) as store:
        store.try_lock("reindex", f"{socket.gethostname()}:{os.getpid()}:other", datetime.now(UTC), 600)
        with pytest.raises(Conflict, match="another reindex"):
            reindex(store, Small())
        assert store.embedding_model() == HASHING
        store.unlock("reindex", f"{socket.gethostname()}:{os.getpid()}:other")
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        store.try_lock("reindex", f"{socket.gethostname()}:{dead.stdout.strip()}:gone", datetime.now(UTC), 600)
        assert reindex(store, Small()).model == "hashing-ngram-64"


def test_bad_reindex_input_changes_nothing(db_path: Path) -> None:
    populate(db_path, n=5)
    before = vectors_by_model(db_path)
    for args, needle in ((["--embedder", "nope"], "unknown embedder"), (["--embedder", "none"], "not 'none'"),
                         (["--batch", "0"], "--batch")):
        r = cli("reindex", *args, "--db", str(db_path))
        assert r.exit_code != 0 and needle in r.output, r.output  # type: ignore[attr-defined]
    assert vectors_by_model(db_path) == before
    with SQLiteStore(db_path) as store:
        assert store.settings("reindex.") == {}


def test_migration_keeps_the_vectors_of_an_older_database(db_path: Path) -> None:
    nodes = populate(db_path, n=10)
    with closing(sqlite3.connect(db_path)) as conn, conn:  # back to schema 5: one vector per node, no model
        conn.executescript("""
            CREATE TABLE old_vectors(node_rid INTEGER PRIMARY KEY REFERENCES nodes(rid) ON DELETE CASCADE,
                                     user_id TEXT NOT NULL, vec BLOB NOT NULL);
            INSERT INTO old_vectors SELECT node_rid, user_id, vec FROM node_vectors;
            DROP TABLE node_vectors;
            ALTER TABLE old_vectors RENAME TO node_vectors;
            CREATE INDEX node_vectors_user ON node_vectors(user_id);
            DELETE FROM schema_migrations WHERE version = 6;
        """)
    with TrulyMem(db_path, user_id="default", embedder="hashing") as mem:
        assert mem.store.count_nodes_without_vectors() == 0
        assert any("vector" in n.why[0] for n in mem.recall("runners", depth=0).nodes)
    assert vectors_by_model(db_path) == {HASHING: nodes}
