"""tests/test_mem0_seams_client.py over PostgreSQL: mem0ai's own client against a
``trulymem serve`` on a real PostgreSQL (its SQLite run is the original module)."""

from tests.test_mem0_seams_client import *  # noqa: F403

BACKENDS = ("postgres",)
