"""What the SQL backends share: JSON columns, optional ids, ``LIKE`` patterns, and the scope
and ``When`` clauses, written once over a ``Dialect`` (placeholder, literal true, how a
timestamp is bound)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from trulymem.model import Scope
from trulymem.store.base import When


@dataclass(frozen=True)
class Dialect:
    mark: str  # a bound parameter: "?" or "%s"
    true: str  # an always-true condition: "1" or "true"
    stamp: Callable[[datetime], Any]  # a timestamp as the driver binds it


def load_json(text: str) -> Any:
    # Most rows carry empty metadata: skip the JSON parser for them.
    if text == "{}":
        return {}
    if text == "[]":
        return []
    return json.loads(text)


def dump_json(value: dict[str, Any] | list[Any]) -> str:
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


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
