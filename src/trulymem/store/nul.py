"""No stored text holds a NUL character (U+0000), on any backend: PostgreSQL cannot store
one in a text column and SQLite can, so a database written with one could not move to
PostgreSQL (``trulymem migrate``), and the same request would answer differently on each.
Every path refuses it as ``InvalidInput``: the tools naming the field (``tools.coerce``),
the stores for whatever reaches them another way (a web route's id, an import)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from trulymem.errors import InvalidInput

NUL = "\x00"
MESSAGE = "contains a NUL character (U+0000), which no memory text may hold"


def nul_path(value: Any, path: tuple[str, ...] = ()) -> str | None:
    """The dotted path to the first text in ``value`` (keys too) holding a NUL, else ``None``
    (``""`` when ``value`` itself is that text)."""
    if isinstance(value, str):
        return ".".join(path) if NUL in value else None
    if isinstance(value, dict):
        for k, v in value.items():
            found = nul_path(k, path) if isinstance(k, str) else None
            found = found if found is not None else nul_path(v, (*path, str(k)))
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            found = nul_path(v, (*path, str(i)))
            if found is not None:
                return found
    return None


def refuse_nul(params: Sequence[Any]) -> None:
    """``InvalidInput`` when a statement's parameter is text holding a NUL."""
    for p in params:
        if type(p) is str and NUL in p:
            raise InvalidInput(MESSAGE)


def refuse_nul_rows(rows: Iterable[Sequence[Any]]) -> None:
    for row in rows:
        refuse_nul(row)
