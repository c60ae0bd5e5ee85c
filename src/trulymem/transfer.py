"""Export/import as JSON lines, checked before anything is written.

The store inserts rows; this module makes sure they are rows trulymem itself
could have written: valid ids, keys that match their names, and facts whose
endpoints are nodes of the same user and namespace.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from trulymem.errors import InvalidInput, TrulyMemError
from trulymem.model import MAX_RELATION, MAX_TEXT, Fact, Node, Scope, as_utc, check_identifier, from_json
from trulymem.store.base import FactQuery, NodeQuery, Store
from trulymem.store.nul import nul_path
from trulymem.text import name_key, relation_key

_TYPE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")

RECORDS = ("user", "node", "fact")


def read_jsonl(lines: Iterable[str], field: str) -> list[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank JSON line; a bad line is an error naming it."""
    out = []
    for i, line in enumerate(lines, 1):
        if line.strip():
            try:
                out.append((i, json.loads(line)))
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"line {i} is not valid JSON: {exc.msg}", field=field) from None
    return out


def parse_lines(lines: Iterable[str]) -> list[dict[str, Any]]:
    rows = []
    for i, row in read_jsonl(lines, "import"):
        if not isinstance(row, dict) or row.get("record") not in RECORDS:
            raise InvalidInput(f"line {i} is not a trulymem export record", field="import")
        rows.append(row)
    return rows


def check_rows(store: Store, rows: Sequence[dict[str, Any]], scope: Scope) -> None:
    """Raise ``InvalidInput`` naming the first row that trulymem could not have written,
    or that belongs to another user than ``scope``'s (unless it is ``Scope.everyone()``)."""
    nodes: dict[str, Node] = {}
    facts: list[tuple[int, Fact]] = []
    for i, row in enumerate(rows, 1):
        data = {k: v for k, v in row.items() if k != "record"}
        where = nul_path(data)
        if where is not None:
            raise InvalidInput(f"row {i} ({row.get('record')} {data.get('id') or data.get('user_id')!r}) has a NUL "
                               f"character (U+0000) in {where}: no memory text may hold one", field="import")
        try:
            user = check_identifier(data.get("user_id"), "user_id", required=True)
            if not scope.all_users and user != scope.user_id:
                raise InvalidInput(f"belongs to user {user!r}, not {scope.user_id!r}; importing other users' "
                                   "memories needs all_users", field="user_id")
            if row["record"] == "user":
                as_utc(datetime.fromisoformat(str(data.get("created_at"))))
            elif row["record"] == "node":
                node = from_json(Node, data)
                _check_node(node)
                nodes[node.id] = node
            else:
                fact = from_json(Fact, data)
                _check_fact(fact)
                facts.append((i, fact))
        except ValidationError as exc:
            err = exc.errors()[0]
            raise InvalidInput(f"row {i} is not a valid {row['record']} record: {err['msg']} at "
                               f"{'.'.join(map(str, err['loc']))}", field="import") from None
        except (TrulyMemError, ValueError) as exc:
            raise InvalidInput(f"row {i} is not a valid {row['record']} record: {exc}", field="import") from None
    _check_links(store, nodes, facts)


def _check_node(node: Node) -> None:
    for name in ("id", "user_id", "agent_id", "app_id"):
        check_identifier(getattr(node, name), name, required=name in ("id", "user_id"))
    if not name_key(node.name) or len(node.name) > MAX_TEXT:
        raise InvalidInput(f"must have 1-{MAX_TEXT} visible characters", field="name")
    if node.key != name_key(node.name):
        raise InvalidInput(f"key {node.key!r} does not match name {node.name!r}", field="key")
    if not _TYPE.match(node.type) or (node.summary is not None and len(node.summary) > MAX_TEXT):
        raise InvalidInput("is not a node type name", field="type")


def _check_fact(fact: Fact) -> None:
    for name in ("id", "user_id", "agent_id", "app_id", "session_id", "superseded_by"):
        check_identifier(getattr(fact, name), name, required=name in ("id", "user_id"))
    if not relation_key(fact.relation) or len(fact.relation) > MAX_RELATION:
        raise InvalidInput(f"must have 1-{MAX_RELATION} visible characters", field="relation")
    if fact.mention_count < 1:
        raise InvalidInput("must be at least 1", field="mention_count")


def _check_links(store: Store, nodes: dict[str, Node], facts: list[tuple[int, Fact]]) -> None:
    """Endpoints exist and share the fact's user and namespace; supersession targets exist;
    no two valid facts state the same triple."""
    wanted = {n for _, f in facts for n in (f.subject_id, f.object_id)} - set(nodes)
    if wanted:
        nodes.update((n.id, n) for n in store.nodes(NodeQuery(scope=Scope.everyone(), ids=sorted(wanted))))
    in_file = {f.id for _, f in facts}
    targets = sorted({f.superseded_by for _, f in facts if f.superseded_by} - in_file)
    stored = {f.id for f in store.facts(FactQuery(scope=Scope.everyone(), ids=targets, validity="all"))}
    triples: dict[tuple[str, str, str], str] = {}
    for i, fact in facts:
        for end in (fact.subject_id, fact.object_id):
            node = nodes.get(end)
            if node is None:
                raise InvalidInput(f"row {i}: fact {fact.id} points at node {end}, which is neither in the "
                                   "file nor in the database", field="import")
            if (node.user_id, node.agent_id, node.app_id) != (fact.user_id, fact.agent_id, fact.app_id):
                raise InvalidInput(f"row {i}: fact {fact.id} points at a node of another user or namespace",
                                   field="import")
        if fact.superseded_by and fact.superseded_by not in in_file and fact.superseded_by not in stored:
            raise InvalidInput(f"row {i}: fact {fact.id} is superseded by {fact.superseded_by}, which is neither "
                               "in the file nor in the database", field="import")
        if fact.invalid_at is None:
            triple = (fact.subject_id, relation_key(fact.relation), fact.object_id)
            if triples.setdefault(triple, fact.id) != fact.id:
                raise InvalidInput(f"row {i}: fact {fact.id} repeats the valid fact {triples[triple]}",
                                   field="import")
    existing = store.active_facts_for(list(triples))
    for triple, fid in triples.items():
        if triple in existing and existing[triple].id != fid:
            raise InvalidInput(f"fact {fid} repeats the valid fact {existing[triple].id} already stored",
                               field="import")
