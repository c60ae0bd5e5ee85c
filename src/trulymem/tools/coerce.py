"""What every tool input accepts besides its plain JSON shape, decoded before validation:

- an object or array field given as its JSON text (``'{"type": "decision"}'``): the MCP
  Inspector sends optional object/array arguments that way, and OpenAI strict schemas
  carry free-form objects (metadata, filters …) as strings (``trulymem.tools.schemas``);
- ``null`` for an optional field that is not nullable itself: its default (a strict
  schema makes every field required, so a model says "not given" with null).

Only fields that never take a string are decoded: a text that looks like JSON stays text.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Literal

from pydantic import BaseModel

from trulymem.errors import InvalidInput
from trulymem.store.nul import MESSAGE, NUL

# (field name, takes an object/array and never a string, takes None, required) per input model
_Plan = list[tuple[str, bool, bool, bool]]
_PLANS: dict[type[BaseModel], _Plan] = {}


def normalise(model: type[BaseModel], data: Any) -> Any:
    """``data`` (the raw input of ``model``) with JSON texts decoded and defaulted nulls dropped."""
    if not isinstance(data, dict):
        return data
    plan = _PLANS.get(model)
    if plan is None:
        plan = _PLANS[model] = [(name, *_kinds(f.annotation), f.is_required())
                                for name, f in model.model_fields.items()]
    out = data
    for name, structured, nullable, required in plan:
        if name not in data:
            continue
        value = data[name]
        if structured and isinstance(value, str):
            value = _decode(value, name)
        if value is None and not nullable and not required:
            out = {k: v for k, v in out.items() if k != name}  # leaving it out is what null means
            continue
        if value is not data[name]:
            out = {**out, name: value}
    return out


def _decode(text: str, field: str) -> Any:
    try:
        value = json.loads(text)
    except RecursionError:
        raise InvalidInput("is JSON text nested too deeply", field=field) from None
    except ValueError as exc:  # JSONDecodeError
        raise InvalidInput(f"must be a JSON object or array (or its JSON text); the string given is not valid "
                           f"JSON: {getattr(exc, 'msg', exc)}", field=field) from None
    check_unicode(value, [field])  # JSON escapes can spell a lone surrogate
    return value


def _kinds(annotation: Any) -> tuple[bool, bool]:
    """``(takes an object or array and never a string, takes None)`` for a field's type."""
    found: set[str] = set()
    _walk(annotation, found)
    return ("structured" in found and "text" not in found and "any" not in found), ("none" in found or "any" in found)


def _walk(tp: Any, found: set[str]) -> None:
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        _walk(typing.get_args(tp)[0], found)
    elif origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            _walk(arg, found)
    elif tp is Any:
        found.add("any")
    elif tp is type(None) or tp is None:
        found.add("none")
    elif origin is Literal:
        found.update("none" if v is None else "text" for v in typing.get_args(tp))
    elif origin in (dict, list, tuple, set, frozenset) or tp in (dict, list, tuple, set, frozenset) or (
            isinstance(tp, type) and issubclass(tp, BaseModel)):
        found.add("structured")
    else:  # str, numbers, enums, datetimes: scalars, given as text by some clients
        found.add("text")


def check_unicode(value: Any, path: list[str]) -> None:
    """``InvalidInput`` naming the first text in ``value`` that is not valid Unicode or
    holds a NUL character (see ``trulymem.store.nul``)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput("contains text that is not valid Unicode (a lone surrogate)",
                               field=".".join(path) or None) from None
        if NUL in value:
            raise InvalidInput(MESSAGE, field=".".join(path) or None)
    elif isinstance(value, dict):
        for k, v in value.items():
            check_unicode(k, path)
            check_unicode(v, [*path, str(k)])
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            check_unicode(v, [*path, str(i)])
