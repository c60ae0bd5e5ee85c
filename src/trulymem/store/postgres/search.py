"""Retrieval in the PostgreSQL store: which nodes are live, and the capped neighbourhood of
nodes that graph expansion walks (one lateral query per direction for every node at once).
Text search (a tsvector of the same terms FTS5 indexes, ``text.py``) is ``store.queries``'
over the statements in ``rows.SEARCH``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from trulymem.model import Fact, Scope
from trulymem.store.base import CURRENT, When
from trulymem.store.postgres.connection import PostgresBase
from trulymem.store.postgres.rows import (
    FACT_COLS,
    FACT_COLS_NAMED,
    JOIN_NODES,
    SEARCH,
    chunks,
    row_to_fact,
    scope_sql,
    when_sql,
)
from trulymem.store.postgres.text import tsquery
from trulymem.store.queries import COMMON
from trulymem.store.sql import Phrase

_FIRST_STEP, _LAST_STEP = 4096, 65_536  # facts one step of a common-word walk reads at most: x4 per step
# A step of a common-word walk over one user's facts: the next ``window`` of them in storage order,
# newest first, read as a keyset on (user_id, seq) — an order only facts_user_seq gives without
# sorting the table, so no estimate of the word's matches can send the walk through facts_seq and
# every other user's facts; rows stream in that order, so a step stops once it has enough.
_KEYSET = "FROM facts f WHERE (f.user_id, f.seq) < (%s, %s) ORDER BY f.user_id DESC, f.seq DESC"
_WALK = (f"SELECT {{cols}} FROM (SELECT * {_KEYSET} LIMIT %s) f WHERE f.tsv @@ %s::tsquery AND {{where}} "
         "AND {when} ORDER BY f.user_id DESC, f.seq DESC LIMIT %s")
_EDGE = f"SELECT f.user_id, f.seq {_KEYSET} OFFSET %s LIMIT 1"  # a full step's last fact


# ``SQLReads.search_nodes``' two statements in one: each phrase's matching nodes counted up to a
# cap (over every user, as ``SEARCH.counts``), the phrases matching at most COMMON joined into one
# tsquery (the same text ``tsquery(rare)`` makes) and ranked as ``SEARCH.rank``. A head row (id
# NULL) says whether every phrase was common: those are ranked by ``SEARCH.newest``, a plan the
# planner picks for the word itself (walking nodes newest first for a word in thousands of them).
_COUNTED_RANK = (
    "WITH c AS MATERIALIZED (SELECT x.q, x.i, (SELECT count(*) FROM (SELECT 1 FROM nodes "
    "WHERE tsv @@ x.q::tsquery LIMIT %s) c) AS n FROM unnest(%s::text[]) WITH ORDINALITY AS x(q, i)), "
    "s AS MATERIALIZED (SELECT string_agg(q, ' | ' ORDER BY i) FILTER (WHERE n <= %s) AS rare FROM c) "
    "SELECT NULL::text, (SELECT CASE WHEN rare IS NULL THEN 1 ELSE 0 END FROM s)::real "
    "UNION ALL (SELECT n.id, greatest(ts_rank('{{0, 0, 0.5, 1.0}}', n.tsv, r.q), 1e-9) AS score "
    "FROM (SELECT rare::tsquery AS q FROM s WHERE rare IS NOT NULL) r, nodes n "
    "WHERE n.tsv @@ r.q AND {where} ORDER BY score DESC, n.seq LIMIT %s)")


class SearchMixin(PostgresBase):
    """Retrieval: ``live_nodes``, ``neighbors``, and node search in one statement where SQLite
    takes two (the rest of text search is ``store.queries``')."""

    def search_nodes(self, scope: Scope, phrases: Sequence[Phrase], limit: int, *,
                     during: tuple[datetime, datetime] | None = None) -> list[tuple[str, float]]:
        """As ``SQLReads.search_nodes`` (same nodes, same scores), the counts and the ranking in
        one round trip (two while every phrase is common)."""
        if during is not None:
            return super().search_nodes(scope, phrases, limit, during=during)
        todo = [q for p in list(phrases)[:16] if (q := tsquery([p])) is not None]
        if not todo:
            return []
        where, params = scope_sql(scope, "n")
        rows = self._q(_COUNTED_RANK.format(where=where), (COMMON + 1, todo, COMMON, *params, limit))
        if any(r[0] is None and r[1] for r in rows):  # every phrase common: the newest matches
            rows = self._q(SEARCH.newest.format(where=where), (" | ".join(todo), *params, limit))
            return [(r[0], 0.1) for r in rows]
        return [(r[0], float(r[1])) for r in rows if r[0] is not None]

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
