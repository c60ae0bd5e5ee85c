"""tests/test_mem0_switch.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_mem0_switch import *  # noqa: F403

BACKENDS = ("postgres",)
