"""What the SQL backends share: JSON columns, optional ids, ``LIKE`` patterns, the scope
and ``When`` clauses, and the fact and node query builders, written once over a ``Dialect``
(placeholder, literal true, how a timestamp and a list are bound, the storage-order column,
how a fact names its endpoint nodes). ``SQLReads`` runs them for both backends."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from trulymem.errors import Conflict, InvalidInput
from trulymem.model import Scope, from_json
from trulymem.store.base import When

T = TypeVar("T")

if TYPE_CHECKING:
    from trulymem.model import Fact, Node


Phrase = tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class TextSearch:
    """A backend's full-text search: its match expressions and the statements that use them."""

    match: Callable[[list[Phrase]], str | None]  # any of the phrases; None when there is none
    counts: str  # per match expression of a list (2nd param) in order, its matching nodes up to a cap (1st)
    rank: str  # (match, *{where} params, limit): matching nodes n in {where}, best first: id, score > 0
    newest: str  # (match, *{where} params, limit): matching nodes n in {where}, newest first: id
    facts: str  # (match, *{where}, *{when} params, limit): matching facts, newest first: the fact columns
    event_time: str  # nodes n's event time (metadata "time", ISO text in UTC)
    # optional, as ``facts`` when the match is common: (match, *{where}, *{when} params, cap) counts
    # matching facts up to the cap; more than ``queries.COMMON`` of them run ``facts_common`` instead
    fact_count: str | None = None
    facts_common: str | None = None
    # optional, ``fact_count`` and ``facts`` in one statement: (match, *{where}, *{when} params, cap,
    # limit): ``facts``' rows, each with the capped count last (no rows: none match)
    facts_counted: str | None = None


@dataclass(frozen=True, kw_only=True)
class Dialect:
    mark: str  # a bound parameter: "?" or "%s"
    true: str  # an always-true condition: "1" or "true"
    stamp: Callable[[datetime], Any]  # a timestamp as the driver binds it
    order: str  # the storage-order column of facts and nodes
    arrays: bool  # a list binds as one array (``= ANY``), not one mark per value
    # facts f whose {side} ("subject"/"object") is one of the nodes matching {ids} (a condition on id)
    endpoint: str
    endpoint_known_user: str  # with the scope's user known: f's column that holds the node id ('' if none)
    fact_node: str  # fact f touches node n on {side}
    vector_node: str  # vector v is node n's
    hint_user: bool  # "+x.user_id" where ids are given: SQLite then looks the ids up by their index
    fact_cols: str  # the columns fact_row reads: facts aliased f, their endpoints s and o
    fact_from: str  # facts f (joined to their endpoints s and o when fact_cols or endpoint_key need them)
    node_cols: str  # the columns node_row reads, nodes aliased n
    fact_row: Callable[[Sequence[Any]], Fact]
    node_row: Callable[[Sequence[Any]], Node]
    search: TextSearch
    # the key of fact f's endpoint node {alias} ("s" on side "subject", "o" on "object")
    endpoint_key: str = "{alias}.key"

    def scope(self, scope: Scope, alias: str) -> tuple[str, list[Any]]:
        return scope_sql(scope, alias, self)

    def when(self, when: When) -> tuple[str, list[Any]]:
        """SQL for ``When`` over facts aliased ``f``."""
        return when_sql(when, self)

    def list_param(self, values: Sequence[Any]) -> Any:
        """A list as one parameter: an array, or JSON text that json_each reads."""
        return list(values) if self.arrays else json.dumps(list(values), ensure_ascii=False)

    def any_of(self, col: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """``col`` is one of ``values`` (not empty)."""
        if self.arrays:
            return f"{col} = ANY({self.mark})", [list(values)]
        return f"{col} IN ({','.join([self.mark] * len(values))})", list(values)


def load_json(text: str) -> Any:
    # Most rows carry empty metadata: skip the JSON parser for them.
    if text == "{}":
        return {}
    if text == "[]":
        return []
    return json.loads(text)


_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True)  # what json.dumps would build per call


def dump_json(value: dict[str, Any] | list[Any]) -> str:
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    return _ENCODER.encode(value)


def opt(value: str) -> str | None:
    return value or None


def like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def scope_sql(scope: Scope, alias: str, d: Dialect) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for name in ("user_id", "agent_id", "app_id"):
        value = getattr(scope, name)
        if value is None and scope.exact and name != "user_id":
            value = ""  # the shared namespace is stored as ''
        if value is not None:
            clauses.append(f"{alias}.{name} = {d.mark}")
            params.append(value)
    return (" AND ".join(clauses) or d.true), params


def when_sql(when: When, d: Dialect) -> tuple[str, list[Any]]:
    """SQL for ``When`` over facts aliased ``f``."""
    clauses: list[str] = []
    params: list[Any] = []
    m = d.mark
    if when.as_of is not None:
        t = d.stamp(when.as_of)
        clauses.append(f"f.created_at <= {m}")  # nothing recorded later
        params.append(t)
        if when.validity != "all":
            clauses.append(f"f.valid_at <= {m} AND (f.invalid_at IS NULL OR f.invalid_at > {m})")
            params += [t, t]
    elif when.validity == "current":
        clauses.append("f.invalid_at IS NULL")
    elif when.validity == "invalid":
        clauses.append("f.invalid_at IS NOT NULL")
    if when.valid_from is not None:
        clauses.append(f"f.valid_at >= {m}")
        params.append(d.stamp(when.valid_from))
    if when.valid_to is not None:
        clauses.append(f"f.valid_at <= {m}")
        params.append(d.stamp(when.valid_to))
    return " AND ".join(clauses) or d.true, params


IMPORT_BATCH = 1000  # rows of one record type an import checks and writes together


def record_batches(rows: Sequence[dict[str, Any]]) -> Iterator[tuple[Any, list[dict[str, Any]]]]:
    """Consecutive import rows of one record type, at most ``IMPORT_BATCH`` at a time, in file
    order: an import then costs a few statements per thousand rows, not several per row."""
    batch: list[dict[str, Any]] = []
    kind: Any = None
    for row in rows:
        if batch and (row.get("record") != kind or len(batch) >= IMPORT_BATCH):
            yield kind, batch
            batch = []
        kind = row.get("record")
        batch.append(row)
    if batch:
        yield kind, batch


def import_batches(rows: Sequence[dict[str, Any]],
                   progress: Callable[[int], None] | None = None) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """``record_batches`` of known record types (an unknown one is refused, naming it), with
    ``progress`` told every thousand rows done."""
    done = 0
    for kind, batch in record_batches(rows):
        if kind not in ("user", "node", "fact"):
            raise InvalidInput(f"unknown record type {kind!r}", field="import")
        yield kind, batch
        if progress is not None and (done + len(batch)) // 1000 > done // 1000:
            progress((done + len(batch)) // 1000 * 1000)
        done += len(batch)


def records(cls: type[T], batch: list[dict[str, Any]]) -> list[T]:
    """Import rows as models (their ``record`` tag dropped)."""
    return [from_json(cls, {k: v for k, v in r.items() if k != "record"}) for r in batch]


def twin_node(user: str, name: str, node_id: str) -> Conflict:
    """An imported node that would stand beside a node of the same name (in the file or the database)."""
    return Conflict(f"user {user!r} already has a node {name!r} ({node_id}); a node of the file would duplicate "
                    "it — import into a database without this user", field="import")
