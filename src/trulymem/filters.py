"""mem0-style memory filters: ``{"AND": [...]}``, ``{"OR": [...]}``, ``{"NOT": {...}}``
and leaves ``{"field": value}`` or ``{"field": {"<op>": value}}`` with ops
``eq ne gt gte lt lte in nin contains icontains``.

Fields are a memory item's (``user_id``, ``agent_id``, ``app_id``, ``run_id``,
``type``, ``memory``, ``created_at``, …) or its metadata (``metadata.key`` or a
bare ``key`` that is not an item field). Bad filters are one ``InvalidInput``
naming the offending path.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from trulymem.errors import InvalidInput
from trulymem.memories import MemoryItem

OPS = ("eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains")
SCOPE_FIELDS = ("user_id", "agent_id", "app_id")
_ITEM_FIELDS = set(MemoryItem.model_fields)
Predicate = Callable[[MemoryItem], bool]


def _value(item: MemoryItem, field: str) -> Any:
    if field.startswith("metadata."):
        return item.metadata.get(field.removeprefix("metadata."))
    if field in _ITEM_FIELDS:
        return getattr(item, field)
    return item.metadata.get(field)


def _comparable(a: Any, b: Any) -> tuple[Any, Any]:
    if isinstance(a, datetime) and isinstance(b, str):
        try:
            b = datetime.fromisoformat(b.replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(f"{b!r} is not an ISO date-time", field="filters") from None
    return a, b


def _op(op: str, want: Any, path: str) -> Callable[[Any], bool]:
    if op in ("in", "nin") and not isinstance(want, list):
        raise InvalidInput(f"'{op}' takes a list", field=path)
    if op in ("contains", "icontains") and not isinstance(want, str):
        raise InvalidInput(f"'{op}' takes a string", field=path)

    def order(have: Any, cmp: Callable[[Any, Any], bool]) -> bool:
        if have is None:
            return False
        a, b = _comparable(have, want)
        try:
            return cmp(a, b)
        except TypeError:
            return False

    table: dict[str, Callable[[Any], bool]] = {
        "eq": lambda h: _comparable(h, want)[0] == _comparable(h, want)[1] if h is not None else want is None,
        "ne": lambda h: not (_comparable(h, want)[0] == _comparable(h, want)[1]) if h is not None else want is not None,
        "gt": lambda h: order(h, lambda a, b: a > b),
        "gte": lambda h: order(h, lambda a, b: a >= b),
        "lt": lambda h: order(h, lambda a, b: a < b),
        "lte": lambda h: order(h, lambda a, b: a <= b),
        "in": lambda h: h in want,
        "nin": lambda h: h not in want,
        "contains": lambda h: want in h if isinstance(h, str) else (want in h if isinstance(h, list) else False),
        "icontains": lambda h: isinstance(h, str) and want.casefold() in h.casefold(),
    }
    return table[op]


MAX_DEPTH = 16


def compile_filter(spec: Any, path: str = "filters") -> Predicate:
    """A predicate over memory items; raises ``InvalidInput`` for malformed filters."""
    if spec is None:
        return lambda _: True
    if path.count(".") > 2 * MAX_DEPTH:
        raise InvalidInput(f"filters nest deeper than {MAX_DEPTH} levels", field="filters")
    if not isinstance(spec, dict):
        raise InvalidInput("must be an object", field=path)
    parts: list[Predicate] = []
    for key, value in spec.items():
        here = f"{path}.{key}"
        upper = key.upper()
        if upper in ("AND", "OR"):
            if not isinstance(value, list) or not value:
                raise InvalidInput(f"'{key}' takes a non-empty list of filters", field=here)
            subs = [compile_filter(v, f"{here}.{i}") for i, v in enumerate(value)]
            parts.append((lambda s: lambda m: all(p(m) for p in s))(subs) if upper == "AND"
                         else (lambda s: lambda m: any(p(m) for p in s))(subs))
        elif upper == "NOT":
            sub = compile_filter(value, here) if isinstance(value, dict) else None
            if isinstance(value, list):
                subs = [compile_filter(v, f"{here}.{i}") for i, v in enumerate(value)]
                parts.append((lambda s: lambda m: not any(p(m) for p in s))(subs))
            elif sub is not None:
                parts.append((lambda p: lambda m: not p(m))(sub))
            else:
                raise InvalidInput("'NOT' takes a filter or a list of filters", field=here)
        elif isinstance(value, dict):
            if not value:
                raise InvalidInput("an operator object must not be empty", field=here)
            for op, want in value.items():
                if op not in OPS:
                    raise InvalidInput(f"unknown operator {op!r}; known: {', '.join(OPS)}", field=f"{here}.{op}")
                test = _op(op, want, f"{here}.{op}")
                parts.append((lambda f, t: lambda m: t(_value(m, f)))(key, test))
        else:
            test = _op("eq", value, here)
            parts.append((lambda f, t: lambda m: t(_value(m, f)))(key, test))
    return lambda m: all(p(m) for p in parts)


def scope_of(spec: Any, _depth: int = 0) -> dict[str, str]:
    """``user_id``/``agent_id``/``app_id`` equalities that every match must satisfy (the
    top level and top-level ``AND``s): used to read only that part of the store."""
    out: dict[str, str] = {}
    if not isinstance(spec, dict) or _depth > MAX_DEPTH:
        return out
    for key, value in spec.items():
        if key in SCOPE_FIELDS and isinstance(value, str):
            out[key] = value
        elif key in SCOPE_FIELDS and isinstance(value, dict) and set(value) == {"eq"} and isinstance(value["eq"], str):
            out[key] = value["eq"]
        elif key.upper() == "AND" and isinstance(value, list):
            for sub in value:
                for k, v in scope_of(sub, _depth + 1).items():
                    out.setdefault(k, v)
    return out
