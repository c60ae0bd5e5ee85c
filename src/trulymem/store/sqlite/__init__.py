"""The embedded default store: one SQLite file (or ``:memory:``), standard library only."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from trulymem.errors import Conflict, InvalidInput, StoreError
from trulymem.model import EdgeKind, Fact, Node, NodeType, Scope, as_utc, from_json, new_id, to_json
from trulymem.store.base import (
    CURRENT,
    Change,
    FactQuery,
    NodeQuery,
    NodeSpec,
    Run,
    Stats,
    Store,
    When,
)
from trulymem.store.schema import migrate
from trulymem.store.sqlite.vectors import VectorMixin
from trulymem.text import fts_document, fts_match, relation_key

Phrase = tuple[str, ...]
_OWN_WEIGHT = 2.0  # a node's own text counts twice its context (LoCoMo: best recall@1 and @10 together)
_COMMON = 1000  # a search phrase matching more rows than this is not ranked (see _split_common)
_CHUNK = 500  # stays below SQLite's bound-parameter limit with room for scope params

_FACT_COLS = (
    "f.id, f.user_id, f.agent_id, f.app_id, f.session_id, s.id, f.relation, o.id, "
    "f.kind, f.confidence, f.speculation, f.pinned, f.type, f.source, f.metadata, f.turn_id, "
    "f.message_ids, f.mention_count, f.created_at, f.updated_at, f.valid_at, f.invalid_at, "
    "f.superseded_by, s.name, o.name"
)
_JOIN_NODES = "JOIN nodes s ON s.rid = f.subject_rid JOIN nodes o ON o.rid = f.object_rid"
_FACT_FROM = f"facts f {_JOIN_NODES}"
_RIDS_OF = "SELECT rid FROM nodes WHERE id IN ({})"
_NAMES = {"subject", "object"}  # display names: derived from nodes, not exported
_NODE_COLS = "id, user_id, agent_id, app_id, name, key, type, summary, metadata, created_at, updated_at"


def ts(value: datetime) -> str:
    return value.isoformat(timespec="microseconds")


def _load(text: str) -> Any:
    # Most rows carry empty metadata: skip the JSON parser for them.
    if text == "{}":
        return {}
    if text == "[]":
        return []
    return json.loads(text)


def _json(value: dict[str, Any] | list[Any]) -> str:
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class _Stamps:
    """``ts`` with a memo: a batch shares a handful of timestamps."""

    def __init__(self) -> None:
        self._seen: dict[datetime, str] = {}

    def __call__(self, value: datetime) -> str:
        out = self._seen.get(value)
        if out is None:
            out = self._seen[value] = ts(value)
        return out


_dt = datetime.fromisoformat


def _dt_opt(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _opt(value: str) -> str | None:
    return value or None


def _chunks(seq: Sequence[Any], size: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


def _marks(n: int) -> str:
    return ",".join("?" * n)


@lru_cache(maxsize=8_192)
def _fact_doc(relation: str, type_: str | None, kind: str) -> str:
    return fts_document(relation, type_ or "", kind if kind != EdgeKind.FACT else "")


def _row_to_fact(r: tuple[Any, ...]) -> Fact:
    # Rows come from our own schema: skip validation, parse what needs parsing.
    return Fact(
        id=r[0], user_id=r[1], agent_id=_opt(r[2]), app_id=_opt(r[3]), session_id=_opt(r[4]),
        subject_id=r[5], relation=r[6], object_id=r[7], kind=EdgeKind(r[8]), confidence=r[9],
        speculation=bool(r[10]), pinned=bool(r[11]), type=r[12], source=r[13],
        metadata=_load(r[14]), turn_id=r[15], message_ids=_load(r[16]),
        mention_count=r[17], created_at=_dt(r[18]), updated_at=_dt(r[19]), valid_at=_dt(r[20]),
        invalid_at=_dt_opt(r[21]), superseded_by=r[22], subject=r[23], object=r[24],
    )


def _row_to_node(r: tuple[Any, ...]) -> Node:
    return Node(
        id=r[0], user_id=r[1], agent_id=_opt(r[2]), app_id=_opt(r[3]), name=r[4], key=r[5],
        type=r[6], summary=r[7], metadata=_load(r[8]), created_at=_dt(r[9]), updated_at=_dt(r[10]),
    )


def _scope_sql(scope: Scope, alias: str) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for name in ("user_id", "agent_id", "app_id"):
        value = getattr(scope, name)
        if value is None and scope.exact and name != "user_id":
            value = ""  # the shared namespace is stored as ''
        if value is not None:
            clauses.append(f"{alias}.{name} = ?")
            params.append(value)
    return (" AND ".join(clauses) or "1"), params


def _when_sql(when: When) -> tuple[str, list[Any]]:
    """SQL for ``When`` over facts aliased ``f``."""
    clauses: list[str] = []
    params: list[Any] = []
    if when.as_of is not None:
        t = ts(when.as_of)
        clauses.append("f.created_at <= ?")  # nothing recorded later
        params.append(t)
        if when.validity != "all":
            clauses.append("f.valid_at <= ? AND (f.invalid_at IS NULL OR f.invalid_at > ?)")
            params += [t, t]
    elif when.validity == "current":
        clauses.append("f.invalid_at IS NULL")
    elif when.validity == "invalid":
        clauses.append("f.invalid_at IS NOT NULL")
    if when.valid_from is not None:
        clauses.append("f.valid_at >= ?")
        params.append(ts(when.valid_from))
    if when.valid_to is not None:
        clauses.append("f.valid_at <= ?")
        params.append(ts(when.valid_to))
    return " AND ".join(clauses) or "1", params


def _retry_locked(step: Callable[[], object], timeout_ms: int) -> None:
    """Switching to WAL needs a moment alone with a brand-new file; the busy handler
    does not cover it, so retry while another process is creating the same database."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


class SQLiteStore(VectorMixin, Store):
    """Graph store in one SQLite file: WAL, busy timeout, foreign keys, migrations."""

    def __init__(self, path: str | Path = ":memory:", *, busy_timeout_ms: int = 5000) -> None:
        self.path = str(path) if str(path) == ":memory:" else str(Path(path).expanduser())
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
            )
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            # Random-id indexes touch pages all over the file: a bigger page cache pays for itself.
            self._conn.execute("PRAGMA cache_size = -65536")
            # Checkpoint every ~40 MB of WAL instead of 4 MB: index pages rewritten by
            # consecutive batches are copied back once (≈10% faster bulk commits).
            self._conn.execute("PRAGMA wal_autocheckpoint = 10000")
            if self.path != ":memory:":
                _retry_locked(lambda: self._conn.execute("PRAGMA journal_mode = WAL"), busy_timeout_ms)
                self._conn.execute("PRAGMA synchronous = NORMAL")
            migrate(self._conn)
        except (sqlite3.DatabaseError, OSError) as exc:
            raise StoreError(f"cannot open database {self.path!r}: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0
        # node id -> rowid for nodes touched in the current transaction (dropped when it ends,
        # so a rolled-back insert can never leave a stale mapping behind)
        self._tx_rids: dict[str, int] = {}
        self._tx_dirty: set[int] = set()  # rowids of nodes to (re)embed, see dirty_nodes
        self._vector_state()

    # --- transactions -------------------------------------------------------
    @contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[None]:
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._tx_rids.clear()
            self._tx_dirty.clear()
            try:
                self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.OperationalError as exc:
                raise StoreError(f"cannot start a transaction: {exc}") from exc
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._tx_rids.clear()
                self._tx_dirty.clear()
                self._conn.execute("ROLLBACK")
                raise
            self._depth = 0
            self._tx_rids.clear()
            self._tx_dirty.clear()
            try:
                self._conn.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self._conn.execute("ROLLBACK")
                raise StoreError(f"commit failed: {exc}") from exc

    def close(self) -> None:
        try:
            self._conn.execute("PRAGMA optimize")  # refresh planner statistics where they are stale
        except sqlite3.DatabaseError:
            pass  # closing must not fail because the statistics could not be refreshed
        self._conn.close()

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            rows: list[tuple[Any, ...]] = self._conn.execute(sql, params).fetchall()
            return rows
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"database constraint failed: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(str(exc)) from exc

    def _many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            self._conn.executemany(sql, rows)
        except sqlite3.IntegrityError as exc:
            raise Conflict(f"database constraint failed: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(str(exc)) from exc

    # --- users --------------------------------------------------------------
    def ensure_user(self, user_id: str, now: datetime) -> None:
        self._q("INSERT OR IGNORE INTO users(user_id, created_at) VALUES (?, ?)", (user_id, ts(now)))

    def user_exists(self, user_id: str) -> bool:
        return bool(self._q("SELECT 1 FROM users WHERE user_id = ?", (user_id,)))

    # --- nodes --------------------------------------------------------------
    def resolve_nodes(self, scope: Scope, specs: Sequence[NodeSpec], now: datetime) -> dict[str, str]:
        ns = (scope.user_id, scope.agent_id or "", scope.app_id or "")
        wanted: dict[str, NodeSpec] = {}
        for spec in specs:
            prev = wanted.get(spec.key)
            if prev is None or (prev.type == NodeType.ENTITY and spec.type != NodeType.ENTITY):
                wanted[spec.key] = spec
        found: dict[str, str] = {}
        upgrades: list[tuple[str, str, str]] = []
        keys = list(wanted)
        t = ts(now)
        for chunk in _chunks(keys):
            for key, nid, type_, rid in self._q(
                f"SELECT key, id, type, rid FROM nodes WHERE user_id = ? AND agent_id = ? AND app_id = ? "
                f"AND key IN ({_marks(len(chunk))})",
                (*ns, *chunk),
            ):
                found[key] = nid
                self._tx_rids[nid] = rid
                if type_ == NodeType.ENTITY and wanted[key].type != NodeType.ENTITY:
                    upgrades.append((wanted[key].type, t, nid))
        if upgrades:
            self._many("UPDATE nodes SET type = ?, updated_at = ? WHERE id = ?", upgrades)
        missing = [wanted[k] for k in keys if k not in found]
        if missing:
            base = self._q("SELECT coalesce(max(rid), 0) FROM nodes")[0][0]
            ids = [new_id() for _ in missing]
            self._many(
                "INSERT INTO nodes(rid, id, user_id, agent_id, app_id, name, key, type, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(base + i + 1, nid, *ns, sp.name, sp.key, sp.type, t, t) for i, (nid, sp) in enumerate(zip(ids, missing))],
            )
            self._many(
                "INSERT INTO nodes_fts(rowid, doc, ctx) VALUES (?, ?, '')",
                [(base + i + 1, fts_document(sp.name)) for i, sp in enumerate(missing)],
            )
            found.update((sp.key, nid) for nid, sp in zip(ids, missing))
            self._tx_rids.update((nid, base + i + 1) for i, nid in enumerate(ids))
            self._tx_dirty.update(range(base + 1, base + len(ids) + 1))
        return found

    def _index_nodes(self, ids: Sequence[str]) -> None:
        for chunk in _chunks(ids):
            # metadata.context (e.g. an episode's neighbouring messages) is searchable too
            rows = self._q(f"SELECT rid, name, summary, json_extract(metadata, '$.context') FROM nodes "
                           f"WHERE id IN ({_marks(len(chunk))})", chunk)
            self._many("DELETE FROM nodes_fts WHERE rowid = ?", [(r[0],) for r in rows])
            self._many(
                "INSERT INTO nodes_fts(rowid, doc, ctx) VALUES (?, ?, ?)",
                [(r[0], fts_document(r[1], r[2] or ""), fts_document(r[3] if isinstance(r[3], str) else ""))
                 for r in rows],
            )

    def update_node(self, node_id: str, now: datetime, *, summary: str | None = None,
                    metadata: dict[str, Any] | None = None) -> None:
        self._q("UPDATE nodes SET summary = ?, updated_at = ?, metadata = COALESCE(?, metadata) WHERE id = ?",
                (summary, ts(now), None if metadata is None else _json(metadata), node_id))
        self._index_nodes([node_id])
        self._tx_dirty.update(self._rids([node_id]).values())

    def dirty_nodes(self) -> list[Node]:
        rids, self._tx_dirty = sorted(self._tx_dirty), set()
        out: list[Node] = []
        for chunk in _chunks(rids):
            out += [_row_to_node(r) for r in self._q(
                f"SELECT {_NODE_COLS} FROM nodes WHERE rid IN ({_marks(len(chunk))}) ORDER BY rid", chunk)]
        return out

    def nodes(self, query: NodeQuery) -> list[Node]:
        where, params = _scope_sql(query.scope, "n")
        if query.ids is not None:
            where = where.replace("n.user_id", "+n.user_id")  # look up by id, then check the user
        clauses = [where]
        for col, values in (("id", query.ids), ("key", query.keys), ("type", query.types)):
            if values is not None:
                if not values:
                    return []
                clauses.append(f"n.{col} IN ({_marks(len(values))})")
                params.extend(values)
        if query.created_before is not None:
            clauses.append("n.created_at <= ?")
            params.append(ts(query.created_before))
        order = "DESC" if query.newest_first else "ASC"
        sql = f"SELECT {_NODE_COLS} FROM nodes n WHERE {' AND '.join(clauses)} ORDER BY n.created_at {order}, n.rid {order}"
        if query.limit is not None:
            sql += " LIMIT ?"
            params.append(query.limit)
        return [_row_to_node(r) for r in self._q(sql, params)]

    def fact_counts(self, node_ids: Sequence[str]) -> dict[str, int]:
        rids = self._rids(node_ids)
        by_rid = {rid: nid for nid, rid in rids.items()}
        counts: dict[str, int] = {}
        for chunk in _chunks(list(by_rid)):
            m = _marks(len(chunk))
            for rid, n in self._q(
                f"SELECT rid, count(*) FROM (SELECT subject_rid AS rid FROM facts WHERE subject_rid IN ({m}) "
                f"UNION ALL SELECT object_rid FROM facts WHERE object_rid IN ({m}) AND object_rid != subject_rid) "
                "GROUP BY rid",
                [*chunk, *chunk],
            ):
                counts[by_rid[rid]] = n
        return counts

    def delete_orphan_nodes(self, node_ids: Sequence[str]) -> list[str]:
        deleted: list[str] = []
        for chunk in _chunks(list(dict.fromkeys(node_ids))):
            rows = self._q(
                f"SELECT rid, id FROM nodes n WHERE id IN ({_marks(len(chunk))}) "
                "AND NOT EXISTS (SELECT 1 FROM facts WHERE subject_rid = n.rid) "
                "AND NOT EXISTS (SELECT 1 FROM facts WHERE object_rid = n.rid)",
                chunk,
            )
            self._many("DELETE FROM nodes_fts WHERE rowid = ?", [(r[0],) for r in rows])
            self._many("DELETE FROM nodes WHERE rid = ?", [(r[0],) for r in rows])
            for r in rows:
                self._tx_rids.pop(r[1], None)
            deleted.extend(r[1] for r in rows)
        return deleted

    # --- facts --------------------------------------------------------------
    def _fact_where(self, q: FactQuery) -> tuple[str, list[Any]] | None:
        where, params = _scope_sql(q.scope, "f")
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
                clauses.append(f"{col} IN ({_marks(len(values))})")
                params.extend(values)
        for col, ids in (("f.subject_rid", q.subject_ids), ("f.object_rid", q.object_ids)):
            if ids is not None:
                if not ids:
                    return None
                clauses.append(f"{col} IN ({_RIDS_OF.format(_marks(len(ids)))})")
                params.extend(ids)
        if q.node_ids is not None:
            if not q.node_ids:
                return None
            m = _RIDS_OF.format(_marks(len(q.node_ids)))
            clauses.append(f"(f.subject_rid IN ({m}) OR f.object_rid IN ({m}))")
            params.extend(q.node_ids)
            params.extend(q.node_ids)
        if q.source is not None:
            clauses.append("f.source = ?")
            params.append(q.source)
        for col, text in (("s.key", q.subject_contains), ("f.relation_key", q.relation_contains), ("o.key", q.object_contains)):
            if text is not None:
                clauses.append(f"{col} LIKE ? ESCAPE '\\'")
                params.append(_like(text))
        wsql, wparams = _when_sql(q.when)
        clauses.append(wsql)
        params.extend(wparams)
        return " AND ".join(clauses), params

    def facts(self, query: FactQuery) -> list[Fact]:
        built = self._fact_where(query)
        if built is None:
            return []
        where, params = built
        order = "DESC" if query.newest_first else "ASC"
        sql = f"SELECT {_FACT_COLS} FROM {_FACT_FROM} WHERE {where} ORDER BY f.created_at {order}, f.rid {order}"
        if query.limit is not None:
            sql += " LIMIT ?"
            params.append(query.limit)
        return [_row_to_fact(r) for r in self._q(sql, params)]

    def count_facts(self, query: FactQuery) -> int:
        built = self._fact_where(query)
        if built is None:
            return 0
        where, params = built
        return int(self._q(f"SELECT count(*) FROM {_FACT_FROM} WHERE {where}", params)[0][0])

    def _rids(self, ids: Sequence[str]) -> dict[str, int]:
        known = self._tx_rids
        out = {i: known[i] for i in ids if i in known}
        for chunk in _chunks(list(set(ids) - out.keys())):
            out.update(self._q(f"SELECT id, rid FROM nodes WHERE id IN ({_marks(len(chunk))})", chunk))
        return out

    def active_facts_for(self, triples: Sequence[tuple[str, str, str]]) -> dict[tuple[str, str, str], Fact]:
        out: dict[tuple[str, str, str], Fact] = {}
        rids = self._rids([n for t in triples for n in (t[0], t[2])])
        unique = [(rids[s], r, rids[o]) for s, r, o in dict.fromkeys(triples) if s in rids and o in rids]
        for chunk in _chunks(unique, 300):
            # Join on the exact triples so the partial unique index answers each one.
            values = ",".join("(?,?,?)" for _ in chunk)
            rows = self._q(
                f"WITH v(s, r, o) AS (VALUES {values}) SELECT {_FACT_COLS}, f.relation_key FROM v "
                f"JOIN facts f ON f.subject_rid = v.s AND f.relation_key = v.r AND f.object_rid = v.o "
                f"AND f.invalid_at IS NULL {_JOIN_NODES}",
                [x for t in chunk for x in t],
            )
            for r in rows:
                out[(r[5], r[25], r[7])] = _row_to_fact(r)
        return out

    def insert_facts(self, facts: Sequence[Fact]) -> None:
        # Explicit rowids (we hold the write lock) let the FTS rows be written in one batch.
        base = self._q("SELECT coalesce(max(rid), 0) FROM facts")[0][0]
        rids = self._rids([n for f in facts for n in (f.subject_id, f.object_id)])
        missing = next((n for f in facts for n in (f.subject_id, f.object_id) if n not in rids), None)
        if missing is not None:
            raise Conflict(f"node {missing} does not exist", field="node_id")
        stamp = _Stamps()
        rows = []
        for i, f in enumerate(facts):
            rows.append((
                base + i + 1, f.id, f.user_id, f.agent_id or "", f.app_id or "", f.session_id or "",
                rids[f.subject_id], f.relation, relation_key(f.relation), rids[f.object_id], f.kind.value, f.confidence,
                int(f.speculation), int(f.pinned), f.type, f.source, _json(f.metadata), f.turn_id,
                _json(f.message_ids), f.mention_count, stamp(f.created_at), stamp(f.updated_at),
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
            [(base + i + 1, _fact_doc(f.relation, f.type, f.kind.value)) for i, f in enumerate(facts)],
        )

    def reinforce_facts(self, updates: Sequence[Fact]) -> None:
        self._many(
            "UPDATE facts SET mention_count = ?, updated_at = ?, confidence = ?, speculation = ?, pinned = ?, "
            "metadata = ?, type = ?, kind = ? WHERE id = ?",
            [
                (f.mention_count, ts(f.updated_at), f.confidence, int(f.speculation), int(f.pinned),
                 _json(f.metadata), f.type, f.kind.value, f.id)
                for f in updates
            ],
        )

    def invalidate_facts(self, ids: Sequence[str], at: datetime, superseded_by: str | None = None) -> None:
        self._many(
            "UPDATE facts SET invalid_at = COALESCE(invalid_at, ?), superseded_by = COALESCE(?, superseded_by) "
            "WHERE id = ?",
            [(ts(at), superseded_by, i) for i in ids],
        )

    def delete_facts(self, ids: Sequence[str]) -> None:
        for chunk in _chunks(list(ids)):
            rids = self._q(f"SELECT rid FROM facts WHERE id IN ({_marks(len(chunk))})", chunk)
            self._many("DELETE FROM facts_fts WHERE rowid = ?", rids)
            self._many("DELETE FROM facts WHERE rid = ?", rids)

    # --- retrieval ----------------------------------------------------------
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
        where, params = _scope_sql(scope, "n")
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
        where, params = _scope_sql(scope, "f")
        vsql, vparams = _when_sql(when)
        # Walk the index newest-first instead of ranking every hit: relation words are common.
        rows = self._q(
            f"SELECT {_FACT_COLS} FROM facts_fts JOIN facts f ON f.rid = facts_fts.rowid "
            f"{_JOIN_NODES} "
            f"WHERE facts_fts MATCH ? AND {where} AND {vsql} ORDER BY facts_fts.rowid DESC LIMIT ?",
            (match, *params, *vparams, limit),
        )
        return [_row_to_fact(r) for r in rows]

    def neighbors(
        self,
        scope: Scope,
        node_ids: Sequence[str],
        *,
        per_node: int,
        when: When = CURRENT,
    ) -> list[Fact]:
        where, params = _scope_sql(scope, "f")
        wsql, wparams = _when_sql(when)
        rids = self._rids(node_ids)
        # One small indexed query per node and direction: measured faster here than one
        # UNION ALL of capped subqueries (bench/bench_core.py, depth-2 p95 5.6 vs 6.5 ms).
        out: dict[str, Fact] = {}
        for column in ("subject_rid", "object_rid"):
            sql = (
                f"SELECT {_FACT_COLS} FROM {_FACT_FROM} WHERE f.{column} = ? AND {where} AND {wsql} "
                f"ORDER BY f.pinned DESC, f.updated_at DESC LIMIT ?"
            )
            for nid in node_ids:
                if nid in rids:
                    for r in self._q(sql, (rids[nid], *params, *wparams, per_node)):
                        if r[0] not in out:
                            out[r[0]] = _row_to_fact(r)
        return list(out.values())

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
        rows = self._q(f"SELECT {_FACT_COLS}, f.rid FROM {_FACT_FROM} WHERE {where} ORDER BY f.rid LIMIT ?",
                       [*params, limit + 1])
        more = len(rows) > limit
        rows = rows[:limit]
        return [_row_to_fact(r) for r in rows], (str(rows[-1][-1]) if more and rows else None)

    def restore_rows(self, rows: Sequence[dict[str, Any]]) -> None:
        stamp = _Stamps()
        nodes = [from_json(Node, {k: v for k, v in r.items() if k != "record"}) for r in rows if r["record"] == "node"]
        self._many(
            "UPDATE nodes SET name = ?, key = ?, type = ?, summary = ?, metadata = ?, created_at = ?, updated_at = ? "
            "WHERE id = ?",
            [(n.name, n.key, n.type, n.summary, _json(n.metadata), ts(n.created_at), ts(n.updated_at), n.id)
             for n in nodes],
        )
        self._index_nodes([n.id for n in nodes])
        self._tx_dirty.update(self._rids([n.id for n in nodes]).values())
        facts = [from_json(Fact, {k: v for k, v in r.items() if k != "record"}) for r in rows if r["record"] == "fact"]
        self._many(
            "UPDATE facts SET session_id = ?, relation = ?, relation_key = ?, kind = ?, confidence = ?, speculation = ?, "
            "pinned = ?, type = ?, source = ?, metadata = ?, turn_id = ?, message_ids = ?, mention_count = ?, "
            "created_at = ?, updated_at = ?, valid_at = ?, invalid_at = ?, superseded_by = ? WHERE id = ?",
            [(f.session_id or "", f.relation, relation_key(f.relation), f.kind.value, f.confidence, int(f.speculation),
              int(f.pinned), f.type, f.source, _json(f.metadata), f.turn_id, _json(f.message_ids), f.mention_count,
              stamp(f.created_at), stamp(f.updated_at), stamp(f.valid_at),
              stamp(f.invalid_at) if f.invalid_at else None, f.superseded_by, f.id) for f in facts],
        )
        self._many("UPDATE facts_fts SET doc = ? WHERE rowid = (SELECT rid FROM facts WHERE id = ?)",
                   [(_fact_doc(f.relation, f.type, f.kind.value), f.id) for f in facts])

    def settings(self, prefix: str) -> dict[str, str]:
        rows = self._q("SELECT key, value FROM settings WHERE key >= ? AND key < ? ORDER BY key",
                       (prefix, prefix + "\U0010ffff"))
        return {str(k): str(v) for k, v in rows}

    def put_setting(self, key: str, value: str | None) -> None:
        with self.transaction():
            if value is None:
                self._q("DELETE FROM settings WHERE key = ?", (key,))
            else:
                self._q("INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        (key, value))

    # --- journaled runs and locks ----------------------------------------------
    def save_run(self, run: Run, changes: Sequence[Change]) -> None:
        self._q("INSERT INTO runs(id, kind, user_id, agent_id, app_id, created_at, undone_at, summary) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (run.id, run.kind, run.user_id, run.agent_id or "", run.app_id or "", ts(run.created_at),
                 ts(run.undone_at) if run.undone_at else None, _json(run.summary)))
        self._many("INSERT INTO run_changes(run_id, seq, record, item_id, action, before, after) "
                   "VALUES (?,?,?,?,?,?,?)",
                   [(run.id, i, c.record, c.item_id, c.action, None if c.before is None else _json(c.before),
                     None if c.after is None else _json(c.after)) for i, c in enumerate(changes)])

    def runs(self, user_id: str, kind: str, limit: int = 20) -> list[Run]:
        rows = self._q("SELECT id, kind, user_id, agent_id, app_id, created_at, undone_at, summary FROM runs "
                       "WHERE user_id = ? AND kind = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                       (user_id, kind, limit))
        return [Run(id=r[0], kind=r[1], user_id=r[2], agent_id=_opt(r[3]), app_id=_opt(r[4]), created_at=_dt(r[5]),
                    undone_at=_dt(r[6]) if r[6] else None, summary=_load(r[7])) for r in rows]

    def run_changes(self, run_id: str) -> list[Change]:
        rows = self._q("SELECT record, item_id, action, before, after FROM run_changes WHERE run_id = ? ORDER BY seq",
                       (run_id,))
        return [Change(record=r[0], item_id=r[1], action=r[2], before=_load(r[3]) if r[3] else None,
                       after=_load(r[4]) if r[4] else None) for r in rows]

    def mark_run_undone(self, run_id: str, at: datetime) -> None:
        self._q("UPDATE runs SET undone_at = ? WHERE id = ?", (ts(at), run_id))

    def try_lock(self, name: str, owner: str, now: datetime, ttl_s: float) -> str | None:
        with self.transaction():
            row = self._q("SELECT owner, expires_at FROM locks WHERE name = ?", (name,))
            if row and row[0][0] != owner and row[0][1] > ts(now):
                return str(row[0][0])
            self._q("INSERT OR REPLACE INTO locks(name, owner, acquired_at, expires_at) VALUES (?, ?, ?, ?)",
                    (name, owner, ts(now), ts(now + timedelta(seconds=ttl_s))))
            return None

    def unlock(self, name: str, owner: str) -> None:
        with self.transaction():
            self._q("DELETE FROM locks WHERE name = ? AND owner = ?", (name, owner))

    # --- bookkeeping --------------------------------------------------------
    def stats(self, scope: Scope) -> Stats:
        st = Stats()
        nwhere, nparams = _scope_sql(scope, "n")
        for t, c in self._q(f"SELECT type, count(*) FROM nodes n WHERE {nwhere} GROUP BY type", nparams):
            st.nodes_by_type[t] = c
        fwhere, fparams = _scope_sql(scope, "f")
        for kind, valid, c in self._q(
            f"SELECT kind, invalid_at IS NULL, count(*) FROM facts f WHERE {fwhere} GROUP BY 1, 2", fparams
        ):
            st.facts_by_kind.setdefault(kind, {"valid": 0, "invalid": 0})["valid" if valid else "invalid"] = c
        if scope.user_id is None:
            st.users = int(self._q("SELECT count(*) FROM users")[0][0])
        else:
            st.users = int(self.user_exists(scope.user_id))
        return st

    def export_rows(self, scope: Scope) -> Iterator[dict[str, Any]]:
        if scope.user_id is None:
            users = self._q("SELECT user_id, created_at FROM users ORDER BY created_at, user_id")
        else:
            users = self._q("SELECT user_id, created_at FROM users WHERE user_id = ?", (scope.user_id,))
        for u in users:
            yield {"record": "user", "user_id": u[0], "created_at": u[1]}
        nwhere, nparams = _scope_sql(scope, "n")
        for r in self._q(f"SELECT {_NODE_COLS} FROM nodes n WHERE {nwhere} ORDER BY rid", nparams):
            yield {"record": "node", **to_json(_row_to_node(r))}
        fwhere, fparams = _scope_sql(scope, "f")
        for r in self._q(f"SELECT {_FACT_COLS} FROM {_FACT_FROM} WHERE {fwhere} ORDER BY f.rid", fparams):
            row = to_json(_row_to_fact(r), exclude=_NAMES)
            yield {"record": "fact", **row}

    def import_rows(self, rows: Sequence[dict[str, Any]]) -> dict[str, int]:
        counts = {"users": 0, "nodes": 0, "facts": 0, "skipped": 0}
        links: list[tuple[str, str]] = []  # superseded_by may point at a fact later in the file
        for row in rows:
            self._import_row(row, counts, links)
        self._many("UPDATE facts SET superseded_by = ? WHERE id = ?", links)
        return counts

    def _import_row(self, row: dict[str, Any], counts: dict[str, int], links: list[tuple[str, str]]) -> None:
        kind = row.get("record")
        if kind == "user":
            if not isinstance(row.get("user_id"), str) or not isinstance(row.get("created_at"), str):
                raise InvalidInput("a user record needs user_id and created_at strings", field="import")
            cur = self._conn.execute(
                "INSERT OR IGNORE INTO users(user_id, created_at) VALUES (?, ?)", (row["user_id"], row["created_at"])
            )
            counts["users" if cur.rowcount else "skipped"] += 1
        elif kind == "node":
            node = from_json(Node, {k: v for k, v in row.items() if k != "record"})
            existing = self.nodes(NodeQuery(scope=Scope.everyone(), ids=[node.id]))
            if existing:
                if to_json(existing[0]) != to_json(node):
                    raise Conflict(f"node {node.id} already exists with different content", field="id")
                counts["skipped"] += 1
                return
            twin = self._q("SELECT id FROM nodes WHERE user_id = ? AND agent_id = ? AND app_id = ? AND key = ?",
                           (node.user_id, node.agent_id or "", node.app_id or "", node.key))
            if twin:
                raise Conflict(f"user {node.user_id!r} already has a node {node.name!r} ({twin[0][0]}); the file's "
                               f"{node.id} would duplicate it — import into a database without this user",
                               field="import")
            self._q(
                "INSERT INTO nodes(id, user_id, agent_id, app_id, name, key, type, summary, metadata, "
                "created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (node.id, node.user_id, node.agent_id or "", node.app_id or "", node.name, node.key, node.type,
                 node.summary, _json(node.metadata),
                 ts(node.created_at), ts(node.updated_at)),
            )
            self._index_nodes([node.id])
            self._tx_dirty.update(self._rids([node.id]).values())
            counts["nodes"] += 1
        elif kind == "fact":
            fact = from_json(Fact, {k: v for k, v in row.items() if k != "record"})
            stored = self.facts(FactQuery(scope=Scope.everyone(), ids=[fact.id], validity="all"))
            if stored:
                if to_json(stored[0], exclude=_NAMES) != to_json(fact, exclude=_NAMES):
                    raise Conflict(f"fact {fact.id} already exists with different content", field="id")
                counts["skipped"] += 1
                return
            if fact.superseded_by:
                links.append((fact.superseded_by, fact.id))
            self.insert_facts([dataclasses.replace(fact, superseded_by=None)])
            counts["facts"] += 1
        else:
            raise InvalidInput(f"unknown record type {kind!r}", field="import")
