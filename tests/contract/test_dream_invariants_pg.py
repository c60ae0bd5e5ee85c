"""tests/test_dream_invariants.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_dream_invariants import *  # noqa: F403

BACKENDS = ("postgres",)
