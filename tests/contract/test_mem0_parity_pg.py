"""tests/test_mem0_parity.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_mem0_parity import *  # noqa: F403

BACKENDS = ("postgres",)
