"""Retrieval in the PostgreSQL store: which nodes are live, and the capped neighbourhood of
nodes that graph expansion walks (one lateral query per direction for every node at once).
Text search (a tsvector of the same terms FTS5 indexes, ``text.py``) is ``store.queries``'
over the statements in ``rows.SEARCH``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trulymem.model import Fact, Scope
from trulymem.store.base import CURRENT, When
from trulymem.store.postgres.connection import PostgresBase
from trulymem.store.postgres.rows import (
    FACT_COLS,
    FACT_COLS_NAMED,
    JOIN_NODES,
    chunks,
    row_to_fact,
    scope_sql,
    when_sql,
)

_FIRST_STEP, _LAST_STEP = 4096, 65_536  # facts one step of a common-word walk reads at most: x4 per step
# A step of a common-word walk over one user's facts: the next ``window`` of them in storage order,
# newest first, read as a keyset on (user_id, seq) — an order only facts_user_seq gives without
# sorting the table, so no estimate of the word's matches can send the walk through facts_seq and
# every other user's facts; rows stream in that order, so a step stops once it has enough.
_KEYSET = "FROM facts f WHERE (f.user_id, f.seq) < (%s, %s) ORDER BY f.user_id DESC, f.seq DESC"
_WALK = (f"SELECT {{cols}} FROM (SELECT * {_KEYSET} LIMIT %s) f WHERE f.tsv @@ %s::tsquery AND {{where}} "
         "AND {when} ORDER BY f.user_id DESC, f.seq DESC LIMIT %s")
_EDGE = f"SELECT f.user_id, f.seq {_KEYSET} OFFSET %s LIMIT 1"  # a full step's last fact


class SearchMixin(PostgresBase):
    """Retrieval: ``live_nodes`` and ``neighbors`` (text search is ``store.queries``')."""

    def _walk_common(self, scope: Scope, match: str, where: str, when: str, params: list[Any],
                     limit: int) -> list[tuple[Any, ...]]:
        """Walk back through the scope's user's facts only, a growing window at a time, until
        ``limit`` match or the user's oldest fact is passed (the same facts, newest first, as
        the global walk and the collecting search); across users, the global walk."""
        if scope.user_id is None:
            return super()._walk_common(scope, match, where, when, params, limit)
        sql = _WALK.format(cols=FACT_COLS_NAMED, where=where, when=when)
        hits: list[tuple[Any, ...]] = []
        top, window = 2**63 - 1, max(_FIRST_STEP, 4 * limit)  # seq is a bigint
        while True:
            hits += self._q(sql, (scope.user_id, top, window, match, *params, limit - len(hits)))
            if len(hits) >= limit:
                return hits
            edge = self._q(_EDGE, (scope.user_id, top, window - 1))
            if not edge or edge[0][0] != scope.user_id:
                return hits  # the step reached the table's start, or past the user's oldest fact
            top, window = edge[0][1], min(4 * window, _LAST_STEP)

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
