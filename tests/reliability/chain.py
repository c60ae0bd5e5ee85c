"""Invariant checks on a database's task chains, shared by the reliability tests."""

from __future__ import annotations

import sqlite3
from collections import Counter


def chain_problems(db: str) -> tuple[int, list[str]]:
    """``(tasks, problems)`` of every namespace's ``NEXT_TASK`` chain, read straight from the
    file: no task with two current successors or predecessors, and each namespace's tasks one line."""
    conn = sqlite3.connect(db)
    try:
        tasks = conn.execute("SELECT rid, user_id, agent_id, app_id, name FROM nodes WHERE type = 'TaskNode'").fetchall()
        links = conn.execute("SELECT subject_rid, object_rid FROM facts "
                             "WHERE kind = 'NEXT_TASK' AND invalid_at IS NULL").fetchall()
    finally:
        conn.close()
    problems: list[str] = []
    names = {t[0]: t[4] for t in tasks}
    for what, counts in (("successors", Counter(s for s, _ in links)), ("predecessors", Counter(o for _, o in links))):
        problems += [f"{names.get(rid, rid)} has {n} {what}" for rid, n in counts.items() if n > 1]
    nxt = dict(links)
    has_prev = {o for _, o in links}
    spaces: dict[tuple[str, str, str], set[int]] = {}
    for rid, *space, _ in tasks:
        spaces.setdefault(tuple(space), set()).add(rid)  # type: ignore[arg-type]
    for space, rids in spaces.items():
        starts = [r for r in rids if r not in has_prev]
        if len(starts) != 1:
            problems.append(f"{space}: {len(starts)} chain starts, not 1")
            continue
        seen, at = [starts[0]], starts[0]
        while at in nxt and len(seen) <= len(rids):
            at = nxt[at]
            seen.append(at)
        if set(seen) != rids:
            problems.append(f"{space}: the line from the start reaches {len(seen)} of {len(rids)} tasks")
    return len(tasks), problems
