"""tests/test_import_batches.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_import_batches import *  # noqa: F403

BACKENDS = ("postgres",)
