"""Retrieval in the SQLite store: full-text search over nodes and facts (FTS5, bm25)
and the capped neighbourhood of nodes that graph expansion walks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta

from trulymem.model import Fact, Scope, as_utc
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
from trulymem.text import fts_match

Phrase = tuple[str, ...]
_OWN_WEIGHT = 2.0  # a node's own text counts twice its context (LoCoMo: best recall@1 and @10 together)
_COMMON = 1000  # a search phrase matching more rows than this is not ranked (see _split_common)


class SearchMixin(SQLiteBase):
    """Retrieval: ``search_nodes``, ``search_facts``, ``live_nodes`` and ``neighbors``."""

    def _split_common(self, table: str, phrase_list: Sequence[Phrase]) -> tuple[list[Phrase], list[Phrase]]:
        """Separate phrases matching more than ``_COMMON`` rows: ranking every hit of
        a word that is everywhere ("entity", "user") costs more than it tells."""
        rare: list[Phrase] = []
        common: list[Phrase] = []
        for p in list(phrase_list)[:16]:
            n = self._q(f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)",
                        (fts_match([p]), _COMMON + 1))[0][0]
            (common if n > _COMMON else rare).append(p)
        return rare, common

    def search_nodes(self, scope: Scope, phrases: Sequence[tuple[str, ...]], limit: int, *,
                     during: tuple[datetime, datetime] | None = None) -> list[tuple[str, float]]:
        where, params = scope_sql(scope, "n")
        if during is not None:
            # Event times are ISO strings in UTC: compare at whole seconds, end exclusive.
            start, end = (as_utc(t).replace(microsecond=0) for t in during)
            where += " AND json_extract(n.metadata, '$.time') >= ? AND json_extract(n.metadata, '$.time') < ?"
            params = [*params, start.isoformat(), (end + timedelta(seconds=1)).isoformat()]
            match = fts_match(list(phrases))
            if match is None:
                return []
            rows = self._q(
                f"SELECT n.id, -bm25(nodes_fts, {_OWN_WEIGHT}, 1.0) AS score FROM nodes_fts "
                f"JOIN nodes n ON n.rid = nodes_fts.rowid WHERE nodes_fts MATCH ? AND {where} "
                "ORDER BY score DESC LIMIT ?",
                (match, *params, limit),
            )
            return [(r[0], float(r[1])) for r in rows]
        rare, common = self._split_common("nodes_fts", phrases)
        if rare:
            # FTS5 rank is bm25 negated: more negative is better.
            rows = self._q(
                f"SELECT n.id, -bm25(nodes_fts, {_OWN_WEIGHT}, 1.0) AS score FROM nodes_fts "
                f"JOIN nodes n ON n.rid = nodes_fts.rowid WHERE nodes_fts MATCH ? AND {where} "
                "ORDER BY score DESC LIMIT ?",
                (fts_match(rare), *params, limit),
            )
            return [(r[0], float(r[1])) for r in rows]
        if not common:
            return []
        rows = self._q(  # only common words: newest matches, a low flat score
            f"SELECT n.id FROM nodes_fts JOIN nodes n ON n.rid = nodes_fts.rowid "
            f"WHERE nodes_fts MATCH ? AND {where} ORDER BY nodes_fts.rowid DESC LIMIT ?",
            (fts_match(common), *params, limit),
        )
        return [(r[0], 0.1) for r in rows]

    def search_facts(self, scope: Scope, phrases: Sequence[tuple[str, ...]], limit: int, *,
                     when: When = CURRENT) -> list[Fact]:
        match = fts_match(list(phrases))
        if match is None:
            return []
        where, params = scope_sql(scope, "f")
        vsql, vparams = when_sql(when)
        # Walk the index newest-first instead of ranking every hit: relation words are common.
        rows = self._q(
            f"SELECT {FACT_COLS} FROM facts_fts JOIN facts f ON f.rid = facts_fts.rowid "
            f"{JOIN_NODES} "
            f"WHERE facts_fts MATCH ? AND {where} AND {vsql} ORDER BY facts_fts.rowid DESC LIMIT ?",
            (match, *params, *vparams, limit),
        )
        return [row_to_fact(r) for r in rows]

    def live_nodes(self, node_ids: Sequence[str], when: When = CURRENT) -> set[str]:
        rids = self._rids(node_ids)
        wsql, wparams = when_sql(When(when.validity, when.as_of))
        live: set[str] = set()
        for chunk in chunks(list(rids.values())):
            live.update(r[0] for r in self._q(
                f"SELECT n.id FROM nodes n WHERE n.rid IN ({marks(len(chunk))}) "
                f"AND (EXISTS (SELECT 1 FROM facts f WHERE f.subject_rid = n.rid AND {wsql}) "
                f"OR EXISTS (SELECT 1 FROM facts f WHERE f.object_rid = n.rid AND {wsql}))",
                [*chunk, *wparams, *wparams]))
        return live

    def neighbors(
        self,
        scope: Scope,
        node_ids: Sequence[str],
        *,
        per_node: int,
        when: When = CURRENT,
    ) -> list[Fact]:
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
