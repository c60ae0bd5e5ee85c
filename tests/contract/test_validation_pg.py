"""tests/test_validation.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_validation import *  # noqa: F403

BACKENDS = ("postgres",)
