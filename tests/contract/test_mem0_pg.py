"""tests/test_mem0.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_mem0 import *  # noqa: F403

BACKENDS = ("postgres",)
