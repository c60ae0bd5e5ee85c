from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.helpers import snapshot
from trulymem import Conflict, InvalidInput, NotFound, TrulyMem
from trulymem.model import EdgeKind, new_id
from trulymem.store.base import FactQuery, NodeQuery
from trulymem.store.sqlite import SQLiteStore


def test_chain_is_time_ordered_with_next_task_links(mem: TrulyMem) -> None:
    a = mem.task_create("Task_a", "first")
    b = mem.task_create("Task_b", "second", info_nodes=["note"])
    c = mem.task_create("Task_c", "third")
    assert (a.previous_task, b.previous_task, c.previous_task) == (None, "Task_a", "Task_b")
    tasks = mem.task_list().tasks
    assert [t.task_id for t in tasks] == ["Task_c", "Task_b", "Task_a"]
    assert [t.previous_task for t in tasks] == ["Task_b", "Task_a", None]
    assert tasks[1].info_nodes == ["note"] and tasks[1].description == "second"
    links = [f for f in mem.history("Task_a") if f.kind == "NEXT_TASK"]
    assert [(f.subject, f.object) for f in links] == [("Task_a", "Task_b")]


def test_states_have_exactly_one_current_and_keep_history(mem: TrulyMem) -> None:
    mem.task_create("Task_game", "idiom chain")
    assert mem.task_set_state("Task_game", "paused").previous_state == "in_progress"
    assert mem.task_set_state("Task_game", "已完成").state == "completed"
    again = mem.task_set_state("Task_game", "completed")
    assert again.changed is False
    states = [(f.object, f.is_valid) for f in mem.history("Task_game", "HAS_STATE")]
    assert states == [("in_progress", False), ("paused", False), ("completed", True)]
    assert mem.task_list(state="completed").tasks[0].task_id == "Task_game"
    assert mem.task_list(state="in_progress").tasks == []


@pytest.mark.parametrize(("name", "state"), [("进行中", "in_progress"), ("已暂停", "paused"), ("已取消", "cancelled"),
                                             ("归档", "archived"), ("In Progress", "in_progress"),
                                             ("CANCELED", "cancelled")])
def test_state_names(mem: TrulyMem, name: str, state: str) -> None:
    mem.task_create("t", "x")
    mem.task_set_state("t", "paused")
    assert mem.task_set_state("t", name).state == state


def test_task_1_never_touches_task_10(mem: TrulyMem) -> None:
    mem.task_create("Task_1", "one")
    mem.task_create("Task_10", "ten")
    mem.task_set_state("Task_1", "completed")
    states = {t.task_id: t.state for t in mem.task_list().tasks}
    assert states == {"Task_1": "completed", "Task_10": "in_progress"}


def test_task_errors_change_nothing(mem: TrulyMem) -> None:
    mem.task_create("Task_a", "first")
    before = snapshot(mem)
    with pytest.raises(InvalidInput) as exc:
        mem.task_set_state("Task_a", "sleeping")
    assert exc.value.field == "state" and "paused" in exc.value.message
    with pytest.raises(NotFound) as nf:
        mem.task_set_state("Task_zz", "paused")
    assert nf.value.field == "task_id"
    with pytest.raises(Conflict):
        mem.task_create("task_A", "dup")  # same name after folding
    with pytest.raises(InvalidInput) as exc:
        mem.task_create("Task_b", "")
    assert exc.value.field == "description"
    with pytest.raises(NotFound) as nf:
        mem.with_scope(user_id="ghost").task_set_state("Task_a", "paused")
    assert nf.value.field == "user_id"
    assert snapshot(mem) == before


def test_task_name_used_by_another_node_type(mem: TrulyMem) -> None:
    mem.commit([{"subject": "x", "relation": "r", "object": "Task_q", "object_type": "InfoNode"}])
    with pytest.raises(Conflict):
        mem.task_create("Task_q", "d")


def test_info_nodes_link_to_existing_nodes(mem: TrulyMem) -> None:
    mem.commit([{"subject": "idiom_chain_current", "relation": "content", "object": "为所欲为"}])
    mem.task_create("Task_idiom", "game", info_nodes=["idiom_chain_current", "new note"])
    st = mem.stats()
    assert st.nodes_by_type["InfoNode"] == 2  # the seed's order (commit, then task_create) types it too
    res = mem.recall("TaskNode", depth=2)
    assert "为所欲为" in res.text


@pytest.mark.parametrize("commit_first", [True, False])
def test_info_node_typing_does_not_depend_on_call_order(mem: TrulyMem, commit_first: bool) -> None:
    fact = {"subject": "idiom_chain_current", "relation": "content", "object": "为所欲为"}
    if commit_first:
        mem.commit([fact])
    mem.persona_set({"role": "catgirl"})
    mem.task_create("Task_other", "another task")
    mem.task_create("Task_idiom", "game", info_nodes=["idiom_chain_current", "Task_other", "AI"])
    if not commit_first:
        mem.commit([fact])
    types = {n.name: n.type for n in mem.store.nodes(NodeQuery(scope=mem.scope))}
    assert types["idiom_chain_current"] == "InfoNode"
    assert types["Task_other"] == "TaskNode" and types["AI"] == "EntityNode"  # typed nodes keep their type
    assert types["为所欲为"] == "EntityNode"


def test_task_ids_that_already_carry_memories_are_refused(mem: TrulyMem) -> None:
    mem.commit([{"subject": "user", "relation": "mentioned", "object": "Task_b"}])
    mem.persona_set({"role": "catgirl"})
    mem.task_create("Task_a", "first")
    for taken in ("Task_b", "AI"):
        with pytest.raises(Conflict) as exc:
            mem.task_create(taken, "second")
        assert exc.value.field == "task_id"
    mem.task_create("Task_b2", "second")
    assert mem.task_create("Task_c", "third").previous_task == "Task_b2"
    assert [t.task_id for t in mem.task_list().tasks] == ["Task_c", "Task_b2", "Task_a"]


def test_skewed_clocks_do_not_fork_the_chain(db_path: Path) -> None:
    """The issue's reproduction: two writers on one store, clocks t+2 s and t+1 s."""
    t = datetime(2026, 1, 1, tzinfo=UTC)
    late = TrulyMem(db_path, user_id="alice", clock=lambda: t + timedelta(seconds=2))
    early = TrulyMem(late.store, user_id="alice", clock=lambda: t + timedelta(seconds=1))
    assert late.task_create("T_a", "a").previous_task is None
    assert early.task_create("T_b", "b").previous_task == "T_a"
    assert late.task_create("T_c", "c").previous_task == "T_b"  # the head, not the task with the latest time
    links = [(f.subject, f.object) for f in late.store.facts(FactQuery(scope=late.scope, kinds=[EdgeKind.NEXT_TASK]))]
    assert sorted(links) == [("T_a", "T_b"), ("T_b", "T_c")]
    late.close()


def test_the_store_refuses_a_second_successor(mem: TrulyMem) -> None:
    mem.task_create("T_a", "a")
    mem.task_create("T_b", "b")
    link = mem.store.facts(FactQuery(scope=mem.scope, kinds=[EdgeKind.NEXT_TASK]))[0]
    fork = dataclasses.replace(link, id=new_id(), object_id=mem.context().node_ids("T_a")[0])
    before = snapshot(mem)
    with pytest.raises(Conflict), mem.store.transaction():
        mem.store.insert_facts([fork])
    assert snapshot(mem) == before


def test_migration_repairs_a_forked_chain(db_path: Path) -> None:
    """A database forked by the old code opens: the later duplicate link is invalidated, not deleted."""
    with TrulyMem(db_path, user_id="alice") as m:
        for name in ("T_a", "T_b", "T_c"):
            m.task_create(name, name)
        store = m.store
        assert isinstance(store, SQLiteStore)
        conn = store._conn
        conn.executescript("DROP INDEX facts_one_next_task; DROP INDEX facts_one_previous_task; "
                           "DELETE FROM schema_migrations WHERE version = 5;")
        # T_a -> T_c as well: the fork the old code could write
        conn.execute("INSERT INTO facts(id, user_id, subject_rid, relation, relation_key, object_rid, kind, confidence, "
                     "created_at, updated_at, valid_at) SELECT 'fork', user_id, subject_rid, relation, relation_key, "
                     "(SELECT rid FROM nodes WHERE name = 'T_c'), kind, confidence, created_at, updated_at, valid_at "
                     "FROM facts WHERE kind = 'NEXT_TASK' ORDER BY rid LIMIT 1")
    with TrulyMem(db_path, user_id="alice") as m:
        links = m.store.facts(FactQuery(scope=m.scope, kinds=[EdgeKind.NEXT_TASK], validity="all", newest_first=False))
        assert sorted((f.subject, f.object, f.is_valid) for f in links) == [
            ("T_a", "T_b", True), ("T_a", "T_c", False), ("T_b", "T_c", True)]
        assert m.task_create("T_d", "d").previous_task == "T_c"


def test_turn_records_never_push_the_tasks_out_of_a_listing(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="u") as mem:
        mem.task_create("Task_trip", "Plan the Lisbon trip")
        mem.task_create("Task_idiom", "Idiom chain game")
        mem.task_set_state("Task_idiom", "paused")
        for k in range(60):
            mem.task_create(f"Turn_{k:03d}", f"User: hi {k} | AI: hello")
        assert [t.task_id for t in mem.task_list(limit=5).tasks] == ["Task_idiom", "Task_trip"]
        assert [t.task_id for t in mem.task_list(limit=2, kind="turn").tasks] == ["Turn_059", "Turn_058"]
        assert len(mem.task_list(limit=100, kind="all").tasks) == 62
        from trulymem.web.table import tasks_at

        later = mem.clock() + timedelta(days=1)
        listed = tasks_at(mem.store, mem.scope, later, 5)["tasks"]
        assert [t["task_id"] for t in listed] == ["Task_idiom", "Task_trip"] and listed[0]["state"] == "paused"
