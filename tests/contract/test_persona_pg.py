"""tests/test_persona.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_persona import *  # noqa: F403

BACKENDS = ("postgres",)
