"""The server store: one PostgreSQL database (``pip install "trulymem[postgres]"``).

``PostgresStore`` (in ``store``) implements the same contract as ``SQLiteStore``, one part
per concern on a shared pool of connections (``connection.PostgresBase``)::

    schema      migrations recorded in the database; every key starts with user_id
    connection  the pool, transactions, per-user write locks, users, settings
    text        FTS5's terms as tsvector/tsquery literals (SQLite's full-text semantics)
    nodes       resolving names to nodes, updates, listing, orphans
    facts       the fact filter, listing, inserts, reinforce/invalidate/delete
    search      full-text search over nodes and facts, neighbourhoods
    vectors     node vectors; exact cosine search without pgvector
    pgvector    HNSW search when the server has the extension
    journal     journaled runs and named locks
    transfer    export, import, restoring journaled rows
    rows        column lists and row <-> model conversions they all share

psycopg is imported when a store is opened, so ``import trulymem`` never needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trulymem.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]


def __getattr__(name: str) -> Any:
    if name == "PostgresStore":
        from trulymem.store.postgres.store import PostgresStore

        return PostgresStore
    raise AttributeError(name)
