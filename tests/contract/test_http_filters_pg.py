"""tests/test_http_filters.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_http_filters import *  # noqa: F403

BACKENDS = ("postgres",)
