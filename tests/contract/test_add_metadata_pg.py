"""tests/reliability/test_add_metadata.py over PostgreSQL (its SQLite run is the original module)."""

from tests.reliability.test_add_metadata import *  # noqa: F403

BACKENDS = ("postgres",)
