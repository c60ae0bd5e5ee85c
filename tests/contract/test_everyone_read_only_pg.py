"""tests/test_everyone_read_only.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_everyone_read_only import *  # noqa: F403

BACKENDS = ("postgres",)
