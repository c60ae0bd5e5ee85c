"""tests/test_tasks.py over PostgreSQL (its SQLite run is the original module)."""

from tests.test_tasks import *  # noqa: F403

BACKENDS = ("postgres",)

del test_migration_repairs_a_forked_chain  # noqa: F821 - SQLite's migration 5; PostgreSQL's schema starts with the constraint
