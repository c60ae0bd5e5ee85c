"""tests/test_recall.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_recall import *  # noqa: F403

BACKENDS = ("postgres",)
