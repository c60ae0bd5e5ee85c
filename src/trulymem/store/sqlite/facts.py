"""Facts in the SQLite store: the existing-triple lookup and the writes (insert with their
full-text rows, reinforce, invalidate, delete); the reads are ``store.queries``'."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from trulymem.errors import Conflict
from trulymem.model import Fact
from trulymem.store.sqlite.connection import SQLiteBase
from trulymem.store.sqlite.rows import (
    FACT_COLS,
    JOIN_NODES,
    Stamps,
    chunks,
    dump_json,
    fact_doc,
    marks,
    row_to_fact,
    ts,
)
from trulymem.text import relation_key


class FactMixin(SQLiteBase):
    """Facts: ``active_facts_for`` and the writes."""

    def active_facts_for(self, triples: Sequence[tuple[str, str, str]]) -> dict[tuple[str, str, str], Fact]:
        out: dict[tuple[str, str, str], Fact] = {}
        fresh = self._tx_fresh
        if fresh:
            # A node this transaction created, and no fact inserted since names, is in no fact: an
            # ingest's links to its new episodes need no probe (others cannot write until it commits).
            triples = [t for t in triples if t[0] not in fresh and t[2] not in fresh]
        rids = self._rids([n for t in triples for n in (t[0], t[2])])
        keys_of: dict[tuple[int, int], list[str]] = {}  # (subject rid, object rid) -> relation keys asked
        for s, r, o in dict.fromkeys(triples):
            if s in rids and o in rids:
                keys_of.setdefault((rids[s], rids[o]), []).append(r)
        single: list[tuple[int, str, int]] = []
        many: dict[tuple[str, ...], list[tuple[int, int]]] = {}  # a key set -> the pairs asking for all of it
        for (s_rid, o_rid), keys in keys_of.items():
            if len(keys) == 1:
                single.append((s_rid, keys[0], o_rid))
            else:  # a supersession asks one pair for each opposite preference (16 keys)
                many.setdefault(tuple(sorted(keys)), []).append((s_rid, o_rid))
        for chunk in chunks(single, 300):
            # The triples come as one JSON array read by json_each, not a VALUES list: once
            # PRAGMA optimize has written statistics, SQLite plans a VALUES join with a Bloom
            # filter that scans every fact per chunk (31.8 ms per chunk at 120k facts, a reopened
            # 1M database committing 1.1k facts/s); a table-valued function has no statistics, so
            # each triple stays one lookup in the partial unique index, fresh or reopened.
            self._collect(out, "f.relation_key = json_extract(v.value, '$[1]') "
                               "AND f.object_rid = json_extract(v.value, '$[2]')", chunk, ())
        for key_set, pairs in many.items():
            # one row per pair and the keys as an IN list: SQLite probes the same index once per
            # key in C instead of reading one JSON row per triple
            for chunk in chunks(pairs, 300):
                self._collect(out, f"f.object_rid = json_extract(v.value, '$[1]') AND f.relation_key IN "
                                   f"({marks(len(key_set))})", chunk, key_set)
        return out

    def _collect(self, out: dict[tuple[str, str, str], Fact], match: str, rows: Sequence[Any],
                 keys: Sequence[str]) -> None:
        for r in self._q(
            f"SELECT {FACT_COLS}, f.relation_key FROM json_each(?) v "
            f"JOIN facts f ON f.subject_rid = json_extract(v.value, '$[0]') AND {match} "
            f"AND f.invalid_at IS NULL {JOIN_NODES}",
            (json.dumps(rows, ensure_ascii=False), *keys),
        ):
            out[(r[5], r[25], r[7])] = row_to_fact(r)

    def insert_facts(self, facts: Sequence[Fact]) -> None:
        # Explicit rowids (we hold the write lock) let the FTS rows be written in one batch.
        base = self._q("SELECT coalesce(max(rid), 0) FROM facts")[0][0]
        ends = [n for f in facts for n in (f.subject_id, f.object_id)]
        rids = self._rids(ends)
        missing = next((n for n in ends if n not in rids), None)
        if missing is not None:
            raise Conflict(f"node {missing} does not exist", field="node_id")
        if self._tx_fresh:
            self._tx_fresh.difference_update(ends)
        stamp = Stamps()
        mids: dict[tuple[str, ...], str] = {}  # an ingest's facts share their turn's message ids
        rows = []  # enums bound as their text: sqlite3 looks an adapter up for a str subclass first
        for i, f in enumerate(facts):
            key = tuple(f.message_ids)
            mid_json = mids.get(key)
            if mid_json is None:
                mid_json = mids[key] = dump_json(f.message_ids)
            created = stamp(f.created_at)  # a batch's facts are mostly created, updated and valid at one time
            rows.append((
                base + i + 1, f.id, f.user_id, f.agent_id or "", f.app_id or "", f.session_id or "",
                rids[f.subject_id], f.relation, relation_key(f.relation), rids[f.object_id], str(f.kind), f.confidence,
                int(f.speculation), int(f.pinned), f.type, f.source, dump_json(f.metadata) if f.metadata else "{}",
                f.turn_id, mid_json, f.mention_count, created,
                created if f.updated_at is f.created_at else stamp(f.updated_at),
                created if f.valid_at is f.created_at else stamp(f.valid_at),
                stamp(f.invalid_at) if f.invalid_at else None, f.superseded_by,
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
            [(base + i + 1, fact_doc(f.relation, f.type, f.kind)) for i, f in enumerate(facts)],
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
