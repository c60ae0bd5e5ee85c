"""Complexity caps for input that costs work in proportion to its size, in one place.

They hold on every path — the Python API, ``call()``, HTTP and MCP — because every
path runs the same tools and ``trulymem.mem0.ops``. Input over a cap is refused
with one ``InvalidInput`` naming the field, before anything is read or written.

The defaults keep the worst allowed request cheap: a filter at every cap, over
6,000 memories, is evaluated in a fraction of a second (``bench/bench_limits.py``
measures it), while real filters — a few conditions, an ``in`` list of a few
hundred ids — stay far below them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    filter_conditions: int = 100
    """Field conditions in one mem0 filter (``{"type": {"in": [...]}}`` is one; every
    operator of a field's operator object counts)."""
    filter_depth: int = 8
    """Nesting of ``AND``/``OR``/``NOT`` in one filter."""
    filter_chars: int = 16_000
    """Characters of one filter's field names and values (list items included)."""
    search_query_chars: int = 4_000
    """Characters of a ``search_memories`` / ``Memory.search`` query (the length of a memory)."""
    recall_query_chars: int = 1_000
    """Characters of a ``memory_recall`` ``query_intent`` (a list of intents, not a document)."""


LIMITS = Limits()
RECALL_LIMIT_MAX = 200  # most facts (and nodes) one memory_recall returns: the tool's bound, the bench's


SHOWN_CHARS = 60


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """A bad value as an error message shows it: quoted and cut to ``limit`` characters, so
    an error (and any log line made of it) never repeats a whole input, such as a memory's text."""
    if isinstance(value, str):
        return repr(value[:limit]) + ("…" if len(value) > limit else "")
    if isinstance(value, bool | float) or value is None or (isinstance(value, int) and value.bit_length() < 64):
        return repr(value)
    return f"a {type(value).__name__}"
