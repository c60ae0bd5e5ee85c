"""tests/test_user_first.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_user_first import *  # noqa: F403

BACKENDS = ("postgres",)
