"""Storage: the contract (``base``) and its backends."""

from trulymem.store.base import Capabilities, FactQuery, NodeQuery, NodeSpec, Stats, Store
from trulymem.store.sqlite import SQLiteStore

__all__ = ["Capabilities", "FactQuery", "NodeQuery", "NodeSpec", "Stats", "Store", "SQLiteStore"]
