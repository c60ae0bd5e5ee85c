"""Retrieval in the PostgreSQL store: which nodes are live, and the capped neighbourhood of
nodes that graph expansion walks (one lateral query per direction for every node at once).
Text search (a tsvector of the same terms FTS5 indexes, ``text.py``) is ``store.queries``'
over the statements in ``rows.SEARCH``."""

from __future__ import annotations

from collections.abc import Sequence

from trulymem.model import Fact, Scope
from trulymem.store.base import CURRENT, When
from trulymem.store.postgres.connection import PostgresBase
from trulymem.store.postgres.rows import FACT_COLS, JOIN_NODES, chunks, row_to_fact, scope_sql, when_sql


class SearchMixin(PostgresBase):
    """Retrieval: ``live_nodes`` and ``neighbors`` (text search is ``store.queries``')."""

    def live_nodes(self, node_ids: Sequence[str], when: When = CURRENT) -> set[str]:
        wsql, wparams = when_sql(When(when.validity, when.as_of))
        live: set[str] = set()
        for chunk in chunks(list(dict.fromkeys(node_ids))):
            live.update(r[0] for r in self._q(
                "SELECT n.id FROM nodes n WHERE n.id = ANY(%s) "
                f"AND (EXISTS (SELECT 1 FROM facts f WHERE f.user_id = n.user_id AND f.subject_id = n.id AND {wsql}) "
                f"OR EXISTS (SELECT 1 FROM facts f WHERE f.user_id = n.user_id AND f.object_id = n.id AND {wsql}))",
                [list(chunk), *wparams, *wparams]))
        return live

    def neighbors(self, scope: Scope, node_ids: Sequence[str], *, per_node: int,
                  when: When = CURRENT) -> list[Fact]:
        where, params = scope_sql(scope, "f")
        wsql, wparams = when_sql(when)
        out: dict[str, Fact] = {}
        ids = list(dict.fromkeys(node_ids))
        if not ids:
            return []
        # with the user known the scope pins f.user_id; across users each node's own user does
        nodes = ("" if scope.user_id is not None else "JOIN nodes qn ON qn.id = q.nid ")
        owner = ("" if scope.user_id is not None else "f.user_id = qn.user_id AND ")
        parts = [
            f"SELECT {FACT_COLS}, {d} AS dir, q.ord FROM unnest(%s::text[]) WITH ORDINALITY AS q(nid, ord) "
            f"{nodes}CROSS JOIN LATERAL ("
            f"SELECT f.* FROM facts f WHERE {owner}f.{column} = q.nid AND {where} AND {wsql} "
            f"ORDER BY f.pinned DESC, f.updated_at DESC LIMIT %s) f {JOIN_NODES}"
            for d, column in enumerate(("subject_id", "object_id"))]
        rows = self._q(" UNION ALL ".join(parts), (ids, *params, *wparams, per_node) * 2)
        # outgoing first, then incoming; per node in the order given; pinned first, newest first
        rows.sort(key=lambda r: (r[-2], r[-1], not r[11], -r[19].timestamp()))
        for r in rows:
            if r[0] not in out:
                out[r[0]] = row_to_fact(r)
        return list(out.values())
