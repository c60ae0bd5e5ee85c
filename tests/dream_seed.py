"""Memories that give the dream one of everything without a model: two merges (values
normalised; case and punctuation), two pairs to review (one of them found only by the
dream's sentence encoder, not by recall's hashing embedder), a conflict and two stale
session notes (written 120 days ago)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.conftest import Clock
from trulymem import TrulyMem

MERGES = (("Standup is at 02:00 UTC", "Standup is at 2am UTC"),
          ("Always run the linter before pushing", "always run the linter before pushing."))
REVIEWS = (("Use PostgreSQL for auth", "Auth DB is PostgreSQL"),
           ("Meetings should be short", "Keep meetings brief"))  # alike to the sentence encoder only
CONFLICT = ("Deploy to ECS", "Deploy to Vercel")
STALE = ("scratch notes about the login bug", "temp notes on the flaky CI job")
TYPES = {MERGES[0]: "process", MERGES[1]: "process", REVIEWS[0]: "decision", REVIEWS[1]: "process",
         CONFLICT: "decision"}


def note(text: str, type_: str) -> dict[str, Any]:
    return {"subject": "user", "relation": "memory", "object": text, "type": type_}


def seed_dream(db: Path, user: str) -> None:
    clock = Clock(datetime.now(UTC) - timedelta(days=120))
    with TrulyMem(db, user_id=user, clock=clock, embedder="hashing") as mem:
        mem.commit([note(t, "session_state") for t in STALE])
        clock.t = datetime.now(UTC) - timedelta(days=2)
        mem.commit([note(pair[0], kind) for pair, kind in TYPES.items()])
        clock.t = datetime.now(UTC) - timedelta(days=1)
        # the second of each pair beside the first, as an import or another tool would leave it
        mem.commit([note(pair[1], kind) for pair, kind in TYPES.items()], supersede=False)
