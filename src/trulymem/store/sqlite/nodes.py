"""Nodes in the SQLite store: resolving names to nodes, updates and their full-text
rows, listing, fact counts and removing orphans."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from trulymem.model import Node, NodeType, Scope, new_ids
from trulymem.store.base import NodeSpec, by_key
from trulymem.store.sqlite.connection import SQLiteBase
from trulymem.store.sqlite.rows import NODE_COLS, chunks, dump_json, marks, row_to_node, ts
from trulymem.text import fts_document


class NodeMixin(SQLiteBase):
    """Nodes: ``resolve_nodes``, ``update_node``, ``fact_counts``, ``delete_orphan_nodes``, ``dirty_nodes``."""

    def resolve_nodes(self, scope: Scope, specs: Sequence[NodeSpec], now: datetime) -> dict[str, str]:
        ns = (scope.user_id, scope.agent_id or "", scope.app_id or "")
        wanted = by_key(specs)
        found: dict[str, str] = {}
        in_tx = bool(self._depth)  # outside a transaction each statement commits: remember nothing
        upgrades: list[tuple[str, str, str]] = []
        keys = list(wanted)
        t = ts(now)
        for chunk in chunks(keys, 5000):
            # the keys as one JSON array: one statement SQLite compiles once, not one per chunk length
            for key, nid, type_, rid in self._q(
                "SELECT key, id, type, rid FROM nodes WHERE user_id = ? AND agent_id = ? AND app_id = ? "
                "AND key IN (SELECT value FROM json_each(?))",
                (*ns, json.dumps(list(chunk), ensure_ascii=False)),
            ):
                found[key] = nid
                if in_tx:
                    self._tx_rids[nid] = rid
                    self._tx_fresh.discard(nid)  # asked for again: no longer assume it is in no fact
                if type_ == NodeType.ENTITY and wanted[key].type != NodeType.ENTITY:
                    upgrades.append((wanted[key].type, t, nid))
        if upgrades:
            self._many("UPDATE nodes SET type = ?, updated_at = ? WHERE id = ?", upgrades)
        missing = [wanted[k] for k in keys if k not in found]
        if missing:
            base = self._q("SELECT coalesce(max(rid), 0) FROM nodes")[0][0]
            ids = new_ids(len(missing))
            self._many(
                "INSERT INTO nodes(rid, id, user_id, agent_id, app_id, name, key, type, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(base + i + 1, nid, *ns, sp.name, sp.key, str(sp.type), t, t)  # text, not an enum (see insert_facts)
                 for i, (nid, sp) in enumerate(zip(ids, missing))],
            )
            self._many(
                "INSERT INTO nodes_fts(rowid, doc, ctx) VALUES (?, ?, '')",
                [(base + i + 1, fts_document(sp.name)) for i, sp in enumerate(missing)],
            )
            found.update((sp.key, nid) for nid, sp in zip(ids, missing))
            if in_tx:  # others cannot write until this transaction ends: no fact can name these yet
                self._tx_rids.update((nid, base + i + 1) for i, nid in enumerate(ids))
                self._tx_fresh.update(ids)
            self._tx_dirty.update(range(base + 1, base + len(ids) + 1))
        return found

    def _index_nodes(self, ids: Sequence[str]) -> None:
        self._index_rids(list(self._rids(ids).values()))

    def _index_rids(self, rids: Sequence[int]) -> None:
        for chunk in chunks(rids):
            # metadata.context (e.g. an episode's neighbouring messages) is searchable too
            rows = self._q(f"SELECT rid, name, summary, json_extract(metadata, '$.context') FROM nodes "
                           f"WHERE rid IN ({marks(len(chunk))})", chunk)
            self._many("DELETE FROM nodes_fts WHERE rowid = ?", [(r[0],) for r in rows])
            self._many(
                "INSERT INTO nodes_fts(rowid, doc, ctx) VALUES (?, ?, ?)",
                [(r[0], fts_document(r[1], r[2] or ""), fts_document(r[3] if isinstance(r[3], str) else ""))
                 for r in rows],
            )

    def update_nodes(self, updates: Sequence[tuple[str, str | None, dict[str, Any] | None]], now: datetime) -> None:
        t = ts(now)
        # by rowid: an ingest's episodes were resolved in this transaction, their rowids are known
        # (an id no node has is in no update, as an UPDATE by that id changed nothing)
        rids = self._rids([nid for nid, _, _ in updates])
        self._many("UPDATE nodes SET summary = ?, updated_at = ?, metadata = COALESCE(?, metadata) WHERE rid = ?",
                   [(summary, t, None if meta is None else dump_json(meta), rids[nid])
                    for nid, summary, meta in updates if nid in rids])
        changed = list(dict.fromkeys(rids[nid] for nid, _, _ in updates if nid in rids))
        self._index_rids(changed)
        self._tx_dirty.update(changed)

    def dirty_nodes(self) -> list[Node]:
        rids, self._tx_dirty = sorted(self._tx_dirty), set()
        out: list[Node] = []
        for chunk in chunks(rids):
            out += [row_to_node(r) for r in self._q(
                f"SELECT {NODE_COLS} FROM nodes n WHERE n.rid IN ({marks(len(chunk))}) ORDER BY n.rid", chunk)]
        return out

    def fact_counts(self, node_ids: Sequence[str]) -> dict[str, int]:
        rids = self._rids(node_ids)
        by_rid = {rid: nid for nid, rid in rids.items()}
        counts: dict[str, int] = {}
        for chunk in chunks(list(by_rid)):
            m = marks(len(chunk))
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
        for chunk in chunks(list(dict.fromkeys(node_ids))):
            rows = self._q(
                f"SELECT rid, id FROM nodes n WHERE id IN ({marks(len(chunk))}) "
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
