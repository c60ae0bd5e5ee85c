"""Facts in the SQLite store: the query filter, listing and counting, and writes
(insert with their full-text rows, reinforce, invalidate, delete)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from trulymem.errors import Conflict, InvalidInput
from trulymem.model import Fact
from trulymem.store.base import FactQuery
from trulymem.store.sqlite.connection import SQLiteBase
from trulymem.store.sqlite.rows import (
    FACT_COLS,
    FACT_FROM,
    JOIN_NODES,
    Stamps,
    chunks,
    dump_json,
    fact_doc,
    like,
    marks,
    row_to_fact,
    scope_sql,
    ts,
    when_sql,
)
from trulymem.text import relation_key

_RIDS_OF = "SELECT rid FROM nodes WHERE id IN ({})"


class FactMixin(SQLiteBase):
    """Facts: ``facts``, ``count_facts``, ``list_facts``, ``active_facts_for`` and the writes."""

    def _fact_where(self, q: FactQuery) -> tuple[str, list[Any]] | None:
        where, params = scope_sql(q.scope, "f")
        if any(v is not None for v in (q.ids, q.subject_ids, q.object_ids, q.node_ids)):
            # Ids and endpoints are far more selective than the user: keep the planner on their indexes.
            where = where.replace("f.user_id", "+f.user_id")
        clauses = [where]
        for col, values in (
            ("f.id", q.ids),
            ("f.session_id", q.session_ids),
            ("f.relation_key", q.relation_keys),
            ("f.kind", [str(k) for k in q.kinds] if q.kinds is not None else None),
            ("f.type", q.types),
            ("f.superseded_by", q.superseded_by),
        ):
            if values is not None:
                if not values:
                    return None
                clauses.append(f"{col} IN ({marks(len(values))})")
                params.extend(values)
        for col, ids in (("f.subject_rid", q.subject_ids), ("f.object_rid", q.object_ids)):
            if ids is not None:
                if not ids:
                    return None
                clauses.append(f"{col} IN ({_RIDS_OF.format(marks(len(ids)))})")
                params.extend(ids)
        if q.node_ids is not None:
            if not q.node_ids:
                return None
            m = _RIDS_OF.format(marks(len(q.node_ids)))
            clauses.append(f"(f.subject_rid IN ({m}) OR f.object_rid IN ({m}))")
            params.extend(q.node_ids)
            params.extend(q.node_ids)
        if q.source is not None:
            clauses.append("f.source = ?")
            params.append(q.source)
        for col, text in (("s.key", q.subject_contains), ("f.relation_key", q.relation_contains), ("o.key", q.object_contains)):
            if text is not None:
                clauses.append(f"{col} LIKE ? ESCAPE '\\'")
                params.append(like(text))
        wsql, wparams = when_sql(q.when)
        clauses.append(wsql)
        params.extend(wparams)
        return " AND ".join(clauses), params

    def facts(self, query: FactQuery) -> list[Fact]:
        built = self._fact_where(query)
        if built is None:
            return []
        where, params = built
        order = "DESC" if query.newest_first else "ASC"
        sql = f"SELECT {FACT_COLS} FROM {FACT_FROM} WHERE {where} ORDER BY f.created_at {order}, f.rid {order}"
        if query.limit is not None:
            sql += " LIMIT ?"
            params.append(query.limit)
        return [row_to_fact(r) for r in self._q(sql, params)]

    def count_facts(self, query: FactQuery) -> int:
        built = self._fact_where(query)
        if built is None:
            return 0
        where, params = built
        return int(self._q(f"SELECT count(*) FROM {FACT_FROM} WHERE {where}", params)[0][0])

    def active_facts_for(self, triples: Sequence[tuple[str, str, str]]) -> dict[tuple[str, str, str], Fact]:
        out: dict[tuple[str, str, str], Fact] = {}
        rids = self._rids([n for t in triples for n in (t[0], t[2])])
        unique = [(rids[s], r, rids[o]) for s, r, o in dict.fromkeys(triples) if s in rids and o in rids]
        for chunk in chunks(unique, 300):
            # The triples come as one JSON array read by json_each, not a VALUES list: once
            # PRAGMA optimize has written statistics, SQLite plans a VALUES join with a Bloom
            # filter that scans every fact per chunk (31.8 ms per chunk at 120k facts, a reopened
            # 1M database committing 1.1k facts/s); a table-valued function has no statistics, so
            # each triple stays one lookup in the partial unique index, fresh or reopened.
            rows = self._q(
                f"SELECT {FACT_COLS}, f.relation_key FROM json_each(?) v "
                f"JOIN facts f ON f.subject_rid = json_extract(v.value, '$[0]') "
                f"AND f.relation_key = json_extract(v.value, '$[1]') "
                f"AND f.object_rid = json_extract(v.value, '$[2]') AND f.invalid_at IS NULL {JOIN_NODES}",
                (json.dumps(chunk, ensure_ascii=False),),
            )
            for r in rows:
                out[(r[5], r[25], r[7])] = row_to_fact(r)
        return out

    def insert_facts(self, facts: Sequence[Fact]) -> None:
        # Explicit rowids (we hold the write lock) let the FTS rows be written in one batch.
        base = self._q("SELECT coalesce(max(rid), 0) FROM facts")[0][0]
        rids = self._rids([n for f in facts for n in (f.subject_id, f.object_id)])
        missing = next((n for f in facts for n in (f.subject_id, f.object_id) if n not in rids), None)
        if missing is not None:
            raise Conflict(f"node {missing} does not exist", field="node_id")
        stamp = Stamps()
        rows = []
        for i, f in enumerate(facts):
            rows.append((
                base + i + 1, f.id, f.user_id, f.agent_id or "", f.app_id or "", f.session_id or "",
                rids[f.subject_id], f.relation, relation_key(f.relation), rids[f.object_id], f.kind.value, f.confidence,
                int(f.speculation), int(f.pinned), f.type, f.source, dump_json(f.metadata), f.turn_id,
                dump_json(f.message_ids), f.mention_count, stamp(f.created_at), stamp(f.updated_at),
                stamp(f.valid_at), stamp(f.invalid_at) if f.invalid_at else None, f.superseded_by,
            ))
        self._many(
            "INSERT INTO facts(rid, id, user_id, agent_id, app_id, session_id, subject_rid, relation, relation_key, "
            "object_rid, kind, confidence, speculation, pinned, type, source, metadata, turn_id, message_ids, "
            "mention_count, created_at, updated_at, valid_at, invalid_at, superseded_by) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        self._many(
            "INSERT INTO facts_fts(rowid, doc) VALUES (?, ?)",
            [(base + i + 1, fact_doc(f.relation, f.type, f.kind.value)) for i, f in enumerate(facts)],
        )

    def reinforce_facts(self, updates: Sequence[Fact]) -> None:
        self._many(
            "UPDATE facts SET mention_count = ?, updated_at = ?, confidence = ?, speculation = ?, pinned = ?, "
            "metadata = ?, type = ?, kind = ? WHERE id = ?",
            [
                (f.mention_count, ts(f.updated_at), f.confidence, int(f.speculation), int(f.pinned),
                 dump_json(f.metadata), f.type, f.kind.value, f.id)
                for f in updates
            ],
        )

    def invalidate_facts(self, ids: Sequence[str], at: datetime, superseded_by: str | None = None) -> None:
        self._many(
            "UPDATE facts SET invalid_at = COALESCE(invalid_at, ?), superseded_by = COALESCE(?, superseded_by) "
            "WHERE id = ?",
            [(ts(at), superseded_by, i) for i in ids],
        )

    def supersede_facts(self, pairs: Sequence[tuple[str, str]], at: datetime) -> None:
        self._many("UPDATE facts SET invalid_at = COALESCE(invalid_at, ?), superseded_by = ? WHERE id = ?",
                   [(ts(at), successor, i) for i, successor in pairs])

    def delete_facts(self, ids: Sequence[str]) -> None:
        for chunk in chunks(list(ids)):
            rids = self._q(f"SELECT rid FROM facts WHERE id IN ({marks(len(chunk))})", chunk)
            self._many("DELETE FROM facts_fts WHERE rowid = ?", rids)
            self._many("DELETE FROM facts WHERE rid = ?", rids)

    def list_facts(self, query: FactQuery, after: str | None, limit: int) -> tuple[list[Fact], str | None]:
        built = self._fact_where(query)
        if built is None:
            return [], None
        where, params = built
        if after is not None:
            if not after.isdigit():
                raise InvalidInput("is not a cursor this listing returned", field="cursor")
            where += " AND f.rid > ?"
            params.append(int(after))
        rows = self._q(f"SELECT {FACT_COLS}, f.rid FROM {FACT_FROM} WHERE {where} ORDER BY f.rid LIMIT ?",
                       [*params, limit + 1])
        more = len(rows) > limit
        rows = rows[:limit]
        return [row_to_fact(r) for r in rows], (str(rows[-1][-1]) if more and rows else None)
