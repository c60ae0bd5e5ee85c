"""tests/test_ingest.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_ingest import *  # noqa: F403

BACKENDS = ("postgres",)
