"""tests/test_message_text.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_message_text import *  # noqa: F403

BACKENDS = ("postgres",)
