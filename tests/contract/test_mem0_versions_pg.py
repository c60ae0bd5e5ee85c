"""tests/test_mem0_versions.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_mem0_versions import *  # noqa: F403

BACKENDS = ("postgres",)
