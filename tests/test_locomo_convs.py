"""Per-conversation stage gains read from a LoCoMo dump (bench/locomo_by_conversation.py)."""

from __future__ import annotations

import json

import pytest

from trulymem import InvalidInput
from trulymem.bench.locomo_convs import markdown, read_dump, recall_table, stage_gains


def _row(variant: str, conv: str, category: int, hit: float) -> str:
    names = {1: "multi-hop", 2: "temporal"}
    return json.dumps({"variant": variant, "conversation": conv, "category": category,
                       "category_name": names[category], "recall_at_10": hit})


# Two conversations, two questions each. "-boost" loses one question of conversation a
# (so the boost gains there) and nothing in b; "+extra" gains one in b and loses one in a.
LINES = [
    _row("hybrid+graph", "a", 1, 1.0), _row("hybrid+graph", "a", 2, 0.5),
    _row("hybrid+graph", "b", 1, 0.0), _row("hybrid+graph", "b", 2, 1.0),
    _row("-boost", "a", 1, 0.0), _row("-boost", "a", 2, 0.5),
    _row("-boost", "b", 1, 0.0), _row("-boost", "b", 2, 1.0),
    _row("+extra", "a", 1, 1.0), _row("+extra", "a", 2, 0.0),
    _row("+extra", "b", 1, 1.0), _row("+extra", "b", 2, 1.0),
    _row("bm25", "a", 1, 0.0), _row("bm25", "a", 2, 0.0),
]


def test_recall_per_conversation_and_category() -> None:
    data = read_dump(LINES)
    assert recall_table(data)["hybrid+graph"] == {"a": 75.0, "b": 50.0}
    assert recall_table(data, "multi-hop")["-boost"] == {"a": 0.0, "b": 0.0}


def test_a_removed_stage_gains_what_its_removal_loses() -> None:
    gains = {g.variant: g for g in stage_gains(read_dump(LINES))}
    assert set(gains) == {"-boost", "+extra"}  # plain variants are not stages
    boost, extra = gains["-boost"], gains["+extra"]
    assert boost.gains == {"a": 50.0, "b": 0.0} and (boost.helps, boost.hurts) == (1, 0)
    assert boost.category_gains == {"multi-hop": 50.0, "temporal": 0.0}
    assert extra.gains == {"a": -25.0, "b": 50.0} and (extra.helps, extra.hurts) == (1, 1)
    # leave one out: "-boost" judged on b alone (no gain) is dropped for a: 0; judged on a is kept for b: 0
    assert boost.loco == 0.0
    # "+extra" judged on b (gains) is kept for a (-25); judged on a (loses) is dropped for b (0)
    assert extra.loco == -12.5


def test_markdown_lists_every_variant_and_stage() -> None:
    text = markdown(read_dump(LINES))
    assert "| hybrid+graph | 75.0 | 50.0 | 62.5 |" in text
    assert "| boost (`-boost`) | +50.0 | +0.0 | 1/0 | +0.00 | +50.0 | +0.0 |" in text


def test_bad_dumps_are_one_clear_error() -> None:
    with pytest.raises(InvalidInput, match="line 1 is not a LoCoMo dump row"):
        read_dump(['{"variant": "x"}'])
    with pytest.raises(InvalidInput, match="no 'hybrid\\+graph' variant"):
        stage_gains(read_dump([_row("bm25", "a", 1, 1.0)]))
