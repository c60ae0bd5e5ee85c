"""tests/test_scope.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_scope import *  # noqa: F403

BACKENDS = ("postgres",)
