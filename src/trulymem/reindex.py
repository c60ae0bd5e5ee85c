"""Re-embedding a database: switch the model of its vectors in place.

The new model's vectors are written beside the old ones in batches, each one short
transaction that also saves a cursor, so other users' writes keep flowing and a killed
reindex continues where it stopped. Recall searches the old model's vectors until the
last transaction, which embeds what writers changed meanwhile and switches the searched
model in one statement; the old vectors are then dropped in batches. One reindex runs at
a time (a named lock that a dead process does not hold)."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime

from trulymem.embed.base import Embedder
from trulymem.errors import InvalidInput
from trulymem.locks import process_lock
from trulymem.model import Node, Scope
from trulymem.store.base import NodeQuery, Store
from trulymem.tools.base import node_text

MODEL, AFTER, EVERY = "reindex.model", "reindex.after", "reindex.every"  # the job, in settings
LOCK, LOCK_TTL_S = "reindex", 600.0
MAX_BATCH = 10_000

Progress = Callable[[int, int], None]


@dataclass
class ReindexResult:
    model: str  # the model searched now
    previous: str | None  # the one searched before
    embedded: int  # nodes embedded by this run
    total: int  # nodes this run had to embed (a resumed run: what was left)
    resumed: bool  # continued an interrupted reindex to the same model
    dropped: int  # vectors of other models removed


def reindex(store: Store, embedder: Embedder, *, missing_only: bool = False, batch: int = 256,
            progress: Progress | None = None) -> ReindexResult:
    """Give every node a vector of ``embedder`` and make its vectors the searched ones.

    With the searched model already ``embedder``'s, every node is embedded again unless
    ``missing_only`` (then only nodes without a vector, such as imported ones)."""
    if not 1 <= batch <= MAX_BATCH:
        raise InvalidInput(f"must be between 1 and {MAX_BATCH}", field="batch")
    target = embedder.name
    with _lock(store) as owner:
        previous, every, after, resumed = _start(store, target, missing_only)
        total = store.count_nodes_to_embed(target, after=after, missing_only=not every)
        done = 0

        def step(n: int) -> None:
            nonlocal done, total
            done += n
            total = max(total, done)
            if progress is not None:
                progress(done, total)

        # 1. every node after the cursor, each batch committed with the cursor
        while True:
            with store.transaction(write=False):
                nodes, cursor = store.nodes_to_embed(target, batch, after=after, missing_only=not every)
            if not nodes:
                break
            _write(store, embedder, nodes, owner, cursor)
            after = cursor
            step(len(nodes))
        # 2. what writers added or changed meanwhile (their new text has no vector of this model)
        for _ in range(3):
            with store.transaction(write=False):
                nodes, _cursor = store.nodes_to_embed(target, batch)
            if not nodes:
                break
            total += len(nodes)
            step(_write(store, embedder, nodes, owner, None))
        # 3. the switch: the last stragglers under the write lock, then one statement
        with store.transaction():
            while nodes := store.nodes_to_embed(target, batch)[0]:
                total += len(nodes)
                store.put_vectors(list(zip((n.id for n in nodes), embedder.embed_passages(
                    [node_text(n) for n in nodes]))), model=target)
                step(len(nodes))
            store.switch_embedding_model(target)
            for key in (MODEL, AFTER, EVERY):
                store.put_setting(key, None)
        # 4. the old model's vectors (and an abandoned reindex's), in batches
        dropped = 0
        while True:
            started = time.monotonic()
            with store.transaction():
                n = store.drop_vectors([target], 5 * batch)
            if not n:
                break
            dropped += n
            _yield(started)
    return ReindexResult(model=target, previous=previous, embedded=done, total=total, resumed=resumed,
                         dropped=dropped)


def embed_missing(store: Store, embedder: Embedder, *, batch: int = 256, progress: Progress | None = None) -> int:
    """Embed the nodes without a vector of the searched model ``embedder`` (such as imported
    ones) in one pass, a short transaction per batch; returns how many. A node a writer
    changes meanwhile is left to that writer, which embeds it."""
    with store.transaction():
        store.set_embedding_model(embedder.name)  # Conflict when another model's vectors are searched
        total = store.count_nodes_to_embed(embedder.name)
    done, after = 0, None
    while True:
        with store.transaction(write=False):
            nodes, after = store.nodes_to_embed(embedder.name, batch, after=after)
        if not nodes:
            return done
        done += _write(store, embedder, nodes, None, None)
        if progress is not None:
            progress(done, max(total, done))


def _start(store: Store, target: str, missing_only: bool) -> tuple[str | None, bool, str | None, bool]:
    """Begin a reindex to ``target`` or continue the interrupted one: (model searched now,
    whether every node is embedded again, the cursor, resumed)."""
    with store.transaction():
        previous = store.embedding_model()
        every = previous == target and not missing_only
        job = store.settings("reindex.")
        if job.get(MODEL) == target and job.get(EVERY, "0") == ("1" if every else "0"):
            return previous, every, job.get(AFTER), True
        # Another model's unfinished vectors are abandoned: the last step drops them.
        store.put_setting(MODEL, target)
        store.put_setting(EVERY, "1" if every else "0")
        store.put_setting(AFTER, None)
        return previous, every, None, False


def _write(store: Store, embedder: Embedder, nodes: list[Node], owner: str | None, cursor: str | None) -> int:
    """Embed ``nodes`` (outside any transaction: a model may take a while), then store the
    vectors of those whose text did not change meanwhile, with the cursor, in one short
    transaction; returns how many were stored."""
    vectors = embedder.embed_passages([node_text(n) for n in nodes])
    started = time.monotonic()
    with store.transaction():
        now = {n.id: node_text(n) for n in store.nodes(NodeQuery(scope=Scope.everyone(), ids=[n.id for n in nodes]))}
        fresh = [(n.id, v) for n, v in zip(nodes, vectors) if now.get(n.id) == node_text(n)]
        store.put_vectors(fresh, model=embedder.name)
        if cursor is not None:
            store.put_setting(AFTER, cursor)
        if owner is not None:
            _renew(store, owner)
    _yield(started)
    return len(fresh)


def _yield(started: float) -> None:
    """Pause as long as the write lock was held: SQLite's busy handler polls (every 100 ms at
    worst), so a lock taken again at once would starve another process's waiting writer."""
    time.sleep(min(time.monotonic() - started, 0.1))


def _lock(store: Store) -> AbstractContextManager[str]:
    return process_lock(store, LOCK, LOCK_TTL_S, "another reindex is running on this database")


def _renew(store: Store, owner: str) -> None:
    store.try_lock(LOCK, owner, datetime.now(UTC), LOCK_TTL_S)
