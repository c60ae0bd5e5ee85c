"""tests/reliability/test_dream_stall.py over PostgreSQL (its SQLite run is the original module)."""

from tests.reliability.test_dream_stall import *  # noqa: F403

BACKENDS = ("postgres",)
