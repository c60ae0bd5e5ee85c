"""tests/test_dream_invariants.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_dream_invariants import *  # noqa: F403

BACKENDS = ("postgres",)

# minutes of sentence encoding, the same on every backend: its SQLite run covers it
del test_progress_is_reported_for_the_fetch_and_each_analysis_stage  # noqa: F821
