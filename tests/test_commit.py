from __future__ import annotations

import pytest

from tests.helpers import snapshot, triplet
from trulymem import InvalidInput, NodeType, TrulyMem
from trulymem.model import MAX_NAME
from trulymem.tools.fields import MAX_TRIPLETS


def test_entity_resolution_makes_one_node(mem: TrulyMem) -> None:
    mem.commit([triplet("User", "likes", "rock"), triplet("ｕｓｅｒ", "likes", "jazz"), triplet(" user ", "喜欢", "猫娘")])
    st = mem.stats()
    # user, rock, jazz, 猫娘
    assert st.nodes == 4
    assert {f.subject for f in mem.history("USER")} == {"User"}


def test_same_triplet_twice_reinforces_one_fact(mem: TrulyMem, clock) -> None:
    first = mem.commit([triplet("user", "likes", "rock", confidence=0.6)])
    clock.advance(hours=1)
    second = mem.commit([triplet("User", "Likes", "rock", confidence=0.9)])
    assert second.created == [] and second.reinforced == first.created
    facts = mem.history("user")
    assert len(facts) == 1
    f = facts[0]
    assert f.mention_count == 2 and f.confidence == 0.9 and f.updated_at > f.created_at


def test_duplicate_within_one_batch_is_one_fact(mem: TrulyMem) -> None:
    res = mem.commit([triplet("a", "r", "b"), triplet("A", "R", "B")])
    assert len(res.created) == 1 and len(res.facts) == 1 and res.facts[0].mention_count == 2


def test_user_statement_clears_speculation(mem: TrulyMem) -> None:
    mem.commit([triplet("user", "likes", "music", speculation=True)])
    assert "user[speculation] likes music" in mem.recall("music").text
    mem.commit([triplet("user", "likes", "music")])
    assert mem.history("user")[0].speculation is False


def test_fact_fields_are_stored(mem: TrulyMem) -> None:
    res = mem.commit([triplet("project", "deploys_to", "ECS", confidence=0.4, type="decision", pinned=True,
                              source="user", metadata={"branch": "main"}, subject_type="EntityNode",
                              object_type="InfoNode", valid_at="2025-05-01T00:00:00Z")],
                     turn_id="t1", message_ids=["m1", "m2"])
    f = mem.history("project")[0]
    assert f.id == res.created[0]
    assert (f.confidence, f.type, f.pinned, f.source, f.metadata) == (0.4, "decision", True, "user", {"branch": "main"})
    assert f.turn_id == "t1" and f.message_ids == ["m1", "m2"]
    assert f.valid_at.year == 2025 and f.kind == "FACT"
    types = {n.name: n.type for n in mem.recall("ECS").nodes}
    assert types["ECS"] == NodeType.INFO


def test_text_is_kept_as_written(mem: TrulyMem) -> None:
    text = "E=mc²  ①\nline two\tＡＢＣ ﬁle ㍻"
    mem.commit([triplet("  note ", "Says  this", text)])
    f = mem.history("NOTE")[0]
    assert (f.subject, f.relation, f.object) == ("note", "Says  this", text)
    assert mem.commit([triplet("note", "says this", "E=mc2 1 line two ABC file 平成")]).reinforced == [f.id]


def test_structural_relation_names_keep_their_kind(mem: TrulyMem) -> None:
    mem.commit([triplet("a", "relates_to", "b"), triplet("Task_x", "contains info", "note")])
    assert mem.history("a")[0].kind == "RELATES_TO"
    assert mem.history("Task_x")[0].kind == "CONTAINS_INFO"


@pytest.mark.parametrize(
    ("triplets", "field"),
    [
        ([], "triplets"),
        ([{"subject": "a", "relation": "r"}], "triplets.0.object"),
        ([triplet("", "r", "b")], "triplets.0.subject"),
        ([triplet("   ", "r", "b")], "triplets.0.subject"),
        ([triplet("\u200b", "r", "b")], "triplets.0.subject"),
        ([triplet("a", "", "b")], "triplets.0.relation"),
        ([triplet("a", "r", "b", confidence=1.5)], "triplets.0.confidence"),
        ([triplet("a", "r", "b", confidence="high")], "triplets.0.confidence"),
        ([triplet(123, "r", "b")], "triplets.0.subject"),
        ([triplet("x" * (MAX_NAME + 1), "r", "b")], "triplets.0.subject"),
        ([triplet("a", "r", "b", colour="red")], "triplets.0.colour"),
        ([triplet("a", "r", "b", subject_type="not a type!")], "triplets.0.subject_type"),
        ([triplet("a", "r", "b", metadata={"x": "y" * 20000})], "triplets.0.metadata"),
        ([triplet("a", "r", "b", metadata={"a": {1: "x", "b": "y"}})], "triplets.0.metadata"),
        ([triplet("a", "r", "b", metadata={"k": "\ud800"})], "triplets.0.metadata.k"),
        ([triplet("a\ud800", "r", "b")], "triplets.0.subject"),
        ([triplet("a", "r", "b", valid_at="0001-01-01T00:00:00+01:00")], "triplets.0.valid_at"),
        ([triplet("a", "r", "b")] * (MAX_TRIPLETS + 1), "triplets"),
        ([triplet("ok", "r", "b"), triplet("a", "r", "")], "triplets.1.object"),
        ([triplet("Task_1", "has state", "completed")], "triplets.0.relation"),
        ([triplet("t0", "NEXT_TASK", "t1")], "triplets.0.relation"),
        ([triplet("AI", "has_persona", "x")], "triplets.0.relation"),
        ([triplet("groceries", "r", "b", subject_type="TaskNode")], "triplets.0.subject_type"),
        ([triplet("a", "r", "b", object_type="StateNode")], "triplets.0.object_type"),
    ],
)
def test_bad_commit_is_one_clear_error_and_changes_nothing(mem: TrulyMem, triplets, field) -> None:
    mem.commit([triplet("user", "likes", "rock")])
    before = snapshot(mem)
    with pytest.raises(InvalidInput) as exc:
        mem.commit(triplets)
    assert exc.value.field == field
    assert snapshot(mem) == before


def test_tool_call_returns_errors_as_data(mem: TrulyMem) -> None:
    res = mem.call("memory_commit", {"triplets": [{"subject": "a"}]})
    assert not res.ok and res.error is not None
    assert res.error["type"] == "invalid_input" and res.error["field"] == "triplets.0.relation"
    assert "required" in res.error["message"]
    assert mem.call("memory_commit", "not a dict").error["field"] == "arguments"  # type: ignore[arg-type]
    assert mem.call("no_such_tool", {}).error["field"] == "tool"


def test_bulk_commit_restores_the_garbage_collector(mem: TrulyMem) -> None:
    import gc

    assert gc.isenabled()
    mem.commit([triplet(f"e{i}", "r", "x") for i in range(1000)])
    assert gc.isenabled()
    assert not mem.call("memory_commit", {"triplets": [{"subject": "a"}]}).ok
    assert gc.isenabled()
    gc.disable()
    try:
        mem.commit([triplet("a", "r", "b")])
        assert not gc.isenabled()  # a caller's choice is left alone
    finally:
        gc.enable()


def test_the_seeds_speculation_mark_is_a_flag_on_the_subject(mem: TrulyMem) -> None:
    mem.commit([triplet("user[speculation]", "likes", "music"), triplet("[推测] user", "likes", "jazz")])
    facts = mem.history("user")
    assert {(f.subject, f.object, f.speculation) for f in facts} == {("user", "music", True), ("user", "jazz", True)}
    assert mem.stats().nodes == 3  # user, music, jazz: no "user[speculation]" node
    assert mem.recall("music", depth=0).text.count("user[speculation] likes music") == 1
    with pytest.raises(InvalidInput) as exc:
        mem.commit([triplet("user[speculation]", "likes", "rock", speculation=False)])
    assert exc.value.field == "triplets.0.subject"


def test_a_new_value_of_a_single_valued_relation_supersedes_the_old(mem: TrulyMem, clock) -> None:
    first = mem.commit([triplet("user", "lives_in", "Paris"), triplet("user", "likes", "rock")])
    clock.advance(days=1)
    moved = mem.commit([triplet("user", "住在", "Berlin"), triplet("user", "likes", "jazz")])
    assert moved.superseded == [first.created[0]]  # likes accumulates: rock stays
    history = mem.history("user")
    paris = next(f for f in history if f.object == "Paris")
    assert paris.invalid_at is not None and paris.superseded_by == moved.created[0]
    current = {(f.relation, f.object) for f in history if f.invalid_at is None}
    assert current == {("住在", "Berlin"), ("likes", "rock"), ("likes", "jazz")}
    # a guess never replaces a stated value; pinned values stay; opting out keeps both
    guess = mem.commit([triplet("user", "lives_in", "Rome", speculation=True)])
    assert guess.superseded == []
    mem.commit([triplet("user", "birthday", "May 1", pinned=True)])
    assert mem.commit([triplet("user", "birthday", "June 2")]).superseded == []
    assert mem.commit([triplet("user", "favorite_color", "blue")]).superseded == []
    assert mem.commit([triplet("user", "favourite color", "red"), triplet("user", "works_at", "ACME")],
                      supersede=False).superseded == []
    assert {f.object for f in mem.history("user", "favorite_color") if f.invalid_at is None} == {"blue"}
    assert len([f for f in mem.history("user") if f.invalid_at is None and "color" in f.relation]) == 2
    # a later value in the same batch wins
    two = mem.commit([triplet("user", "is_at", "home"), triplet("user", "currently_at", "the office")])
    assert two.superseded == [two.created[0]]


def test_the_opposite_preference_for_the_same_thing_replaces_the_old(mem: TrulyMem) -> None:
    likes = mem.commit([triplet("user", "likes", "rock"), triplet("user", "likes", "jazz")])
    dislikes = mem.commit([triplet("user", "dislikes", "rock")])
    assert dislikes.superseded == [likes.created[0]]
    current = {(f.relation, f.object) for f in mem.history("user") if f.invalid_at is None}
    assert current == {("dislikes", "rock"), ("likes", "jazz")}
    again = mem.commit([triplet("user", "喜欢", "rock")])
    assert again.superseded == dislikes.created


@pytest.mark.parametrize(("first", "second"), [
    ("The upload limit is 10 MB", "The upload limit is 10 Mb"),  # bytes and bits
    ("The office link is 100Mb/s", "The office link is 100MB/s"),
    ("p99 latency budget is 5 ms", "p99 latency budget is 5 Ms"),
    ("The meter reads 3 kWh", "The meter reads 3 KWH"),
])
def test_values_differing_in_a_units_case_are_two_facts(mem: TrulyMem, first: str, second: str) -> None:
    """A unit's case is its meaning: the second value is created and its text kept, never
    folded into the first as a reinforcement."""
    a = mem.commit([triplet("user", "memory", first)])
    b = mem.commit([triplet("user", "memory", second)])
    assert len(a.created) == 1 and len(b.created) == 1 and b.reinforced == []
    assert sorted(f.object for f in mem.history("user")) == sorted([first, second])


@pytest.mark.parametrize(("first", "second"), [
    ("Standup is at 9 AM", "standup is at 9 am"),
    ("Deploys run at 02:00 UTC", "deploys run at 02:00 utc"),
    ("The user has 2 Cats", "the user has 2 cats"),  # a capitalised word, not a unit
    ("THE BUDGET IS 10 mb", "the budget is 10 mb"),
])
def test_case_that_means_nothing_still_reinforces(mem: TrulyMem, first: str, second: str) -> None:
    mem.commit([triplet("user", "memory", first)])
    again = mem.commit([triplet("user", "memory", second)])
    assert again.created == [] and len(again.reinforced) == 1
