"""LoCoMo evidence recall, ablations, latency and ingest throughput.

    python bench/bench_locomo.py ../shared/bench/locomo/locomo-dev.json [--embedder auto] [--json]

Same as ``trulymem bench locomo PATH``; prints figures, asserts nothing.
"""

from __future__ import annotations

import sys

from trulymem.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "locomo", *sys.argv[1:]]))
