"""tests/test_tools.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_tools import *  # noqa: F403

BACKENDS = ("postgres",)
