"""Retrieval in the PostgreSQL store: full-text search over nodes and facts (tsvector of
the same terms FTS5 indexes, ``text.py``) and the capped neighbourhood of nodes that graph
expansion walks (one lateral query per direction for every node at once)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from trulymem.model import Fact, Scope, as_utc
from trulymem.store.base import CURRENT, When
from trulymem.store.postgres.connection import PostgresBase
from trulymem.store.postgres.rows import FACT_COLS, JOIN_NODES, chunks, row_to_fact, scope_sql, when_sql
from trulymem.store.postgres.text import tsquery

Phrase = tuple[str, ...]
_COMMON = 1000  # a phrase matching more rows than this is not ranked (as the SQLite store)
# ts_rank weights {D, C, B, A}: a node's own text (A) counts twice its context (B), as bm25's column weights
_WEIGHTS = "'{0, 0, 0.5, 1.0}'"


class SearchMixin(PostgresBase):
    """Retrieval: ``search_nodes``, ``search_facts``, ``live_nodes`` and ``neighbors``."""

    def _split_common(self, table: str, phrase_list: Sequence[Phrase]) -> tuple[list[Phrase], list[Phrase]]:
        rare: list[Phrase] = []
        common: list[Phrase] = []
        for p in list(phrase_list)[:16]:
            q = tsquery([p])
            if q is None:
                continue
            n = self._q(f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE tsv @@ %s::tsquery LIMIT %s) c",
                        (q, _COMMON + 1))[0][0]
            (common if n > _COMMON else rare).append(p)
        return rare, common

    def _rank_nodes(self, where: str, params: list[object], query: str, limit: int) -> list[tuple[str, float]]:
        rows = self._q(
            f"SELECT n.id, greatest(ts_rank({_WEIGHTS}, n.tsv, q), 1e-9) AS score "
            f"FROM nodes n, CAST(%s AS tsquery) q WHERE n.tsv @@ q AND {where} ORDER BY score DESC, n.seq LIMIT %s",
            (query, *params, limit))
        return [(r[0], float(r[1])) for r in rows]

    def search_nodes(self, scope: Scope, phrases: Sequence[tuple[str, ...]], limit: int, *,
                     during: tuple[datetime, datetime] | None = None) -> list[tuple[str, float]]:
        where, params = scope_sql(scope, "n")
        if during is not None:
            start, end = (as_utc(t).replace(microsecond=0) for t in during)
            where += " AND (n.metadata::jsonb ->> 'time') >= %s AND (n.metadata::jsonb ->> 'time') < %s"
            params = [*params, start.isoformat(), (end + timedelta(seconds=1)).isoformat()]
            query = tsquery(list(phrases))
            return [] if query is None else self._rank_nodes(where, params, query, limit)
        rare, common = self._split_common("nodes", phrases)
        if rare:
            query = tsquery(rare)
            return [] if query is None else self._rank_nodes(where, params, query, limit)
        query = tsquery(common)
        if query is None:
            return []
        rows = self._q(  # only common words: newest matches, a low flat score
            f"SELECT n.id FROM nodes n WHERE n.tsv @@ %s::tsquery AND {where} ORDER BY n.seq DESC LIMIT %s",
            (query, *params, limit))
        return [(r[0], 0.1) for r in rows]

    def search_facts(self, scope: Scope, phrases: Sequence[tuple[str, ...]], limit: int, *,
                     when: When = CURRENT) -> list[Fact]:
        query = tsquery(list(phrases))
        if query is None:
            return []
        where, params = scope_sql(scope, "f")
        vsql, vparams = when_sql(when)
        # Matches first (the GIN index), newest of them after: walking the storage order backwards
        # and testing each row, the plan PostgreSQL prefers, reads every fact when a word is rare.
        rows = self._q(
            f"WITH m AS MATERIALIZED (SELECT f.user_id, f.id, f.seq FROM facts f "
            f"WHERE f.tsv @@ %s::tsquery AND {where} AND {vsql}), "
            "newest AS (SELECT * FROM m ORDER BY seq DESC LIMIT %s) "
            f"SELECT {FACT_COLS} FROM newest JOIN facts f ON f.user_id = newest.user_id AND f.id = newest.id "
            f"{JOIN_NODES} ORDER BY f.seq DESC",
            (query, *params, *vparams, limit))
        return [row_to_fact(r) for r in rows]

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

    def neighbors(
        self,
        scope: Scope,
        node_ids: Sequence[str],
        *,
        per_node: int,
        when: When = CURRENT,
    ) -> list[Fact]:
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
