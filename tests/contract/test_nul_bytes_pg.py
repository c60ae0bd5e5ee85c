"""tests/reliability/test_nul_bytes.py over PostgreSQL (its SQLite run is the original module)."""

from tests.reliability.test_nul_bytes import *  # noqa: F403

BACKENDS = ("postgres",)
