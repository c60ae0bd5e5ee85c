"""tests/test_commit.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_commit import *  # noqa: F403

BACKENDS = ("postgres",)
