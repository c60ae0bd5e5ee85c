"""``memory_ingest`` stores exactly what it stored before its writes were batched.

The golden (``fixtures/ingest_golden.json``) is the normalised export of a small
conversation of our own, produced by the per-message ingest (one ``commit_triplets``
and one node update per message) before the batched path replaced it. Ids are random,
so each id is replaced by a stable label (a node by its key, a fact by its export
position); times come from a fixed clock. Regenerate only on purpose:
``TRULYMEM_WRITE_GOLDEN=1 pytest tests/test_ingest_golden.py``.
"""

from __future__ import annotations

import io
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.conftest import Clock
from trulymem import TrulyMem

GOLDEN = Path(__file__).parent / "fixtures" / "ingest_golden.json"


def _msg(speaker: str, text: str, mid: str | None, session: str | None, at: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"speaker": speaker, "text": text}
    if mid is not None:
        out["id"] = mid
    if session is not None:
        out["session"] = session
    if at is not None:
        out["timestamp"] = at
    return out


# Three speakers over three sessions; self-statements on several topics (profiles), names
# (mentions), a repeated name, a question (no profile), interleaved sessions in one call.
FIRST = [
    _msg("Ola", "I went kayaking on the lake with my dog Max last weekend.", "S1:1", "s1", "2024-03-02T10:00:00"),
    _msg("Ines", "Wow Ola, that sounds lovely! Did Max like the water?", "S1:2", "s1", "2024-03-02T10:01:00"),
    _msg("Ola", "He loved it. I also started painting again, mostly landscapes.", "S1:3", "s1",
         "2024-03-02T10:02:00"),
    _msg("Ines", "I work as a nurse at Oslo General, the night shifts are hard.", "S1:4", "s1",
         "2024-03-02T10:03:00"),
    _msg("Ola", "Have you thought about moving to Bergen?", "S1:5", "s1", "2024-03-02T10:04:00"),
    _msg("Ines", "I adopted a cat named Luna, and I play the guitar in the evenings.", "S2:1", "s2",
         "2024-04-10T19:00:00"),
    _msg("Ola", "My sister Kari visited Bergen and we went hiking together.", "S2:2", "s2", "2024-04-10T19:02:00"),
    _msg("Tom", "I am a teacher and I coach the football team at school.", "S3:1", "s3", "2024-04-11T08:00:00"),
    _msg("Ines", "Kari and Tom should meet, they both love hiking.", "S2:3", "s2", "2024-04-10T19:05:00"),
    _msg("Tom", "I ran my first marathon in Oslo last spring.", "S3:2", "s3", "2024-04-11T08:03:00"),
]
# A second call: a session continued (its chain and context window carry on), known
# profiles extended, a message without id or session (default session and episode name).
SECOND = [
    _msg("Ola", "I bought a new kayak, and Max has a life jacket now.", "S2:4", "s2", "2024-04-10T19:10:00"),
    _msg("Ines", "Luna sleeps on my guitar case, I love my cat.", "S2:5", "s2", "2024-04-10T19:11:00"),
    _msg("Tom", "I like cooking pasta for my family on Sundays.", None, None, "2024-05-01T12:00:00"),
    _msg("Ola", "Hiking with Kari again next month, I love the mountains.", "S4:1", "s4", None),
]


def normalised_export(mem: TrulyMem) -> list[dict[str, Any]]:
    """Every exported row, each random id replaced by a stable label."""
    buf = io.StringIO()
    mem.export_jsonl(buf, all_users=True)
    text = buf.getvalue()
    rows = [json.loads(line) for line in text.splitlines()]
    labels: dict[str, str] = {}
    facts = 0
    for row in rows:
        rid = row.get("id")
        if not isinstance(rid, str) or rid in labels:
            continue
        if "key" in row:
            labels[rid] = f"<node {row['key']}>"
        else:
            facts += 1
            labels[rid] = f"<fact {facts}>"
    for rid, label in labels.items():
        text = text.replace(json.dumps(rid)[1:-1], label)
    return [json.loads(line) for line in text.splitlines()]


def ingest_conversation(mem: TrulyMem) -> list[Any]:
    return [mem.run("memory_ingest", {"messages": FIRST}).model_dump(),
            mem.run("memory_ingest", {"messages": SECOND}).model_dump()]


def test_ingest_stores_what_the_per_message_path_stored(db_path: Path) -> None:
    mem = TrulyMem(db_path, user_id="golden", embedder="hashing",
                   clock=Clock(datetime(2025, 6, 1, 9, 0, tzinfo=UTC)))
    results = ingest_conversation(mem)
    got = {"results": [{**r, "episodes": len(r["episodes"])} for r in results], "rows": normalised_export(mem)}
    if os.environ.get("TRULYMEM_WRITE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    mem.close()
    want = json.loads(GOLDEN.read_text())
    assert got["results"] == want["results"]
    assert len(got["rows"]) == len(want["rows"])
    for i, (g, w) in enumerate(zip(got["rows"], want["rows"])):
        assert g == w, f"row {i} differs"
