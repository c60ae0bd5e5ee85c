"""The neighbour caps (fanout_seed, fanout_hop, frontier) as the presets set them: the seeds keep
the wide cap, reached nodes the narrow one, and no preset named "fast" expands more than balanced."""

from __future__ import annotations

from dataclasses import fields

from tests.helpers import triplet
from trulymem import TrulyMem
from trulymem.recall import PRESETS, RecallConfig

CAPS = ("fanout_seed", "fanout_hop", "frontier")


def test_fast_expands_no_more_than_balanced_and_deep_more() -> None:
    fast, balanced, deep = PRESETS["fast"], PRESETS["balanced"], PRESETS["deep"]
    assert {f.name for f in fields(RecallConfig)} >= set(CAPS)
    for cap in CAPS:
        assert getattr(fast, cap) <= getattr(balanced, cap) <= getattr(deep, cap), cap


def test_a_named_node_gives_its_seed_cap_of_facts_and_a_reached_one_its_hop_cap(mem: TrulyMem) -> None:
    cfg = PRESETS["balanced"]
    mem.commit([triplet("Ada", "likes", f"thing {i}") for i in range(40)])
    mem.commit([triplet("Bob", "knows", "Ada")])
    named = mem.recall("Ada", depth=0, limit=100)
    assert len([f for f in named.facts if f.subject == "Ada"]) == cfg.fanout_seed
    # Ada reached from Bob (hop 1) contributes only fanout_hop of her 40 outgoing facts
    reached = mem.recall("Bob", depth=1, limit=100)
    assert len([f for f in reached.facts if f.subject == "Ada"]) == cfg.fanout_hop
