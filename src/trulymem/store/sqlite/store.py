"""``SQLiteStore``: the embedded default store, composed of its parts (one module each)."""

from __future__ import annotations

from pathlib import Path

from trulymem.store.sqlite.facts import FactMixin
from trulymem.store.sqlite.journal import JournalMixin
from trulymem.store.sqlite.nodes import NodeMixin
from trulymem.store.sqlite.search import SearchMixin
from trulymem.store.sqlite.transfer import TransferMixin
from trulymem.store.sqlite.vectors import VectorMixin


class SQLiteStore(TransferMixin, NodeMixin, FactMixin, SearchMixin, VectorMixin, JournalMixin):
    """Graph store in one SQLite file: WAL, busy timeout, foreign keys, migrations."""

    def __init__(self, path: str | Path = ":memory:", *, busy_timeout_ms: int = 5000) -> None:
        super().__init__(path, busy_timeout_ms=busy_timeout_ms)
        self._vector_state()
