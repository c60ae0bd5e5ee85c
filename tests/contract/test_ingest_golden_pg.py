"""tests/test_ingest_golden.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_ingest_golden import *  # noqa: F403

BACKENDS = ("postgres",)
