"""tests/test_transfer.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_transfer import *  # noqa: F403

BACKENDS = ("postgres",)
