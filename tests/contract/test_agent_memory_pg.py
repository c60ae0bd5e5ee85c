"""tests/test_agent_memory.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_agent_memory import *  # noqa: F403

BACKENDS = ("postgres",)
