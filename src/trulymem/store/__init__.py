"""Storage: the contract (``base``), its backends, and ``open_store`` to pick one from a location."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from trulymem.store.base import FactQuery, NodeQuery, NodeSpec, Stats, Store, When
from trulymem.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from trulymem.store.postgres import PostgresStore

__all__ = ["FactQuery", "NodeQuery", "NodeSpec", "PostgresStore", "SQLiteStore", "Stats", "Store", "When",
           "is_url", "open_store", "shown"]

_PG_SCHEMES = ("postgresql://", "postgres://")


def is_url(db: str | Path) -> bool:
    """Whether ``db`` names a PostgreSQL server rather than a SQLite file."""
    return isinstance(db, str) and db.startswith(_PG_SCHEMES)


def shown(db: str | Path) -> str:
    """``db`` as messages may show it: a URL without its password."""
    from trulymem.store.postgres.connection import redact

    return redact(str(db)) if is_url(db) else str(db)


def open_store(db: str | Path, **options: Any) -> Store:
    """The store at ``db``: ``postgresql://…`` (or ``postgres://…``) opens PostgreSQL
    (``pip install "trulymem[postgres]"``), anything else a SQLite file or ``:memory:``."""
    if is_url(db):
        from trulymem.store.postgres import PostgresStore

        return PostgresStore(str(db), **options)
    return SQLiteStore(db, **options)


def __getattr__(name: str) -> Any:
    if name == "PostgresStore":
        from trulymem.store.postgres import PostgresStore

        return PostgresStore
    raise AttributeError(name)
