"""Retrieval in the SQLite store: which nodes are live, and the capped neighbourhood of
nodes that graph expansion walks. Text search (FTS5, bm25) is ``store.queries``' over
the statements in ``rows.SEARCH``."""

from __future__ import annotations

import json
from collections.abc import Sequence

from trulymem.model import Fact, Scope
from trulymem.store.base import CURRENT, When
from trulymem.store.sqlite.connection import SQLiteBase
from trulymem.store.sqlite.rows import (
    FACT_COLS,
    JOIN_NODES,
    chunks,
    marks,
    row_to_fact,
    scope_sql,
    when_sql,
)


class SearchMixin(SQLiteBase):
    """Retrieval: ``live_nodes`` and ``neighbors`` (text search is ``store.queries``')."""

    def live_nodes(self, node_ids: Sequence[str], when: When = CURRENT) -> set[str]:
        wsql, wparams = when_sql(When(when.validity, when.as_of))
        live: set[str] = set()
        # by id, in one statement per chunk (looking the rids up first was a second statement)
        for chunk in chunks(list(dict.fromkeys(node_ids))):
            live.update(r[0] for r in self._q(
                f"SELECT n.id FROM nodes n WHERE n.id IN ({marks(len(chunk))}) "
                f"AND (EXISTS (SELECT 1 FROM facts f WHERE f.subject_rid = n.rid AND {wsql}) "
                f"OR EXISTS (SELECT 1 FROM facts f WHERE f.object_rid = n.rid AND {wsql}))",
                [*chunk, *wparams, *wparams]))
        return live

    def neighbors(self, scope: Scope, node_ids: Sequence[str], *, per_node: int,
                  when: When = CURRENT) -> list[Fact]:
        where, params = scope_sql(scope, "x")
        wsql, wparams = when_sql(when)
        wsql = wsql.replace("f.", "x.")
        rids = self._rids(node_ids)
        order = [rids[n] for n in node_ids if n in rids]
        if not order:
            return []
        # One statement per direction for all nodes (recall at depth 2 ran 46 of them): each node's
        # capped, indexed lookup is a correlated subquery; the order is the old per-node one.
        out: dict[str, Fact] = {}
        for column in ("subject_rid", "object_rid"):
            sql = (
                f"SELECT {FACT_COLS} FROM json_each(?) j JOIN facts f ON f.rid IN ("
                f"SELECT x.rid FROM facts x WHERE x.{column} = j.value AND {where} AND {wsql} "
                f"ORDER BY x.pinned DESC, x.updated_at DESC LIMIT ?) {JOIN_NODES} "
                f"ORDER BY j.key, f.pinned DESC, f.updated_at DESC, f.rid DESC"
            )
            for r in self._q(sql, (json.dumps(order), *params, *wparams, per_node)):
                if r[0] not in out:
                    out[r[0]] = row_to_fact(r)
        return list(out.values())
