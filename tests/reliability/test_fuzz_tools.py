"""Every tool's input, fuzzed through ``TrulyMem.call()``: arguments drawn from the tool's own
JSON schema (so most reach the tool's code) and then made hostile — wrong types, huge or
invalid strings, deep nesting, huge numbers, nulls, unknown and missing fields. Every
failure must be one of the project's typed errors, and a failed call must change nothing.
The strategies live in ``tests/reliability/fuzzing.py``, shared with the HTTP and MCP fuzzing.

``TRULYMEM_FUZZ_EXAMPLES`` sets the examples per tool (default 80: under a minute on a
small machine; the long benchmark run sets a few thousand).
"""

from __future__ import annotations

import os
import time

import pytest

from tests.reliability.fuzz_drivers import fuzz_library
from trulymem.tools import REGISTRY

pytestmark = pytest.mark.reliability

EXAMPLES = int(os.environ.get("TRULYMEM_FUZZ_EXAMPLES", "80"))


def test_every_tool_input_fuzzed_through_call() -> None:
    started = time.monotonic()
    tally = fuzz_library(EXAMPLES)
    print(f"\ncall(): {tally.summary()} in {time.monotonic() - started:.0f} s")
    assert set(tally.calls) == set(REGISTRY)
    assert (tally.untyped, tally.server_errors, tally.partial_writes) == (0, 0, 0), tally.problems
