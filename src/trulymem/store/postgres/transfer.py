"""Rows in and out of the PostgreSQL store: export, import (all or nothing, identical
rows skipped) and restoring journaled rows as they were — the same rows, in the same
order, as the SQLite store's, so a database moves between the two exactly."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from trulymem.errors import Conflict, InvalidInput
from trulymem.model import Fact, Node, Scope, from_json, to_json
from trulymem.store.base import FactQuery, NodeQuery
from trulymem.store.postgres.facts import FactMixin
from trulymem.store.postgres.nodes import NodeMixin
from trulymem.store.postgres.rows import (
    FACT_COLS,
    FACT_FROM,
    NODE_COLS,
    dump_json,
    fact_tsv,
    node_tsv,
    row_to_fact,
    row_to_node,
    scope_sql,
    utc,
)
from trulymem.store.sql import import_batches, records, twin_node
from trulymem.text import relation_key

_NAMES = {"subject", "object"}  # display names: derived from nodes, not exported
_PAGE = 5000
_NODE_COPY = ("COPY nodes(user_id, id, agent_id, app_id, name, key, type, summary, metadata, created_at, updated_at, "
              "tsv) FROM STDIN")


def _stamp(value: datetime) -> str:
    return value.isoformat(timespec="microseconds")


class TransferMixin(NodeMixin, FactMixin):
    """Rows in and out: ``export_rows``, ``import_rows``, ``restore_rows``."""

    def restore_rows(self, rows: Sequence[dict[str, Any]]) -> None:
        nodes = [from_json(Node, {k: v for k, v in r.items() if k != "record"}) for r in rows if r["record"] == "node"]
        self._many(
            "UPDATE nodes SET name = %s, key = %s, type = %s, summary = %s, metadata = %s, created_at = %s, "
            "updated_at = %s WHERE user_id = %s AND id = %s",
            [(n.name, n.key, n.type, n.summary, dump_json(n.metadata), n.created_at, n.updated_at, n.user_id, n.id)
             for n in nodes],
        )
        self._index_nodes([(n.user_id, n.id) for n in nodes])
        self._tx.dirty.update((n.user_id, n.id) for n in nodes)
        facts = [from_json(Fact, {k: v for k, v in r.items() if k != "record"}) for r in rows if r["record"] == "fact"]
        self._many(
            "UPDATE facts SET session_id = %s, relation = %s, relation_key = %s, kind = %s, confidence = %s, "
            "speculation = %s, pinned = %s, type = %s, source = %s, metadata = %s, turn_id = %s, message_ids = %s, "
            "mention_count = %s, created_at = %s, updated_at = %s, valid_at = %s, invalid_at = %s, "
            "superseded_by = %s, tsv = %s::tsvector WHERE user_id = %s AND id = %s",
            [(f.session_id or "", f.relation, relation_key(f.relation), f.kind.value, f.confidence, f.speculation,
              f.pinned, f.type, f.source, dump_json(f.metadata), f.turn_id, dump_json(f.message_ids), f.mention_count,
              f.created_at, f.updated_at, f.valid_at, f.invalid_at, f.superseded_by,
              fact_tsv(f.relation, f.type, f.kind.value), f.user_id, f.id) for f in facts],
        )

    def export_rows(self, scope: Scope) -> Iterator[dict[str, Any]]:
        if scope.user_id is None:
            users = self._q("SELECT user_id, created_at FROM users ORDER BY created_at, user_id COLLATE \"C\"")
        else:
            users = self._q("SELECT user_id, created_at FROM users WHERE user_id = %s", (scope.user_id,))
        for u in users:
            yield {"record": "user", "user_id": u[0], "created_at": _stamp(utc(u[1]))}
        nwhere, nparams = scope_sql(scope, "n")
        yield from self._pages(f"SELECT {NODE_COLS}, n.seq FROM nodes n WHERE {nwhere} AND n.seq > %s "
                               "ORDER BY n.seq LIMIT %s", nparams, lambda r: {"record": "node", **to_json(row_to_node(r))})
        fwhere, fparams = scope_sql(scope, "f")
        yield from self._pages(f"SELECT {FACT_COLS}, f.seq FROM {FACT_FROM} WHERE {fwhere} AND f.seq > %s "
                               "ORDER BY f.seq LIMIT %s", fparams,
                               lambda r: {"record": "fact", **to_json(row_to_fact(r), exclude=_NAMES)})

    def _pages(self, sql: str, params: list[Any],
               convert: Callable[[Sequence[Any]], dict[str, Any]]) -> Iterator[dict[str, Any]]:
        after = 0
        while True:
            rows = self._q(sql, [*params, after, _PAGE])
            for r in rows:
                yield convert(r)
            if len(rows) < _PAGE:
                return
            after = rows[-1][-1]

    def import_rows(self, rows: Sequence[dict[str, Any]],
                    progress: Callable[[int], None] | None = None) -> dict[str, int]:
        """As the SQLite store's, in batches: each run of one record type ``IMPORT_BATCH`` rows at a time
        (a row per statement would make moving a large database a round trip per row)."""
        counts = {"users": 0, "nodes": 0, "facts": 0, "skipped": 0}
        links: list[tuple[str, str, str]] = []  # superseded_by may point at a fact later in the file
        for kind, batch in import_batches(rows, progress):
            if kind == "user":
                self._import_users(batch, counts)
            elif kind == "node":
                self._import_nodes(records(Node, batch), counts)
            else:
                self._import_facts(records(Fact, batch), counts, links)
        self._many("UPDATE facts SET superseded_by = %s WHERE user_id = %s AND id = %s", links)
        return counts

    def _import_users(self, batch: Sequence[dict[str, Any]], counts: dict[str, int]) -> None:
        for row in batch:
            if not isinstance(row.get("user_id"), str) or not isinstance(row.get("created_at"), str):
                raise InvalidInput("a user record needs user_id and created_at strings", field="import")
            self._lock_users([row["user_id"]])
            try:
                created = datetime.fromisoformat(row["created_at"])
            except ValueError as exc:
                raise InvalidInput(f"created_at {row['created_at']!r} is not a time", field="import") from exc
            n = self._n("INSERT INTO users(user_id, created_at) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                        (row["user_id"], created))
            counts["users" if n else "skipped"] += 1

    def _import_nodes(self, nodes: Sequence[Node], counts: dict[str, int]) -> None:
        self._lock_users([n.user_id for n in nodes])
        existing = {n.id: n for n in self.nodes(NodeQuery(scope=Scope.everyone(), ids=[n.id for n in nodes]))}
        new: list[Node] = []
        names: dict[tuple[str, str, str, str], str] = {}
        for node in nodes:
            if node.id in existing:  # stored, or earlier in this batch
                if to_json(existing[node.id]) != to_json(node):
                    raise Conflict(f"node {node.id} already exists with different content", field="id")
                counts["skipped"] += 1
                continue
            where = (node.user_id, node.agent_id or "", node.app_id or "", node.key)
            if where in names:
                raise twin_node(node.user_id, node.name, names[where])
            names[where] = node.id
            existing[node.id] = node
            new.append(node)
        twins = self._q(
            "SELECT n.id, n.user_id, n.name FROM nodes n JOIN unnest(%s::text[], %s::text[], %s::text[], %s::text[]) "
            "AS w(u, a, p, k) ON n.user_id = w.u AND n.agent_id = w.a AND n.app_id = w.p AND n.key = w.k",
            ([n.user_id for n in new], [n.agent_id or "" for n in new], [n.app_id or "" for n in new],
             [n.key for n in new]))
        if twins:
            nid, user, name = twins[0]
            raise twin_node(user, name, nid)
        self._copy(_NODE_COPY, [
            (n.user_id, n.id, n.agent_id or "", n.app_id or "", n.name, n.key, n.type, n.summary,
             dump_json(n.metadata), n.created_at, n.updated_at,
             node_tsv(n.name, n.summary, n.metadata.get("context"))) for n in new])
        self._tx.dirty.update((n.user_id, n.id) for n in new)
        counts["nodes"] += len(new)

    def _import_facts(self, facts: Sequence[Fact], counts: dict[str, int], links: list[tuple[str, str, str]]) -> None:
        stored = {f.id: f for f in self.facts(FactQuery(scope=Scope.everyone(), ids=[f.id for f in facts],
                                                        validity="all"))}
        new: list[Fact] = []
        for fact in facts:
            if fact.id in stored:  # stored, or earlier in this batch
                if to_json(stored[fact.id], exclude=_NAMES) != to_json(fact, exclude=_NAMES):
                    raise Conflict(f"fact {fact.id} already exists with different content", field="id")
                counts["skipped"] += 1
                continue
            stored[fact.id] = fact
            if fact.superseded_by:
                links.append((fact.superseded_by, fact.user_id, fact.id))
            new.append(dataclasses.replace(fact, superseded_by=None))
        self.insert_facts(new)
        counts["facts"] += len(new)
