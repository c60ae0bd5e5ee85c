"""mem0-style memory filters: ``{"AND": [...]}``, ``{"OR": [...]}``, ``{"NOT": {...}}``
and leaves ``{"field": value}`` or ``{"field": {"<op>": value}}`` with ops
``eq ne gt gte lt lte in nin contains icontains``.

Fields are a memory item's (``user_id``, ``agent_id``, ``app_id``, ``run_id``,
``type``, ``memory``, ``created_at``, …) or its metadata (``metadata.key``,
``{"metadata": {"key": value}}`` or a bare ``key`` that is not an item field);
``metadata.type`` / ``pinned`` / ``confidence`` / ``speculation`` read the memory's own
fields, as mem0-shaped answers show them. ``keywords`` (mem0's platform) is the memory's
text, a plain value matched as a case-insensitive substring, as the platform does.
``memory_ids`` (the platform's) takes a list of public ids. ``{"field": "*"}`` (mem0's
wildcard) matches a memory where the field is set, as the platform documents; with
``Env(wildcard_any=True)``, on a metadata key it matches every memory, as mem0's
open-source ``Memory`` does over its default vector store (an entity id's wildcard still
means "set": a delete by ``{"agent_id": "*"}`` never reaches the user's other
memories). A delete never takes ``wildcard_any``: it is never wider than asked.
``categories`` is refused: trulymem does not categorise memories.
``id`` and ``score`` are refused: a memory's public id is its first version's, and a
listing has no score. Bad filters are one ``InvalidInput`` naming the offending path;
filters over the caps of ``trulymem.limits`` (conditions, nesting, characters) are
refused before anything is read: a filter is never ignored, in part or whole.

Evaluation is built to stay cheap at the caps: each item's field values (and their
case-folded forms) are read once whatever the number of conditions on them, and the
conditions of an ``OR`` on one field (``contains``, ``icontains``, ``eq``/``in``)
become one test: a set lookup, or one pass over the needles.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from trulymem.errors import InvalidInput
from trulymem.limits import LIMITS, Limits, shown
from trulymem.memories import MemoryItem, metadata_value
from trulymem.model import as_utc

OPS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains")
SCOPE_FIELDS = ("user_id", "agent_id", "app_id")
_ITEM_FIELDS = set(MemoryItem.model_fields)
_TIME_FIELDS = {"created_at", "updated_at"}
_ALIASES = {"keywords": "memory"}  # mem0 platform's name for a memory's text
_REFUSED = {"id": "a memory's id is its first version's: filter on memory_ids, or get, update or delete it by id",
            "score": "a listing has no score: use search's threshold",
            "categories": "trulymem does not categorise memories: filter on a metadata key you set when adding"}
MEMORY_IDS = "memory_ids"
WILDCARD = "*"  # mem0's {"field": "*"}: the field is set
MAX_DEPTH = LIMITS.filter_depth
Predicate = Callable[[MemoryItem], bool]


@dataclass(frozen=True)
class Env:
    """What a filter's evaluation depends on beyond the filter: ``resolve`` maps public
    memory ids to the stored ids of those memories' current versions (``trulymem.mem0.ops``);
    ``wildcard_any`` makes ``"*"`` on a metadata key match every memory instead of those
    where the key is set."""

    resolve: Callable[[list[str]], set[str]] | None = None
    wildcard_any: bool = False


PLATFORM = Env()


_UNSET: Any = object()


class _Row:
    """One item as the conditions see it: each field read, and case-folded, at most once."""

    __slots__ = ("item", "values", "folded")

    def __init__(self, item: MemoryItem) -> None:
        self.item = item
        self.values: dict[str, Any] = {}
        self.folded: dict[str, str | None] = {}

    def get(self, field: str) -> Any:
        value = self.values.get(field, _UNSET)
        if value is _UNSET:
            value = self.values[field] = _value(self.item, field)
        return value

    def fold(self, field: str) -> str | None:
        out = self.folded.get(field, _UNSET)
        if out is _UNSET:
            h = self.get(field)
            out = self.folded[field] = h.casefold() if isinstance(h, str) else None
        return out if isinstance(out, str) else None


Test = Callable[[_Row], bool]


def _value(item: MemoryItem, field: str) -> Any:
    if field.startswith("metadata."):
        return metadata_value(item, field.removeprefix("metadata."))
    field = _ALIASES.get(field, field)
    if field in _ITEM_FIELDS:
        return getattr(item, field)
    return item.metadata.get(field)


# --- the caps ----------------------------------------------------------------------------

@dataclass
class _Size:
    conditions: int = 0
    chars: int = 0


def _json_chars(value: Any, path: str, depth: int, limits: Limits) -> int:
    """Characters a JSON value stands for; refuses what is not JSON data."""
    if isinstance(value, str):
        return len(value)
    if value is None or isinstance(value, bool):
        return 4
    if isinstance(value, int):
        return value.bit_length() // 3 + 1  # never str(): 5,000-digit integers are refused by it
    if isinstance(value, float):
        return 8
    if depth > limits.filter_depth:
        raise InvalidInput(f"filters nest deeper than {limits.filter_depth} levels", field="filters")
    if isinstance(value, list | tuple):
        return sum(_json_chars(v, path, depth + 1, limits) for v in value) + len(value)
    if isinstance(value, dict):
        return sum(_json_chars(k, path, depth + 1, limits) + _json_chars(v, path, depth + 1, limits)
                   for k, v in value.items())
    raise InvalidInput(f"holds a {type(value).__name__}; filters are JSON data", field=path)


def _measure(spec: Any, path: str, depth: int, size: _Size, limits: Limits) -> None:
    if depth > limits.filter_depth:
        raise InvalidInput(f"filters nest deeper than {limits.filter_depth} levels", field="filters")
    if not isinstance(spec, dict):
        raise InvalidInput("must be an object", field=path)
    for key, value in spec.items():
        if not isinstance(key, str):
            raise InvalidInput("field names must be strings", field=path)
        size.chars += len(key)
        here = f"{path}.{key}"
        if key.upper() in ("AND", "OR", "NOT") and isinstance(value, list | dict):
            for i, sub in enumerate(value if isinstance(value, list) else [value]):
                _measure(sub, f"{here}.{i}" if isinstance(value, list) else here, depth + 1, size, limits)
        else:
            size.conditions += _conditions(key, value)
            size.chars += _json_chars(value, here, depth + 1, limits)
        if size.conditions > limits.filter_conditions:
            raise InvalidInput(f"filters have more than {limits.filter_conditions} conditions; narrow them or "
                               "list with fewer", field="filters")
        if size.chars > limits.filter_chars:
            raise InvalidInput(f"filters are longer than {limits.filter_chars} characters", field="filters")


def _conditions(key: str, value: Any) -> int:
    """Conditions a field's entry stands for: each operator of an operator object, each key
    of a ``metadata`` object (and each operator of its operator objects)."""
    if _is_metadata_object(key, value):
        return sum(_conditions("", v) for v in value.values())
    return len(value) if isinstance(value, dict) and value else 1


def _is_metadata_object(key: str, value: Any) -> bool:
    """``{"metadata": {"key": value, ...}}``: conditions on metadata keys, not operators."""
    return key == "metadata" and isinstance(value, dict) and bool(value) and not set(value) & set(OPS)


def check_filter(spec: Any, limits: Limits = LIMITS) -> None:
    """Refuse a filter over the caps (conditions, nesting, characters) with ``InvalidInput``."""
    if spec is not None:
        _measure(spec, "filters", 0, _Size(), limits)


# --- compiling -----------------------------------------------------------------------------

def _as_time(want: Any, path: str) -> Any:
    """A time field compares with ISO date-times (naive ones are UTC)."""
    if not isinstance(want, str):
        raise InvalidInput(f"takes an ISO date-time, not {shown(want)}", field=path)
    try:
        return as_utc(datetime.fromisoformat(want.replace("Z", "+00:00")))
    except ValueError:
        raise InvalidInput(f"{shown(want)} is not an ISO date-time", field=path) from None


def _wants(field: str, want: Any, path: str) -> Any:
    if field in _TIME_FIELDS:
        return [_as_time(w, path) for w in want] if isinstance(want, list) else _as_time(want, path)
    return want


def _member(wants: list[Any]) -> Callable[[Any], bool]:
    """``h in wants`` by a set where the values allow it."""
    if all(isinstance(w, Hashable) for w in wants):
        pool = frozenset(wants)

        def test(h: Any) -> bool:
            try:
                return h in pool
            except TypeError:  # an unhashable value (a list or object in metadata) equals no hashable one
                return False
        return test
    return lambda h: any(h == w for w in wants)


def _order(cmp: Callable[[Any, Any], bool], want: Any) -> Callable[[Any], bool]:
    def test(h: Any) -> bool:
        if h is None:
            return False
        try:
            return cmp(h, want)
        except TypeError:  # values of different kinds are not ordered: no match
            return False
    return test


def _op(op: str, want: Any, path: str) -> Callable[[Any], bool]:
    if op in ("in", "nin") and not isinstance(want, list):
        raise InvalidInput(f"'{op}' takes a list", field=path)
    if op in ("contains", "icontains") and not isinstance(want, str):
        raise InvalidInput(f"'{op}' takes a string", field=path)
    if op == "eq":
        return _member([want])
    if op == "ne":
        same = _member([want])
        return lambda h: not same(h)
    if op == "in":
        return _member(want)
    if op == "nin":
        inside = _member(want)
        return lambda h: not inside(h)
    if op == "contains":
        return lambda h: isinstance(h, str | list) and want in h
    if isinstance(want, bool) or not isinstance(want, int | float | str | datetime):
        raise InvalidInput(f"'{op}' takes a number, a string or a date-time, not {shown(want)}", field=path)
    return {"gt": _order(lambda a, b: a > b, want), "gte": _order(lambda a, b: a >= b, want),
            "lt": _order(lambda a, b: a < b, want), "lte": _order(lambda a, b: a <= b, want)}[op]


def _leaf(field: str, op: str, want: Any, path: str) -> Test:
    if op not in OPS:
        raise InvalidInput(f"unknown operator {shown(op)}; known: {', '.join(OPS)}", field=path)
    if op == "icontains":
        if not isinstance(want, str):
            raise InvalidInput("'icontains' takes a string", field=path)
        needle = want.casefold()

        def folded(row: _Row) -> bool:
            h = row.fold(field)
            return h is not None and needle in h
        return folded
    test = _op(op, want if op == "contains" else _wants(field, want, path), path)
    return lambda row: test(row.get(field))


def _single_leaf(spec: Any) -> tuple[str, str, Any] | None:
    """``(field, op, want)`` when ``spec`` is one plain condition an ``OR`` can pool."""
    if not isinstance(spec, dict) or len(spec) != 1:
        return None
    ((field, value),) = spec.items()
    if field.upper() in ("AND", "OR", "NOT") or value == WILDCARD or field in _REFUSED or field == MEMORY_IDS \
            or (field == "keywords" and not isinstance(value, dict)):
        return None
    if not isinstance(value, dict):
        return field, "eq", value
    if len(value) != 1:
        return None
    ((op, want),) = value.items()
    if op in ("contains", "icontains") and isinstance(want, str):
        return field, op, want
    if op == "eq" or (op == "in" and isinstance(want, list)):
        return field, op, want
    return None


def _any_of(subs: list[Any], path: str, env: Env) -> Test:
    pools: dict[tuple[str, str], list[Any]] = {}
    tests: list[Test] = []
    for i, sub in enumerate(subs):
        leaf = _single_leaf(sub)
        if leaf is None:
            tests.append(_compile(sub, f"{path}.{i}", env))
            continue
        field, op, want = leaf
        where = f"{path}.{i}.{field}"
        key = (field, "eq" if op == "in" else op)
        if op == "in":
            pools.setdefault(key, []).extend(_wants(field, want, where))
        elif op == "eq":
            pools.setdefault(key, []).append(_wants(field, want, where))
        else:
            pools.setdefault(key, []).append(want.casefold() if op == "icontains" else want)
    for (field, op), wants in pools.items():
        tests.insert(0, _pooled(field, op, wants))
    return lambda row: any(t(row) for t in tests)


def _pooled(field: str, op: str, wants: list[Any]) -> Test:
    if op == "icontains":
        def folded(row: _Row) -> bool:
            h = row.fold(field)
            return h is not None and any(w in h for w in wants)
        return folded
    if op == "contains":
        def contains(row: _Row) -> bool:
            h = row.get(field)
            return isinstance(h, str | list) and any(w in h for w in wants)
        return contains
    member = _member(wants)
    return lambda row: member(row.get(field))


def _compile(spec: Any, path: str, env: Env) -> Test:
    if not isinstance(spec, dict):
        raise InvalidInput("must be an object", field=path)
    if not spec and path != "filters":  # inside AND/OR/NOT an empty filter would match every memory
        raise InvalidInput("is an empty filter, which matches every memory: leave it out", field=path)
    parts: list[Test] = []
    for key, value in spec.items():
        here = f"{path}.{key}"
        upper = key.upper()
        if upper in ("AND", "OR"):
            if not isinstance(value, list) or not value:
                raise InvalidInput(f"'{key}' takes a non-empty list of filters", field=here)
            if upper == "OR":
                parts.append(_any_of(value, here, env))
            else:
                subs = [_compile(v, f"{here}.{i}", env) for i, v in enumerate(value)]
                parts.append((lambda s: lambda row: all(p(row) for p in s))(subs))
        elif upper == "NOT":
            if isinstance(value, list) and value:
                sub = _any_of(value, here, env)
            elif isinstance(value, dict):
                sub = _compile(value, here, env)
            else:
                raise InvalidInput("'NOT' takes a filter or a list of filters", field=here)
            parts.append((lambda p: lambda row: not p(row))(sub))
        elif key == "metadata" and not isinstance(value, dict):
            raise InvalidInput("takes an object of metadata keys and their values", field=here)
        elif _is_metadata_object(key, value):
            parts += [t for k, v in value.items() for t in _field(f"metadata.{k}", v, f"{here}.{k}", env)]
        else:
            parts += _field(key, value, here, env)
    if len(parts) == 1:
        return parts[0]
    return lambda row: all(p(row) for p in parts)


def _field(field: str, value: Any, here: str, env: Env) -> list[Test]:
    """The tests of one field's entry: an operator object, the wildcard or a value."""
    if field in _REFUSED:
        raise InvalidInput(f"cannot be filtered on: {_REFUSED[field]}", field=here)
    if field == MEMORY_IDS:
        return [_memory_ids(value, here, env)]
    if field in (*SCOPE_FIELDS, "run_id") and isinstance(value, str) and not value.strip():
        raise InvalidInput("is empty: leave it out, or name one", field=here)
    if field == "keywords" and not isinstance(value, dict):
        return [_leaf(field, "icontains", value, here)]
    if isinstance(value, dict):
        if not value:
            raise InvalidInput("an operator object must not be empty", field=here)
        return [_leaf(field, op, want, f"{here}.{op}") for op, want in value.items()]
    if value == WILDCARD:
        if env.wildcard_any and field not in (*SCOPE_FIELDS, "run_id"):
            return [lambda row: True]
        return [lambda row: row.get(field) is not None]
    return [_leaf(field, "eq", value, here)]


def _memory_ids(value: Any, here: str, env: Env) -> Test:
    if isinstance(value, dict) and set(value) == {"in"}:
        value = value["in"]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise InvalidInput("takes a non-empty list of memory ids", field=here)
    if env.resolve is None:
        raise InvalidInput("is not available here: only mem0's memory calls know memory ids", field=here)
    pool = env.resolve(value)
    return lambda row: row.item.id in pool


def compile_filter(spec: Any, limits: Limits = LIMITS, env: Env = PLATFORM) -> Predicate:
    """A predicate over memory items; raises ``InvalidInput`` for malformed filters and
    for filters over ``limits``. ``env``: see ``Env``."""
    if spec is None:
        return lambda _: True
    check_filter(spec, limits)
    test = _compile(spec, "filters", env)
    return lambda item: test(_Row(item))


def scope_of(spec: Any, _depth: int = 0) -> dict[str, str]:
    """``user_id``/``agent_id``/``app_id`` equalities that every match must satisfy (the
    top level and top-level ``AND``s): used to read only that part of the store."""
    out: dict[str, str] = {}
    if not isinstance(spec, dict) or _depth > MAX_DEPTH:
        return out
    for key, value in spec.items():
        if key in SCOPE_FIELDS and isinstance(value, str) and value != WILDCARD:
            out[key] = value
        elif key in SCOPE_FIELDS and isinstance(value, dict) and set(value) == {"eq"} and isinstance(value["eq"], str):
            out[key] = value["eq"]
        elif isinstance(key, str) and key.upper() == "AND" and isinstance(value, list):
            for sub in value:
                for k, v in scope_of(sub, _depth + 1).items():
                    out.setdefault(k, v)
    return out


def users_of(spec: Any) -> list[str] | None:
    """The users a filter confines its matches to when it names several: a top-level (or
    top-level ``AND``'s) ``OR`` whose every branch names one ``user_id``, or ``user_id``
    ``in`` a list. ``None`` when it does not confine them so."""
    if not isinstance(spec, dict):
        return None
    for key, value in spec.items():
        if key == "user_id" and isinstance(value, dict) and set(value) == {"in"} and isinstance(value["in"], list) \
                and value["in"] and all(isinstance(u, str) and u != WILDCARD for u in value["in"]):
            return list(dict.fromkeys(value["in"]))
        if isinstance(key, str) and key.upper() == "OR" and isinstance(value, list) and value:
            named = [scope_of(sub).get("user_id") for sub in value]
            if all(named):
                return list(dict.fromkeys(u for u in named if u))
        if isinstance(key, str) and key.upper() == "AND" and isinstance(value, list):
            for sub in value:
                found = users_of(sub)
                if found:
                    return found
    return None


def user_conditions(spec: Any, depth: int = 0) -> Iterator[Any]:
    """Each ``user_id`` condition anywhere in a filter (``"bob"``, ``{"in": [...]}``, ``"*"``).
    Read before the filter is validated (whose memories it may touch), so it bounds depth too."""
    if depth > 2 * MAX_DEPTH + 4 and isinstance(spec, dict | list):  # a level is a dict and a list, a leaf two more
        raise InvalidInput(f"filters nest deeper than {MAX_DEPTH} levels", field="filters")
    if isinstance(spec, dict):
        for k, v in spec.items():
            if k == "user_id":
                yield v
            yield from user_conditions(v, depth + 1)
    elif isinstance(spec, list):
        for v in spec:
            yield from user_conditions(v, depth + 1)


def mentions_user(spec: Any) -> bool:
    """Any ``user_id`` condition anywhere in a filter."""
    return any(True for _ in user_conditions(spec))


def names_other_user(spec: Any, own: str) -> bool:
    """Whether any ``user_id`` condition in a filter names a user other than ``own``."""
    return any(v != own and not (isinstance(v, dict) and v.get("eq") == own and len(v) == 1)
               for v in user_conditions(spec))


def and_filter(spec: Any, condition: dict[str, Any] | None) -> Any:
    """``spec`` with ``condition`` ANDed in (both must hold); either may be absent."""
    if condition is None:
        return spec
    return {"AND": [spec, condition]} if spec else condition


def with_run(spec: Any, run_id: Any) -> Any:
    """``spec`` narrowed to one run (mem0's ``run_id`` argument beside its filters)."""
    return and_filter(spec, None if run_id is None else {"run_id": run_id})
