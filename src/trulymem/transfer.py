"""Export/import as JSON lines, checked before anything is written.

The store inserts rows; this module makes sure they are rows trulymem itself
could have written: valid ids, keys that match their names, and facts whose
endpoints are nodes of the same user and namespace.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from trulymem.errors import InvalidInput, TrulyMemError
from trulymem.model import Fact, Node, Scope, check_identifier, from_json
from trulymem.store.base import NodeQuery, Store
from trulymem.text import name_key

RECORDS = ("user", "node", "fact")


def parse_lines(lines: Iterable[str]) -> list[dict[str, Any]]:
    rows = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"line {i} is not JSON: {exc.msg}", field="import") from None
        if not isinstance(row, dict) or row.get("record") not in RECORDS:
            raise InvalidInput(f"line {i} is not a trulymem export record", field="import")
        rows.append(row)
    return rows


def check_rows(store: Store, rows: Sequence[dict[str, Any]]) -> None:
    """Raise ``InvalidInput`` naming the first row that trulymem could not have written."""
    nodes: dict[str, Node] = {}
    facts: list[tuple[int, Fact]] = []
    for i, row in enumerate(rows, 1):
        data = {k: v for k, v in row.items() if k != "record"}
        try:
            if row["record"] == "user":
                check_identifier(data.get("user_id"), "user_id", required=True)
                datetime.fromisoformat(str(data.get("created_at")))
            elif row["record"] == "node":
                node = from_json(Node, data)
                _ids(node.user_id, node.agent_id, node.app_id)
                if node.key != name_key(node.name):
                    raise InvalidInput(f"key {node.key!r} does not match name {node.name!r}", field="key")
                nodes[node.id] = node
            else:
                fact = from_json(Fact, data)
                _ids(fact.user_id, fact.agent_id, fact.app_id)
                facts.append((i, fact))
        except ValidationError as exc:
            err = exc.errors()[0]
            raise InvalidInput(f"row {i} is not a valid {row['record']} record: {err['msg']} at "
                               f"{'.'.join(map(str, err['loc']))}", field="import") from None
        except (TrulyMemError, ValueError) as exc:
            raise InvalidInput(f"row {i} is not a valid {row['record']} record: {exc}", field="import") from None
    wanted = {n for _, f in facts for n in (f.subject_id, f.object_id)} - set(nodes)
    if wanted:
        nodes.update((n.id, n) for n in store.nodes(NodeQuery(scope=Scope.everyone(), ids=sorted(wanted))))
    for i, fact in facts:
        for end in (fact.subject_id, fact.object_id):
            end_node = nodes.get(end)
            if end_node is None:
                raise InvalidInput(f"row {i}: fact {fact.id} points at node {end}, which is neither in the "
                                   "file nor in the database", field="import")
            if end_node.user_id != fact.user_id:
                raise InvalidInput(f"row {i}: fact {fact.id} of user {fact.user_id!r} points at a node of "
                                   f"another user", field="import")


def _ids(user_id: str, agent_id: str | None, app_id: str | None) -> None:
    check_identifier(user_id, "user_id", required=True)
    check_identifier(agent_id, "agent_id")
    check_identifier(app_id, "app_id")
