"""tests/test_limits.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_limits import *  # noqa: F403

BACKENDS = ("postgres",)
