"""tests/test_dream.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_dream import *  # noqa: F403

BACKENDS = ("postgres",)
