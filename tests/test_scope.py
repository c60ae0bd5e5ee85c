from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import triplet
from trulymem import InvalidInput, NotFound, Scope, TrulyMem


@pytest.fixture
def two_users(db_path: Path, clock) -> tuple[TrulyMem, TrulyMem]:
    alice = TrulyMem(db_path, user_id="alice", clock=clock)
    bob = alice.with_scope(user_id="bob")
    alice.commit([triplet("user", "likes", "rock"), triplet("user", "喜欢", "猫娘")])
    bob.commit([triplet("user", "likes", "jazz")])
    alice.persona_set({"role": "catgirl"})
    alice.task_create("Task_1", "alice's task")
    return alice, bob


def test_reads_never_cross_users(two_users) -> None:
    alice, bob = two_users
    assert {f.object for f in bob.recall("user,猫娘,rock,persona,TaskNode", depth=3).facts} == {"jazz"}
    assert bob.persona_get().attributes == {}
    assert bob.task_list().tasks == []
    assert bob.history("user")[0].object == "jazz" and len(bob.history("user")) == 1
    assert bob.stats().facts_valid == 1


def test_writes_never_cross_users(two_users) -> None:
    alice, bob = two_users
    assert bob.purge({"object": "rock"}, mode="hard", confirm=True).matched == []
    rock = alice.history("user", "likes")[0]
    assert bob.purge({"ids": [rock.id]}).matched == []
    assert alice.history("user", "likes")[0].is_valid
    with pytest.raises(NotFound):
        bob.task_set_state("Task_1", "paused")
    assert alice.task_list().tasks[0].state == "in_progress"
    # the same name is a different node per user
    bob.task_create("Task_1", "bob's own")
    assert alice.task_list().tasks[0].description == "alice's task"


def test_agent_and_app_scopes_filter_reads(db_path: Path) -> None:
    base = TrulyMem(db_path, user_id="u")
    a = base.with_scope(agent_id="agent-a")
    b = base.with_scope(agent_id="agent-b", app_id="proj")
    a.persona_set({"role": "catgirl"})
    b.persona_set({"role": "butler"})
    assert a.persona_get().attributes == {"role": "catgirl"}
    assert b.persona_get().attributes == {"role": "butler"}
    assert b.with_scope(app_id="other").persona_get().attributes == {}
    everything = {f.object for f in base.recall("persona").facts}
    assert everything == {"catgirl", "butler"}


def test_sessions_are_provenance_not_walls(db_path: Path) -> None:
    s1 = TrulyMem(db_path, user_id="u", session_id="s1")
    s2 = s1.with_scope(session_id="s2")
    s1.commit([triplet("user", "said", "hello")], turn_id="turn-1")
    f = s1.history("user")[0]
    assert f.session_id == "s1" and f.turn_id == "turn-1"
    # long-term memory spans sessions: a later session recalls and reinforces the same fact
    assert len(s2.recall("user").facts) == 1
    assert s2.commit([triplet("user", "said", "hello")]).reinforced == [f.id]
    assert s2.history("user")[0].mention_count == 2
    s1.persona_set({"role": "catgirl"})
    assert s2.persona_set({"role": "catgirl"}).attributes == {"role": "catgirl"}
    # a session's facts can still be selected explicitly
    s2.commit([triplet("user", "said", "bye")])
    assert [m.text for m in s2.purge({"session_id": "s2"}, dry_run=True).matched] == ["user said bye"]


def test_unscoped_writes_do_not_touch_agent_namespaces(db_path: Path) -> None:
    base = TrulyMem(db_path, user_id="v")
    a, b = base.with_scope(agent_id="a"), base.with_scope(agent_id="b")
    a.persona_set({"role": "catgirl"})
    b.persona_set({"role": "butler"})
    base.persona_set({"tone": "calm"}, mode="replace")
    assert a.persona_get().attributes == {"role": "catgirl"}
    assert b.persona_get().attributes == {"role": "butler"}
    assert base.with_scope(exact=True).persona_get().attributes == {"tone": "calm"}
    a.task_create("Task_a", "agent a's task")
    assert base.task_create("Task_b", "shared task").previous_task is None
    assert a.task_create("Task_c", "a again").previous_task == "Task_a"
    a.commit([triplet("user", "lives_in", "Paris")])
    res = base.purge({"relation": "lives_in"}, mode="supersede", replacement={"object": "Berlin"})
    assert res.replacement_id is not None
    assert {(f.object, f.is_valid, f.agent_id) for f in a.history("user", "lives_in")} == {
        ("Paris", False, "a"), ("Berlin", True, "a")}


def test_global_scope_reads_only(two_users) -> None:
    alice, _ = two_users
    everyone = alice.with_scope(user_id=None, all_users=True)
    assert everyone.stats().users == 2
    assert everyone.stats().facts_valid > alice.stats().facts_valid
    with pytest.raises(InvalidInput) as exc:
        everyone.commit([triplet("a", "r", "b")])
    assert exc.value.field == "user_id"


def test_reads_of_unknown_users_are_errors(two_users) -> None:
    alice, _ = two_users
    ghost = alice.with_scope(user_id="alcie")
    for call in (lambda: ghost.recall("x"), ghost.persona_get, ghost.task_list, ghost.stats,
                 lambda: ghost.history("user")):
        with pytest.raises(NotFound) as exc:
            call()
        assert exc.value.field == "user_id" and "alcie" in exc.value.message
    res = ghost.call("memory_recall", {"query_intent": "x"})
    assert not res.ok and res.error["type"] == "not_found"


@pytest.mark.parametrize("user_id", [None, "", "   ", "x" * 200, "bad\x00id"])
def test_scope_needs_a_valid_user(user_id) -> None:
    with pytest.raises(InvalidInput) as exc:
        Scope(user_id=user_id)
    assert exc.value.field == "user_id"
