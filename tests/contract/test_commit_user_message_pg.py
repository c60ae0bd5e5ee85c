"""tests/test_commit_user_message.py over PostgreSQL: the library call, the MCP stdio
client and the HTTP server on a real PostgreSQL (its SQLite run is the original module)."""

from tests.test_commit_user_message import *  # noqa: F403

BACKENDS = ("postgres",)
