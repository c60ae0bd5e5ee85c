"""tests/test_mem0_seams.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_mem0_seams import *  # noqa: F403

BACKENDS = ("postgres",)
