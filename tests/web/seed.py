"""Memories to look at: facts written days apart (for the time slider), one corrected value,
duplicates and a contradiction for the dream, a task, and a conversation's message."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from trulymem import TrulyMem


def note(text: str, type_: str) -> dict[str, Any]:
    return {"subject": "user", "relation": "memory", "object": text, "type": type_}


class DaysAgo:
    """A clock set some days back that ticks a millisecond a call; ``at(days)`` moves it."""

    def __init__(self, days: float) -> None:
        self.at(days)

    def at(self, days: float) -> None:
        self.t = datetime.now(UTC) - timedelta(days=days)

    def __call__(self) -> datetime:
        self.t += timedelta(milliseconds=1)
        return self.t


def seed(db: Path, user: str = "default") -> None:
    clock = DaysAgo(10)
    with TrulyMem(db, user_id=user, clock=clock, embedder="hashing") as mem:
        mem.commit([{"subject": "user", "relation": "lives_in", "object": "Lisbon"},
                    {"subject": "user", "relation": "likes", "object": "rock"},
                    note("Always use tabs", "style")])
        clock.at(1)
        mem.commit([{"subject": "user", "relation": "lives_in", "object": "Porto"},
                    {"subject": "user", "relation": "works_at", "object": "Acme"},
                    note("Never use tabs", "style"),
                    note("I prefer dark mode in every editor", "pref"), note("Prefers dark mode in editors", "pref")],
                   supersede=True)
        mem.run("memory_ingest", {"messages": [{"speaker": "user", "text": "I play the cello", "id": "m-cello"}]})
        mem.commit([{"subject": "user", "relation": "plays", "object": "cello"}], message_ids=["m-cello"],
                   turn_id="m-cello")
        mem.run("task_create", {"task_id": "Plan the trip", "description": "Book the Porto trip"})


def create_key(db: Path, user: str | None) -> str:
    """A user's key, or an admin key (``user=None``), made as a user would: ``trulymem keys create``."""
    who = ["--user", user] if user else ["--admin"]
    out = subprocess.run([sys.executable, "-m", "trulymem", "keys", "create", *who, "--db", str(db), "--json"],
                         capture_output=True, text=True, check=True)
    return str(json.loads(out.stdout)["token"])


def add_tasks(db: Path, user: str = "default") -> None:
    """A task begun 8 days ago and paused 3 days ago, beside the seed's task of yesterday."""
    clock = DaysAgo(8)
    with TrulyMem(db, user_id=user, clock=clock, embedder="hashing") as mem:
        mem.task_create("Task_old", "Learn the cello")
        clock.at(3)
        mem.task_set_state("Task_old", "paused")
