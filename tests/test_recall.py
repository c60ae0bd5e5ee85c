from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.helpers import triplet
from trulymem import InvalidInput, TrulyMem


def objects(res) -> set[str]:  # type: ignore[no-untyped-def]
    return {f.object for f in res.facts}


def test_chinese_two_character_words_are_found(mem: TrulyMem) -> None:
    mem.commit([triplet("user", "喜欢", "猫娘"), triplet("user", "正在玩", "成语接龙游戏"),
                triplet("user", "likes", "rock music")])
    assert "猫娘" in objects(mem.recall("猫娘", depth=0))
    assert "成语接龙游戏" in objects(mem.recall("成语", depth=0))
    assert "成语接龙游戏" in objects(mem.recall("接龙", depth=0))
    assert "rock music" in objects(mem.recall("music", depth=0))
    assert "rock music" in objects(mem.recall("ROCK", depth=0))
    assert objects(mem.recall("爵士", depth=0)) == set()


def test_relation_words_match(mem: TrulyMem) -> None:
    mem.commit([triplet("user", "lives in", "Paris"), triplet("user", "likes", "rock")])
    res = mem.recall("lives_in", depth=0)
    assert objects(res) == {"Paris"}
    assert res.facts[0].why[0].startswith("relation")


def test_exact_name_scores_above_partial_text(mem: TrulyMem) -> None:
    mem.commit([triplet("rock", "is_a", "genre"), triplet("rock climbing gym", "located_in", "Lyon")])
    res = mem.recall("rock", depth=1)
    assert res.nodes[0].name == "rock" and "name:rock" in res.nodes[0].why


@pytest.fixture
def chain(mem: TrulyMem) -> TrulyMem:
    # a - b - c - d - e : a line, so each extra hop reaches exactly one more fact
    mem.commit([triplet("alpha", "next", "bravo"), triplet("bravo", "next", "charlie"),
                triplet("charlie", "next", "delta"), triplet("delta", "next", "echo")])
    return mem


AB, BC, CD, DE = "alpha next bravo", "bravo next charlie", "charlie next delta", "delta next echo"


@pytest.mark.parametrize(("depth", "expected"), [
    (0, {AB}),
    (1, {AB, BC}),
    (2, {AB, BC, CD}),
    (3, {AB, BC, CD, DE}),
])
def test_depth_controls_hops(chain: TrulyMem, depth: int, expected: set[str]) -> None:
    res = chain.recall("alpha", depth=depth, limit=50)
    assert {f"{f.subject} {f.relation} {f.object}" for f in res.facts} == expected
    assert max(f.hop for f in res.facts) == depth


def test_scores_decay_with_hops(chain: TrulyMem) -> None:
    res = chain.recall("alpha", depth=3)
    by_hop = {f.hop: f.score for f in res.facts}
    assert by_hop[0] > by_hop[1] > by_hop[2] > by_hop[3]


@pytest.mark.parametrize("depth", [-1, 4, "deep"])
def test_bad_depth(mem: TrulyMem, depth) -> None:
    with pytest.raises(InvalidInput) as exc:
        mem.recall("x", depth=depth)
    assert exc.value.field == "depth"


def test_hub_nodes_do_not_flood(mem: TrulyMem) -> None:
    mem.commit([triplet("user", "likes", f"thing {i}") for i in range(300)])
    mem.commit([triplet("thing 1", "made_by", "ACME"), triplet("ACME", "based_in", "Oslo")])
    res = mem.recall("ACME", depth=3, limit=200)
    # user is reached through "thing 1" but contributes only a capped handful of its 300 facts
    assert len([f for f in res.facts if f.subject == "user"]) <= 8
    assert {"Oslo", "thing 1"} <= objects(res) | {f.subject for f in res.facts}
    direct = mem.recall("user", depth=1, limit=200)
    assert 0 < len(direct.facts) <= 24


def test_limit_cuts_ranked_results(mem: TrulyMem) -> None:
    mem.commit([triplet("user", "likes", f"thing {i}") for i in range(30)])
    res = mem.recall("user", depth=1, limit=5)
    assert len(res.facts) == 5
    assert [f.score for f in res.facts] == sorted((f.score for f in res.facts), reverse=True)


def test_pinned_and_confident_rank_higher(mem: TrulyMem) -> None:
    mem.commit([triplet("user", "likes", "a", confidence=0.2), triplet("user", "likes", "b"),
                triplet("user", "likes", "c", pinned=True)])
    res = mem.recall("user", depth=1)
    assert [f.object for f in res.facts] == ["c", "b", "a"]


def test_empty_intent_returns_persona_and_newest_tasks_not_everything(mem: TrulyMem) -> None:
    mem.persona_set({"role": "catgirl"})
    mem.commit([triplet("user", "likes", f"thing {i}") for i in range(50)])
    for i in range(30):
        mem.task_create(f"Task_{i:02}", f"turn {i}")
    res = mem.recall("")
    assert "catgirl" in res.text
    tasks = [line for line in res.text.splitlines() if line.startswith("- Task_")]
    assert tasks[0].startswith("- Task_29 [in_progress]")
    assert len(tasks) == 30  # every open task (step 2 of the protocol), and none of the user's facts
    assert not any(f.object.startswith("thing") for f in res.facts)


def test_type_intent_finds_tasks(mem: TrulyMem) -> None:
    mem.task_create("Task_x", "something")
    mem.commit([triplet("user", "likes", "rock")])
    res = mem.recall("TaskNode,working_memory,task_chain")
    assert "Task_x [in_progress] something" in res.text
    assert "rock" not in res.text


def test_as_of_and_include_invalid(mem: TrulyMem, clock) -> None:
    mem.commit([triplet("user", "lives_in", "Paris")])
    t1 = clock.advance(days=1)
    clock.advance(days=1)
    mem.purge({"relation": "lives_in"}, mode="supersede", replacement={"object": "Berlin"})
    assert objects(mem.recall("user", depth=1)) == {"Berlin"}
    assert objects(mem.recall("user", depth=1, as_of=t1)) == {"Paris"}
    both = mem.recall("user", depth=1, include_invalid=True)
    assert {(f.object, f.valid) for f in both.facts} == {("Paris", False), ("Berlin", True)}
    assert "no longer valid" in both.text
    # with include_invalid, as_of shows what was recorded by then, corrected or not — nothing later
    then_all = mem.recall("user", depth=1, as_of=t1, include_invalid=True)
    assert {(f.object, f.valid) for f in then_all.facts} == {("Paris", True)}
    assert objects(mem.recall("lives_in", depth=0, as_of=t1)) == {"Paris"}
    before_anything = datetime(2000, 1, 1, tzinfo=UTC)
    assert mem.recall("user", depth=1, as_of=before_anything).nodes == []
    assert mem.recall("user", depth=1, as_of=before_anything).facts == []


def test_as_of_hides_later_tasks_and_nodes(mem: TrulyMem, clock) -> None:
    mem.task_create("Task_old", "old task")
    t_then = clock.advance(hours=1)
    clock.advance(days=1)
    mem.task_create("Task_new", "new secret task")
    mem.commit([triplet("user", "likes", "jazz")])
    then = mem.recall("TaskNode,jazz", as_of=t_then)
    assert "Task_old" in then.text and "Task_new" not in then.text and "secret" not in then.text
    assert {n.name for n in then.nodes} <= {"Task_old", "in_progress"}


def test_state_nodes_can_be_asked_for(mem: TrulyMem) -> None:
    mem.task_create("T1", "one")
    mem.task_create("T2", "two")
    res = mem.recall("StateNode", depth=0)
    assert {(f.subject, f.object) for f in res.facts} == {("T1", "in_progress"), ("T2", "in_progress")}


def test_time_filters_apply_before_the_candidate_cut(mem: TrulyMem, clock) -> None:
    """More later matches than the seed limit must not push the past out of the result."""
    mem.commit([triplet("user", "lives_in", "Paris", valid_at="2025-01-01T00:00:00Z")])
    t1 = clock.advance(hours=1)
    clock.advance(days=1)
    mem.commit([triplet(f"person {i}", "lives_in", f"city {i}") for i in range(40)])
    assert objects(mem.recall("lives_in", depth=0, as_of=t1)) == {"Paris"}
    assert objects(mem.recall("lives_in", depth=0, time_range={"end": "2025-06-01T00:00:00Z"})) == {"Paris"}


def test_time_range_filters_by_event_time(mem: TrulyMem) -> None:
    mem.commit([triplet("user", "visited", "Rome", valid_at="2025-05-10T00:00:00Z"),
                triplet("user", "visited", "Oslo", valid_at="2025-09-01T00:00:00Z")])
    res = mem.recall("visited", depth=0, time_range={"start": "2025-05-01T00:00:00Z", "end": "2025-05-31T00:00:00Z"})
    assert objects(res) == {"Rome"}
    with pytest.raises(InvalidInput) as exc:
        mem.recall("x", time_range={"start": "2025-06-01T00:00:00Z", "end": "2025-05-01T00:00:00Z"})
    assert exc.value.field == "time_range.start"


def test_seed_entities(chain: TrulyMem) -> None:
    res = chain.recall("", seed_entities=["delta"], depth=0)
    assert {f.subject for f in res.facts} | objects(res) >= {"delta", "charlie", "echo"}


def test_results_are_deduplicated_and_explained(mem: TrulyMem) -> None:
    mem.commit([triplet("猫娘", "likes", "fish"), triplet("fish", "eaten_by", "猫娘")])
    res = mem.recall("猫娘,fish", depth=2)
    ids = [f.id for f in res.facts]
    assert len(ids) == len(set(ids)) == 2
    assert all(f.why for f in res.facts) and all(n.why for n in res.nodes)
    assert len({n.id for n in res.nodes}) == len(res.nodes)


def test_max_tokens_keeps_the_best_prefix_within_budget(mem: TrulyMem) -> None:
    from trulymem.text.tokenize import count_tokens

    mem.commit([triplet("user", "likes", f"thing number {i} with a longer description", confidence=1 - i / 100)
                for i in range(30)])
    full = mem.recall("user", depth=1, limit=30)
    cut = mem.recall("user", depth=1, limit=30, max_tokens=60)
    assert 0 < len(cut.facts) < len(full.facts)
    assert cut.tokens == count_tokens(cut.text) <= 60
    assert [f.id for f in cut.facts] == [f.id for f in full.facts[: len(cut.facts)]]
    assert full.tokens == count_tokens(full.text)
    with pytest.raises(InvalidInput) as exc:
        mem.recall("user", max_tokens=0)
    assert exc.value.field == "max_tokens"


def test_count_tokens_is_one_rule_for_every_script() -> None:
    from trulymem.text.tokenize import count_tokens

    assert count_tokens("") == 0
    assert count_tokens("猫娘") == 2
    assert count_tokens("internationalization") == 5  # 20 characters, 4 per token
    assert count_tokens("a, b!") == 4


def test_punctuation_only_intent_is_harmless(mem: TrulyMem) -> None:
    mem.commit([triplet("a", "r", "b")])
    assert mem.recall('"*" OR NEAR(').facts == []


def test_a_time_named_in_the_query_boosts_what_happened_then(mem: TrulyMem) -> None:
    mem.commit([triplet("user", "visited", "Rome", valid_at="2025-05-10T00:00:00Z"),
                triplet("user", "visited", "Oslo", valid_at="2025-09-01T00:00:00Z")])
    plain = mem.recall("visited", depth=0)
    may = mem.recall("what did I visit in May 2025", depth=1)
    assert [f.object for f in plain.facts][0] == "Oslo"  # newer first without a time hint
    first = next(f for f in may.facts if f.relation == "visited")
    assert first.object == "Rome" and "time:in may 2025" in first.why


def test_time_expressions() -> None:
    from trulymem.recall.timeref import time_range_in

    now = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)
    cases = {"what did we do yesterday": (9, 3, 2026), "last May": (1, 5, 2025), "上周": (2, 3, 2026),
             "2023年5月的事": (1, 5, 2023), "in 2023": (1, 1, 2023), "on 7 July, 2023": (7, 7, 2023),
             "what happened on 8th of December 2023": (8, 12, 2023), "August 3, 2023": (3, 8, 2023),
             "on may 5": (5, 5, 2025), "notes from 2024-02-29": (29, 2, 2024), "2023年7月7日": (7, 7, 2023),
             "the week before August 3, 2023": (27, 7, 2023), "the day after 3 May 2024": (3, 5, 2024),
             "in July, 2023": (1, 7, 2023)}
    for query, (day, month, year) in cases.items():
        hit = time_range_in(query, now)
        assert hit is not None and (hit[0].day, hit[0].month, hit[0].year) == (day, month, year), query
    assert time_range_in("may I ask something", now) is None
    assert time_range_in("may 5 people come", now) is None  # a bare month and number is no date
    week = time_range_in("the week before August 3, 2023", now)
    assert week is not None and (week[1].month, week[1].day) == (8, 3)  # the anchor day is included
    bad = time_range_in("on 31 February 2023", now)  # not a day: the month is still named
    assert bad is not None and (bad[0].day, bad[1].day) == (1, 28)
