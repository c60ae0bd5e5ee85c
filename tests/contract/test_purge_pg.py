"""tests/test_purge.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_purge import *  # noqa: F403

BACKENDS = ("postgres",)
