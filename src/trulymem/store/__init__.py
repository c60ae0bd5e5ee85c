"""Storage: the contract (``base``) and its backends."""

from trulymem.store.base import FactQuery, NodeQuery, NodeSpec, Stats, Store, When
from trulymem.store.sqlite import SQLiteStore

__all__ = ["FactQuery", "NodeQuery", "NodeSpec", "SQLiteStore", "Stats", "Store", "When"]
