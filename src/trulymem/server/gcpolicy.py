"""The long-lived server's garbage-collection policy (``trulymem serve --gc``).

A served process holds ~110k long-lived Python objects once its app is built (FastAPI,
pydantic models, the MCP server, imported modules) and each request allocates and frees
thousands more. Python's full collections walk every long-lived object; freezing what
start-up made (``gc.freeze()``) moves it out of the collector's sight, so a full collection
walks only what requests left behind. Only the serving process applies it: library calls
never change the collector's settings (a bulk tool call pauses it for its own duration only).
"""

from __future__ import annotations

import gc
from dataclasses import dataclass

from trulymem.errors import ConfigError

ENV = "TRULYMEM_SERVE_GC"
CHOICES = ("freeze", "python")
# Freezing halves the collector's CPU and removes a ~90 ms full collection, but moved neither the
# HTTP bench's p95 nor its throughput (docs/benchmarks.md): opt-in.
DEFAULT_POLICY = "python"
_MAX_THRESHOLD = 2**31 - 1  # gc.set_threshold takes C ints: larger would fail after start-up


@dataclass(frozen=True)
class GCPolicy:
    """``freeze``: freeze what start-up made; ``threshold``: ``gc.set_threshold`` values, or Python's own."""

    freeze: bool = False
    threshold: tuple[int, ...] | None = None


def parse_policy(text: str) -> GCPolicy:
    """``python`` (default: leave the collector as Python sets it) or ``freeze``, optionally
    followed by ``:T0[,T1[,T2]]`` collection thresholds (``freeze:10000,20,20``)."""
    name, colon, thresholds = text.strip().lower().partition(":")
    if name not in CHOICES:
        raise ConfigError(f"unknown GC policy {text!r}: expected one of {', '.join(CHOICES)}, "
                          "optionally followed by :T0[,T1[,T2]]", field="gc")
    threshold = None
    if colon:
        try:
            threshold = tuple(int(t) for t in thresholds.split(","))
        except ValueError:
            threshold = ()
        if not 1 <= len(threshold) <= 3 or any(not 1 <= t <= _MAX_THRESHOLD for t in threshold):
            raise ConfigError(f"GC thresholds must be one to three integers from 1 to {_MAX_THRESHOLD}, "
                              f"not {thresholds!r}", field="gc")
    return GCPolicy(freeze=name == "freeze", threshold=threshold)


def apply_policy(policy: GCPolicy) -> str | None:
    """Apply ``policy`` to this process: call once, after the app is built and before serving.

    Returns what the collector now is, read back from ``gc`` (for the server's log), or ``None``
    for the default policy, which changes nothing."""
    if policy == GCPolicy():
        return None
    if policy.threshold is not None:
        gc.set_threshold(*policy.threshold)
    if policy.freeze:
        gc.collect()  # what start-up left as garbage is freed, not frozen
        gc.freeze()
    return f"GC thresholds {gc.get_threshold()}, {gc.get_freeze_count():,} start-up objects frozen"
