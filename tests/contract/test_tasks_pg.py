"""tests/test_tasks.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_tasks import *  # noqa: F403

BACKENDS = ("postgres",)
