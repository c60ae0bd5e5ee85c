"""Facts a chat model extracts while ingesting are committed in batches (runs of one
session in which no triple or slot repeats) and store exactly what committing them one by
one stored: the same rows, supersessions and reinforcements, in the same order."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.test_ingest_golden import normalised_export
from trulymem import TrulyMem
from trulymem.llm import ScriptedLLM
from trulymem.tools import ToolContext, get_tool, run_tool
from trulymem.tools.commit import TripletIn, commit_triplets

NOW = datetime(2025, 6, 1, 9, 0, tzinfo=UTC)
MESSAGES = [
    {"speaker": "Ada", "text": "I moved to Paris and I like rock.", "id": "A:1", "session": "s1",
     "timestamp": "2024-01-01T10:00:00"},
    {"speaker": "Ben", "text": "Ada moved to London last month, she dislikes rock now.", "id": "A:2", "session": "s1",
     "timestamp": "2024-01-01T10:01:00"},
    {"speaker": "Ada", "text": "Back in Paris! And I like rock again. I met Cleo.", "id": "B:1", "session": "s2",
     "timestamp": "2024-02-01T10:00:00"},
    {"speaker": "Ada", "text": "Cleo and I met again; my favorite color is green.", "id": "B:2", "session": "s2",
     "timestamp": "2024-02-01T10:05:00"},
    {"speaker": "Ben", "text": "Ada's favorite color is blue, I think.", "session": "s2",
     "timestamp": "2024-02-01T10:06:00"},
]
# Slots changed back and forth, a preference flipped twice, a repeated triple, a guess.
FACTS = [
    (0, "Ada", "lives_in", "Paris"), (0, "Ada", "likes", "rock"),
    (1, "Ada", "lives_in", "London"), (1, "Ada", "dislikes", "rock"),
    (2, "Ada", "lives_in", "Paris"), (2, "Ada", "likes", "rock"), (2, "Ada", "met", "Cleo"),
    (3, "Ada", "met", "Cleo"), (3, "Ada", "favorite_color", "green"), (3, "Cleo", "knows", "Ada"),
    (4, "[speculation] Ada", "favorite_color", "blue"), (4, "Ada", "favorite_color", "blue"),
]


def _ctx(mem: TrulyMem, reply: str | None = None) -> ToolContext:
    return ToolContext(store=mem.store, scope=mem.scope, now=NOW, embedder=mem.embedder,
                       llm=ScriptedLLM([reply]) if reply is not None else None)


def _reply() -> str:
    return json.dumps([{"message": i, "subject": s, "relation": r, "object": o} for i, s, r, o in FACTS])


def _one_by_one(mem: TrulyMem) -> None:
    """What ingest did before its extracted facts were batched: one commit per fact."""
    ctx = _ctx(mem)
    run_tool(get_tool("memory_ingest"), ctx, {"messages": MESSAGES})
    with mem.store.transaction():
        for i, s, r, o in FACTS:
            m: dict[str, Any] = MESSAGES[i]
            turn = ctx.beside(ctx.scope.agent_id, ctx.scope.app_id)
            turn.scope = turn.scope.replace(session_id=m["session"])
            t = TripletIn(subject=s, relation=r, object=o, source="llm-extract", valid_at=m["timestamp"])
            mid = m.get("id")
            commit_triplets(turn, [t], turn_id=mid, message_ids=[mid] if mid else [], supersede=True)


def test_extracted_facts_in_batches_store_what_one_by_one_stored(tmp_path: Path) -> None:
    batched = TrulyMem(tmp_path / "batched.db", user_id="u", embedder="hashing")
    res = run_tool(get_tool("memory_ingest"), _ctx(batched, _reply()), {"messages": MESSAGES, "extract_facts": True})
    reference = TrulyMem(tmp_path / "reference.db", user_id="u", embedder="hashing")
    _one_by_one(reference)
    got, want = normalised_export(batched), normalised_export(reference)
    assert res.facts > len(FACTS)  # type: ignore[attr-defined]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"row {i} differs"
    current = {(f.relation, f.object) for f in batched.history("Ada") if f.is_valid}
    assert ("lives_in", "Paris") in current and ("lives_in", "London") not in current
    assert ("likes", "rock") in current and ("dislikes", "rock") not in current
    batched.close()
    reference.close()
