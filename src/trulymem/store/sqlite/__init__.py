"""The embedded default store: one SQLite file (or ``:memory:``), standard library only.

``SQLiteStore`` (in ``store``) is composed of one part per concern, each on the
shared connection of ``connection.SQLiteBase``::

    connection  opening (pragmas, WAL, migrations), transactions, users, settings
    nodes       resolving names to nodes, updates, listing, orphans
    facts       the fact filter, listing, inserts, reinforce/invalidate/delete
    search      full-text search over nodes and facts, neighbourhoods
    vectors     node vectors and exact cosine search
    journal     journaled runs and named locks
    transfer    export, import, restoring journaled rows
    rows        column lists and row <-> model conversions they all share
"""

from trulymem.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
