"""tests/reliability/test_scoped_tools.py over PostgreSQL (its SQLite run is the original module)."""

from tests.reliability.test_scoped_tools import *  # noqa: F403

BACKENDS = ("postgres",)
