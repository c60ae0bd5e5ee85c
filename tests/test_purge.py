from __future__ import annotations

import pytest

from tests.helpers import snapshot, triplet
from trulymem import InvalidInput, NotFound, TrulyMem


@pytest.fixture
def loaded(mem: TrulyMem) -> TrulyMem:
    mem.commit([
        triplet("user", "lives_in", "Paris", type="profile"),
        triplet("user", "likes", "rock"),
        triplet("user", "likes", "jazz", source="chat"),
        triplet("bob", "likes", "rock"),
        triplet("user", "works_on", "100%_done project"),
    ])
    return mem


def valid_texts(mem: TrulyMem, subject: str) -> set[str]:
    return {f.render() for f in mem.history(subject) if f.is_valid}


def test_soft_purge_invalidates_and_keeps_history(loaded: TrulyMem) -> None:
    res = loaded.purge({"subject": "user", "relation": "likes", "object": "rock"})
    assert [m.text for m in res.matched] == ["user likes rock"]
    assert "user likes rock" not in valid_texts(loaded, "user")
    assert "bob likes rock" in valid_texts(loaded, "bob")
    old = [f for f in loaded.history("user", "likes") if f.object == "rock"]
    assert len(old) == 1 and old[0].invalid_at is not None
    assert not any(f.subject == "user" and f.object == "rock" for f in loaded.recall("user", depth=1).facts)
    assert any(f.object == "rock" and not f.valid for f in loaded.recall("rock", include_invalid=True).facts)


def test_criteria_combine_with_and(loaded: TrulyMem) -> None:
    res = loaded.purge({"relation": "likes", "source": "chat"}, dry_run=True)
    assert [m.text for m in res.matched] == ["user likes jazz"]


def test_criterion_matching_nothing_never_widens(loaded: TrulyMem) -> None:
    before = snapshot(loaded)
    for criteria in ({"subject": "nobody", "relation": "likes"}, {"object": "nothing at all"},
                     {"subject": "user", "type": "no-such-type"}, {"ids": ["deadbeef"]},
                     {"subject_contains": "zzz", "relation": "likes"}):
        res = loaded.purge(criteria, mode="hard", confirm=True)
        assert res.matched == []
    assert snapshot(loaded) == before


def test_contains_escapes_like_wildcards(loaded: TrulyMem) -> None:
    assert [m.text for m in loaded.purge({"object_contains": "100%_"}, dry_run=True).matched] == [
        "user works_on 100%_done project"]
    assert loaded.purge({"object_contains": "%"}, dry_run=True).matched[0].text.endswith("100%_done project")
    assert loaded.purge({"object_contains": "_"}, dry_run=True).matched[0].text.endswith("100%_done project")
    assert len(loaded.purge({"subject_contains": "US"}, dry_run=True).matched) == 4


def test_no_criteria_is_refused(loaded: TrulyMem) -> None:
    with pytest.raises(InvalidInput) as exc:
        loaded.purge({})
    assert exc.value.field == "criteria"
    with pytest.raises(InvalidInput):
        loaded.purge({"include_invalid": True}, mode="hard", confirm=True)


def test_dry_run_changes_nothing(loaded: TrulyMem) -> None:
    before = snapshot(loaded)
    for mode, extra in (("soft", {}), ("hard", {}), ("supersede", {"replacement": {"object": "Berlin"}})):
        res = loaded.purge({"relation": "lives_in"}, mode=mode, dry_run=True, **extra)
        assert res.dry_run and len(res.matched) == 1
    assert snapshot(loaded) == before


def test_supersede_links_old_to_new_and_as_of_sees_the_past(loaded: TrulyMem, clock) -> None:
    t_before = clock.advance(minutes=1)
    clock.advance(minutes=1)
    res = loaded.purge({"subject": "user", "relation": "lives_in"}, mode="supersede",
                       replacement={"object": "Berlin"})
    versions = loaded.history("user", "lives_in")
    assert [(f.object, f.is_valid) for f in versions] == [("Paris", False), ("Berlin", True)]
    assert versions[0].superseded_by == res.replacement_id == versions[1].id
    assert versions[1].type == "profile"  # the correction keeps the category
    now_text = loaded.recall("lives_in").text
    assert "Berlin" in now_text and "Paris" not in now_text
    past = loaded.recall("lives_in", as_of=t_before)
    assert {f.object for f in past.facts if f.relation == "lives_in"} == {"Paris"}


def test_supersede_with_same_object_keeps_history(loaded: TrulyMem) -> None:
    loaded.purge({"relation": "lives_in"}, mode="supersede", replacement={"object": "Paris", "confidence": 0.5})
    versions = loaded.history("user", "lives_in")
    assert len(versions) == 2 and versions[0].superseded_by == versions[1].id and versions[1].confidence == 0.5


def test_supersede_needs_unambiguous_subject(loaded: TrulyMem) -> None:
    before = snapshot(loaded)
    with pytest.raises(InvalidInput) as exc:
        loaded.purge({"relation": "likes", "object": "rock"}, mode="supersede", replacement={"object": "pop"})
    assert exc.value.field == "replacement.subject"
    assert snapshot(loaded) == before


def test_hard_delete_needs_confirm_and_removes_rows(loaded: TrulyMem) -> None:
    with pytest.raises(InvalidInput) as exc:
        loaded.purge({"subject": "bob"}, mode="hard")
    assert exc.value.field == "confirm"
    res = loaded.purge({"subject": "bob"}, mode="hard", confirm=True)
    assert len(res.matched) == 1
    assert loaded.history("bob") == []
    # "bob" had no other facts: its node went too; "rock" is still used by the user's facts
    assert len(res.deleted_nodes) == 1
    assert loaded.purge({"subject": "bob", "include_invalid": True}, mode="hard", dry_run=True).matched == []
    assert "rock" in {f.object for f in loaded.history("user")}  # shared node stays


def test_hard_delete_of_invalid_history(loaded: TrulyMem) -> None:
    loaded.purge({"relation": "lives_in"}, mode="supersede", replacement={"object": "Berlin"})
    res = loaded.purge({"object": "Paris", "include_invalid": True}, mode="hard", confirm=True)
    assert [m.valid for m in res.matched] == [False]
    assert [f.object for f in loaded.history("user", "lives_in")] == ["Berlin"]


def test_replacement_only_with_supersede(loaded: TrulyMem) -> None:
    with pytest.raises(InvalidInput) as exc:
        loaded.purge({"relation": "likes"}, replacement={"object": "x"})
    assert exc.value.field == "replacement"
    with pytest.raises(InvalidInput) as exc:
        loaded.purge({"relation": "likes"}, mode="supersede")
    assert exc.value.field == "replacement"
    with pytest.raises(InvalidInput) as exc:
        loaded.purge({"relation": "likes"}, mode="erase")  # type: ignore[arg-type]
    assert exc.value.field == "mode"


def test_task_structure_is_changed_only_by_the_task_tools(mem: TrulyMem) -> None:
    mem.task_create("Task_1", "a")
    mem.task_create("Task_2", "b")
    before = snapshot(mem)
    for criteria, mode, rep in (({"subject": "Task_1", "kind": "HAS_STATE"}, "supersede", {"object": "banana"}),
                                ({"kind": "NEXT_TASK"}, "soft", None),
                                ({"subject": "Task_2"}, "soft", None)):
        with pytest.raises(InvalidInput) as exc:
            mem.purge(criteria, mode=mode, replacement=rep)
        assert exc.value.field == "criteria" and "task_set_state" in exc.value.message
    mem.commit([triplet("x", "r", "y")])
    with pytest.raises(InvalidInput) as exc:
        mem.purge({"subject": "x"}, mode="supersede", replacement={"relation": "has_state", "object": "done"})
    assert exc.value.field == "replacement.relation"
    assert [t.state for t in mem.task_list().tasks] == ["in_progress", "in_progress"]
    mem.purge({"subject": "x"}, mode="hard", confirm=True)
    assert snapshot(mem) == before
    # deleting a whole task is explicit and complete
    res = mem.purge({"subject_contains": "task_1"}, mode="hard", confirm=True)
    assert len(res.matched) == 2 and "Task_1" not in {t.task_id for t in mem.task_list().tasks}


def test_hard_dry_run_reports_exactly_what_the_real_run_does(loaded: TrulyMem) -> None:
    loaded.purge({"relation": "lives_in"}, mode="supersede", replacement={"object": "Berlin"})
    berlin = loaded.history("user", "lives_in")[1]
    preview = loaded.purge({"subject": "bob"}, mode="hard", dry_run=True)
    done = loaded.purge({"subject": "bob"}, mode="hard", confirm=True)
    assert preview.deleted_nodes == done.deleted_nodes and len(done.deleted_nodes) == 1
    preview = loaded.purge({"ids": [berlin.id]}, mode="hard", dry_run=True)
    done = loaded.purge({"ids": [berlin.id]}, mode="hard", confirm=True)
    assert preview.unlinked == done.unlinked == [loaded.history("user", "lives_in")[0].id]
    assert preview.deleted_nodes == done.deleted_nodes and len(done.deleted_nodes) == 1  # Berlin


def test_purge_for_unknown_user(mem: TrulyMem) -> None:
    with pytest.raises(NotFound) as exc:
        mem.with_scope(user_id="ghost").purge({"subject": "user"})
    assert exc.value.field == "user_id" and "ghost" in str(exc.value)
