"""Rows in and out of the SQLite store: export, import (all or nothing, identical
rows skipped) and restoring journaled rows as they were."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from trulymem.errors import Conflict, InvalidInput
from trulymem.model import Fact, Node, Scope, from_json, to_json
from trulymem.store.base import FactQuery, NodeQuery
from trulymem.store.nul import refuse_nul
from trulymem.store.sql import import_batches, records, twin_node
from trulymem.store.sqlite.nodes import NodeMixin
from trulymem.store.sqlite.rows import (
    FACT_COLS,
    FACT_FROM,
    NODE_COLS,
    Stamps,
    dump_json,
    fact_doc,
    row_to_fact,
    row_to_node,
    scope_sql,
    ts,
)
from trulymem.text import relation_key

_NAMES = {"subject", "object"}  # display names: derived from nodes, not exported


class TransferMixin(NodeMixin):
    """Rows in and out: ``export_rows``, ``import_rows``, ``restore_rows``."""

    def restore_rows(self, rows: Sequence[dict[str, Any]]) -> None:
        stamp = Stamps()
        nodes = [from_json(Node, {k: v for k, v in r.items() if k != "record"}) for r in rows if r["record"] == "node"]
        self._many(
            "UPDATE nodes SET name = ?, key = ?, type = ?, summary = ?, metadata = ?, created_at = ?, updated_at = ? "
            "WHERE id = ?",
            [(n.name, n.key, n.type, n.summary, dump_json(n.metadata), ts(n.created_at), ts(n.updated_at), n.id)
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
              int(f.pinned), f.type, f.source, dump_json(f.metadata), f.turn_id, dump_json(f.message_ids), f.mention_count,
              stamp(f.created_at), stamp(f.updated_at), stamp(f.valid_at),
              stamp(f.invalid_at) if f.invalid_at else None, f.superseded_by, f.id) for f in facts],
        )
        self._many("UPDATE facts_fts SET doc = ? WHERE rowid = (SELECT rid FROM facts WHERE id = ?)",
                   [(fact_doc(f.relation, f.type, f.kind.value), f.id) for f in facts])

    def export_rows(self, scope: Scope) -> Iterator[dict[str, Any]]:
        if scope.user_id is None:
            users = self._q("SELECT user_id, created_at FROM users ORDER BY created_at, user_id")
        else:
            users = self._q("SELECT user_id, created_at FROM users WHERE user_id = ?", (scope.user_id,))
        for u in users:
            yield {"record": "user", "user_id": u[0], "created_at": u[1]}
        nwhere, nparams = scope_sql(scope, "n")
        for r in self._q(f"SELECT {NODE_COLS} FROM nodes n WHERE {nwhere} ORDER BY rid", nparams):
            yield {"record": "node", **to_json(row_to_node(r))}
        fwhere, fparams = scope_sql(scope, "f")
        for r in self._q(f"SELECT {FACT_COLS} FROM {FACT_FROM} WHERE {fwhere} ORDER BY f.rid", fparams):
            row = to_json(row_to_fact(r), exclude=_NAMES)
            yield {"record": "fact", **row}

    def import_rows(self, rows: Sequence[dict[str, Any]],
                    progress: Callable[[int], None] | None = None) -> dict[str, int]:
        """In batches of one record type (``record_batches``): a few statements per thousand
        rows, so an import's cost grows with its rows and nothing else."""
        counts = {"users": 0, "nodes": 0, "facts": 0, "skipped": 0}
        links: list[tuple[str, str]] = []  # superseded_by may point at a fact later in the file
        for kind, batch in import_batches(rows, progress):
            if kind == "user":
                for row in batch:
                    self._import_user(row, counts)
            elif kind == "node":
                self._import_nodes(records(Node, batch), counts)
            else:
                self._import_facts(records(Fact, batch), counts, links)
        self._many("UPDATE facts SET superseded_by = ? WHERE id = ?", links)
        return counts

    def _import_user(self, row: dict[str, Any], counts: dict[str, int]) -> None:
        if not isinstance(row.get("user_id"), str) or not isinstance(row.get("created_at"), str):
            raise InvalidInput("a user record needs user_id and created_at strings", field="import")
        params = (row["user_id"], row["created_at"])
        refuse_nul(params)  # as every statement through _q: the row count is read from the cursor here
        cur = self._conn.execute("INSERT OR IGNORE INTO users(user_id, created_at) VALUES (?, ?)", params)
        counts["users" if cur.rowcount else "skipped"] += 1

    def _import_nodes(self, nodes: Sequence[Node], counts: dict[str, int]) -> None:
        """New nodes inserted, identical ones skipped; a node that differs from the stored one
        of its id, or would be a second node of one name in a namespace, is a ``Conflict``."""
        known = {n.id: n for n in self.nodes(NodeQuery(scope=Scope.everyone(), ids=[n.id for n in nodes]))}
        new: list[Node] = []
        names: dict[tuple[str, str, str, str], Node] = {}
        for node in nodes:
            same = known.get(node.id)
            if same is not None:
                if to_json(same) != to_json(node):
                    raise Conflict(f"node {node.id} already exists with different content", field="id")
                counts["skipped"] += 1
                continue
            where = (node.user_id, node.agent_id or "", node.app_id or "", node.key)
            if where in names:  # twice in the file under two ids
                raise twin_node(node.user_id, node.name, names[where].id)
            names[where] = known[node.id] = node
            new.append(node)
        twins = self._q(
            f"WITH w(u, a, p, k) AS (VALUES {', '.join(['(?, ?, ?, ?)'] * len(new))}) SELECT n.id, n.user_id, n.name "
            "FROM w JOIN nodes n ON n.user_id = w.u AND n.agent_id = w.a AND n.app_id = w.p AND n.key = w.k LIMIT 1",
            [v for where in names for v in where]) if new else []
        if twins:
            raise twin_node(twins[0][1], twins[0][2], twins[0][0])
        self._many(
            "INSERT INTO nodes(id, user_id, agent_id, app_id, name, key, type, summary, metadata, "
            "created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [(n.id, n.user_id, n.agent_id or "", n.app_id or "", n.name, n.key, n.type, n.summary,
              dump_json(n.metadata), ts(n.created_at), ts(n.updated_at)) for n in new],
        )
        ids = [n.id for n in new]
        self._index_nodes(ids)
        self._tx_dirty.update(self._rids(ids).values())
        counts["nodes"] += len(new)

    def _import_facts(self, facts: Sequence[Fact], counts: dict[str, int], links: list[tuple[str, str]]) -> None:
        known = {f.id: f for f in self.facts(FactQuery(scope=Scope.everyone(), ids=[f.id for f in facts],
                                                       validity="all"))}
        new: list[Fact] = []
        for fact in facts:
            same = known.get(fact.id)
            if same is not None:
                if to_json(same, exclude=_NAMES) != to_json(fact, exclude=_NAMES):
                    raise Conflict(f"fact {fact.id} already exists with different content", field="id")
                counts["skipped"] += 1
                continue
            known[fact.id] = fact
            if fact.superseded_by:
                links.append((fact.superseded_by, fact.id))
            new.append(dataclasses.replace(fact, superseded_by=None))
        if new:
            self.insert_facts(new)
        counts["facts"] += len(new)

