"""Pseudo-relevance feedback in recall: the words the best first-pass turns share, searched
again, reach a turn that shares no word with the question."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from trulymem import TrulyMem
from trulymem.model import NodeType
from trulymem.recall import RecallConfig, RecallQuery, recall

T0 = datetime(2025, 9, 14, 10, 0, tzinfo=UTC)
# Each turn in a session of its own, so no turn is indexed with another's words.
TURNS = [
    ("Priya", "The orchard harvest was huge this year: apples and pears everywhere."),
    ("Priya", "After the orchard harvest we sorted apples and pears for the market stall."),
    ("Priya", "Pressing cider from the apples and pears took all weekend."),
    ("Omar", "My bike chain snapped on the way to the office."),
    ("Omar", "The new office coffee machine makes terrible espresso."),
]


def _ingest(mem: TrulyMem) -> None:
    mem.run("memory_ingest", {"messages": [
        {"speaker": who, "text": text, "id": f"S{i}:1", "session": f"s{i}", "timestamp": T0.isoformat()}
        for i, (who, text) in enumerate(TURNS, 1)]})


def _found(mem: TrulyMem, question: str, cfg: RecallConfig) -> dict[str, list[str]]:
    with mem.store.transaction(write=False):
        res = recall(mem.store, mem.scope, RecallQuery(question, depth=0, limit=20), mem.clock(), cfg)
    return {str(n.metadata.get("turn_id")): n.why for n in res.nodes if n.type == NodeType.EPISODE}


def test_feedback_reaches_a_turn_that_shares_no_word_with_the_question(mem: TrulyMem) -> None:
    _ingest(mem)
    question = "What came of the orchard harvest?"
    on = _found(mem, question, RecallConfig(feedback_docs=10, feedback_terms=8, feedback_weight=0.3))
    off = _found(mem, question, RecallConfig())  # off by default
    assert any("feedback" in w for w in on["S3:1"])  # the cider turn, by "apples" and "pears"
    assert not any("feedback" in w for why in off.values() for w in why)
    assert on["S1:1"][0].startswith("text") and on["S2:1"][0].startswith("text")
    assert not any("feedback" in w for w in on.get("S4:1", []) + on.get("S5:1", []))  # nothing shared


def test_feedback_is_for_questions_only(mem: TrulyMem) -> None:
    _ingest(mem)
    cfg = replace(RecallConfig(), feedback_docs=10, feedback_terms=8, feedback_weight=0.3)
    found = _found(mem, "orchard,harvest", cfg)  # an intent list is searched as given
    assert not any("feedback" in w for why in found.values() for w in why)
