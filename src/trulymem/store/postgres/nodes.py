"""Nodes in the PostgreSQL store: resolving names to nodes (insert-or-get under the unique
folded key, so concurrent writers never duplicate a node), updates and their text vector,
listing, fact counts and removing orphans."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from trulymem.model import Node, NodeType, Scope, new_id
from trulymem.store.base import NodeSpec, by_key
from trulymem.store.postgres.connection import PostgresBase
from trulymem.store.postgres.rows import CHUNK, NODE_COLS, chunks, dump_json, load_json, node_tsv, row_to_node
from trulymem.store.postgres.text import prime


class NodeMixin(PostgresBase):
    """Nodes: ``resolve_nodes``, ``update_node``, ``fact_counts``, ``delete_orphan_nodes``, ``dirty_nodes``."""

    def resolve_nodes(self, scope: Scope, specs: Sequence[NodeSpec], now: datetime) -> dict[str, str]:
        user, agent, app = scope.user_id, scope.agent_id or "", scope.app_id or ""
        self._lock_users([user])
        wanted = by_key(specs)
        found: dict[str, str] = {}
        upgrades: list[tuple[str, datetime, str, str]] = []
        for chunk in chunks(list(wanted), 5 * CHUNK):  # a batch's 2,000 names: one read, not two scans
            for key, nid, type_ in self._q(
                "SELECT key, id, type FROM nodes WHERE user_id = %s AND agent_id = %s AND app_id = %s "
                "AND key = ANY(%s)", (user, agent, app, list(chunk))):
                found[key] = nid
                if type_ == NodeType.ENTITY and wanted[key].type != NodeType.ENTITY:
                    upgrades.append((wanted[key].type, now, user or "", nid))
        self._many("UPDATE nodes SET type = %s, updated_at = %s WHERE user_id = %s AND id = %s", upgrades)
        missing = [wanted[k] for k in wanted if k not in found]
        # Under the user's write lock no other writer can be creating these names (every node insert
        # takes it), so a plain INSERT, without the speculative insertion's extra probe of the unique
        # index; ON CONFLICT where there is no lock (no write transaction, a scope without a user).
        locked = self._tx.write and self._tx.conn is not None and (user or "") in self._tx.locked
        for chunk in chunks(missing):
            ids = [new_id() for _ in chunk]
            prime([s.name for s in chunk])
            rows = self._q(
                "INSERT INTO nodes(user_id, id, agent_id, app_id, name, key, type, created_at, updated_at, tsv) "
                "SELECT %s, i, %s, %s, n, k, t, %s, %s, v::tsvector "
                "FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[]) WITH ORDINALITY "
                "AS x(i, n, k, t, v, o) ORDER BY o "
                + ("" if locked else "ON CONFLICT (user_id, agent_id, app_id, key) DO NOTHING ") + "RETURNING key, id",
                (user, agent, app, now, now, ids, [s.name for s in chunk], [s.key for s in chunk],
                 [s.type for s in chunk], [node_tsv(s.name, None, None) for s in chunk]))
            created = dict(rows)
            found.update(created)
            self._tx.dirty.update((user or "", nid) for nid in created.values())
            if self._tx.conn is not None:
                self._tx.fresh.update(created.values())
            raced = [s.key for s in chunk if s.key not in created]
            if raced:
                found.update(self._q("SELECT key, id FROM nodes WHERE user_id = %s AND agent_id = %s "
                                     "AND app_id = %s AND key = ANY(%s)", (user, agent, app, raced)))
        if self._tx.conn is not None:  # known for this transaction only
            self._tx.owners.update((nid, user or "") for nid in found.values())
        return found

    def _index_nodes(self, ids: Sequence[tuple[str, str]]) -> None:
        """Rewrite the text vector of these (user, node id)s from their name, summary and context."""
        if not ids:
            return
        rows = []
        for user, nid, name, summary, metadata in self._q(  # one read for all of them, not one per node
                "SELECT n.user_id, n.id, n.name, n.summary, n.metadata FROM nodes n "
                "JOIN unnest(%s::text[], %s::text[]) AS k(user_id, id) ON n.user_id = k.user_id AND n.id = k.id",
                ([u for u, _ in ids], [n for _, n in ids])):
            context = load_json(metadata).get("context") if metadata.startswith("{") else None
            rows.append((node_tsv(name, summary, context), user, nid))
        self._many("UPDATE nodes SET tsv = %s::tsvector WHERE user_id = %s AND id = %s", rows)

    def update_nodes(self, updates: Sequence[tuple[str, str | None, dict[str, Any] | None]], now: datetime) -> None:
        users = self._user_of([nid for nid, _, _ in updates])
        self._many("UPDATE nodes SET summary = %s, updated_at = %s, metadata = COALESCE(%s, metadata) "
                   "WHERE user_id = %s AND id = %s",
                   [(summary, now, None if meta is None else dump_json(meta), users[nid], nid)
                    for nid, summary, meta in updates if nid in users])
        owned = list(dict.fromkeys((users[nid], nid) for nid, _, _ in updates if nid in users))
        self._index_nodes(owned)
        self._tx.dirty.update(owned)

    def dirty_nodes(self) -> list[Node]:
        dirty, self._tx.dirty = sorted(self._tx.dirty), set()
        out: list[Node] = []
        for chunk in chunks(dirty):
            out += [row_to_node(r) for r in self._q(
                f"SELECT {NODE_COLS} FROM nodes n JOIN unnest(%s::text[], %s::text[]) AS d(u, i) "
                "ON n.user_id = d.u AND n.id = d.i ORDER BY n.seq", ([u for u, _ in chunk], [i for _, i in chunk]))]
        return out

    def fact_counts(self, node_ids: Sequence[str]) -> dict[str, int]:
        counts: dict[str, int] = {}
        for chunk in chunks(list(dict.fromkeys(node_ids))):
            ids = list(chunk)
            for nid, n in self._q(
                "SELECT n.id, (SELECT count(*) FROM facts f WHERE f.user_id = n.user_id AND f.subject_id = n.id) "
                "+ (SELECT count(*) FROM facts f WHERE f.user_id = n.user_id AND f.object_id = n.id "
                "AND f.subject_id <> n.id) FROM nodes n WHERE n.id = ANY(%s)", (ids,)):
                if not n:
                    continue
                counts[nid] = int(n)
        return counts

    def delete_orphan_nodes(self, node_ids: Sequence[str]) -> list[str]:
        deleted: list[str] = []
        for chunk in chunks(list(dict.fromkeys(node_ids))):
            rows = self._q(
                "DELETE FROM nodes n WHERE n.id = ANY(%s) "
                "AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.user_id = n.user_id AND f.subject_id = n.id) "
                "AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.user_id = n.user_id AND f.object_id = n.id) "
                "RETURNING n.id, n.user_id", (list(chunk),))
            self._tx.dirty.difference_update((u, i) for i, u in rows)
            for i, _ in rows:
                self._tx.owners.pop(i, None)
                self._tx.fresh.discard(i)
            deleted.extend(r[0] for r in rows)
        return deleted
