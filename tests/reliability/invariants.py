"""What must hold of any trulymem database, whatever crashed or raced while it was written:
read straight from the file, so a bug in the store's own reading cannot hide one."""

from __future__ import annotations

import sqlite3
from collections import Counter

from tests.reliability.chain import chain_problems
from trulymem.text import name_key


def store_problems(db: str) -> list[str]:
    """Every violation found: SQLite's own integrity and foreign-key checks, a fact both
    valid and superseded, a task without exactly one current state, two nodes of one
    namespace whose names fold to the same key, and a forked or broken task chain."""
    conn = sqlite3.connect(db)
    try:
        problems = [f"integrity: {row[0]}" for row in conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
        problems += [f"foreign key: {row}" for row in conn.execute("PRAGMA foreign_key_check")]
        problems += [f"fact {fid} is valid but superseded by {by}" for fid, by in conn.execute(
            "SELECT id, superseded_by FROM facts WHERE invalid_at IS NULL AND superseded_by IS NOT NULL")]
        problems += [f"task {name!r} of {user} has {n} current states" for name, user, n in conn.execute(
            "SELECT t.name, t.user_id, (SELECT count(*) FROM facts f WHERE f.subject_rid = t.rid "
            "AND f.kind = 'HAS_STATE' AND f.invalid_at IS NULL) AS n FROM nodes t WHERE t.type = 'TaskNode' AND n != 1")]
        folded = Counter((user, agent, app, name_key(name)) for user, agent, app, name in conn.execute(
            "SELECT user_id, agent_id, app_id, name FROM nodes"))
        problems += [f"{n} nodes named {key[3]!r} for {key[0]}" for key, n in folded.items() if n > 1]
    finally:
        conn.close()
    return problems + chain_problems(db)[1]
