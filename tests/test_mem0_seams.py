"""Where the mem0 layer meets the rest of trulymem, on every surface that answers mem0's
way (``trulymem.Memory``, the mem0 tools through ``call`` and ``/v1/tools``; mem0ai's own
client in ``test_mem0_seams_client.py``):

- filters are honoured or refused with a typed error, never dropped: a delete removes
  exactly what its entity ids and filters select, nothing wider;
- a memory a dream retired (merged into another, superseded by a conflict's winner,
  pruned) is gone under its id, saying where it went, and its history records it;
- trulymem's own fields (type, pinned, confidence) are in ``metadata``, where mem0
  clients and the dream skill read them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Served
from trulymem import InvalidInput, Memory, NotFound, Scope, TrulyMem
from trulymem.filters import check_filter, compile_filter, scope_of
from trulymem.memories import MEMORY_RELATION, as_item

# (text, user, where, metadata): what every delete case starts from
SEED: tuple[tuple[str, str, dict[str, str], dict[str, Any]], ...] = (
    ("I drink tea", "alice", {"agent_id": "helper", "run_id": "r1"}, {"topic": "drink", "type": "preference"}),
    ("I drink coffee", "alice", {"agent_id": "helper", "run_id": "r2"}, {"topic": "drink"}),
    ("I ride a bike", "alice", {"run_id": "r1"}, {"topic": "sport", "pinned": True}),
    ("I live in Lisbon", "alice", {}, {"type": "profile", "confidence": 0.5}),
    ("Bob drinks tea", "bob", {"agent_id": "helper", "run_id": "r1"}, {"topic": "drink"}),
)
EVERYTHING = {(user, text) for text, user, _, _ in SEED}

# delete_all's arguments, as mem0's Memory.delete_all and MemoryClient.delete_all take them,
# and the texts each deletes (alice's all; bob's never)
CASES: list[tuple[dict[str, Any], set[str]]] = [
    ({"filters": {"user_id": "alice", "agent_id": "helper"}}, {"I drink tea", "I drink coffee"}),
    ({"user_id": "alice", "agent_id": "helper"}, {"I drink tea", "I drink coffee"}),
    ({"user_id": "alice", "run_id": "r1"}, {"I drink tea", "I ride a bike"}),
    ({"user_id": "alice", "filters": {"topic": "drink"}}, {"I drink tea", "I drink coffee"}),
    ({"filters": {"AND": [{"user_id": "alice"}, {"metadata": {"topic": "sport"}}]}}, {"I ride a bike"}),
    ({"filters": {"user_id": "alice", "memory": {"icontains": "TEA"}}}, {"I drink tea"}),
    ({"filters": {"user_id": "alice", "agent_id": "*"}}, {"I drink tea", "I drink coffee"}),
    ({"filters": {"user_id": "alice", "NOT": {"agent_id": "*"}}}, {"I ride a bike", "I live in Lisbon"}),
    ({"filters": {"AND": [{"user_id": "alice"}, {"OR": [{"run_id": "r2"}, {"metadata.pinned": True}]}]}},
     {"I drink coffee", "I ride a bike"}),
    ({"filters": {"user_id": "alice", "metadata.type": "profile"}}, {"I live in Lisbon"}),
    ({"user_id": "alice", "run_id": "r1", "filters": {"type": "preference"}}, {"I drink tea"}),
    ({"filters": {"user_id": "alice", "run_id": "nope"}}, set()),
    ({"user_id": "alice"}, {"I drink tea", "I drink coffee", "I ride a bike", "I live in Lisbon"}),
]
# delete_all's arguments that must be refused (field named), deleting nothing
REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"filters": {"user_id": "alice", "agent_id": {"bogus": 1}}}, "filters.agent_id.bogus"),
    ({"user_id": "alice", "filters": {"user_id": "bob"}}, "filters.user_id"),
    ({"user_id": "alice", "agent_id": "helper", "filters": {"AND": [{"agent_id": "other"}]}}, "filters.agent_id"),
    ({"filters": {"user_id": "alice", "id": "x"}}, "filters.id"),
    ({"filters": {"user_id": "alice", "memory": {"in": "tea"}}}, "filters.memory.in"),
    ({"filters": {"user_id": "alice", "NOT": 3}}, "filters.NOT"),
]


def alive(m: Memory) -> set[tuple[str, str]]:
    return {(u, x["memory"]) for u in ("alice", "bob") for x in m.get_all(filters={"user_id": u})["results"]}


def seed_oss(m: Memory) -> None:
    for u in ("alice", "bob"):
        m.delete_all(user_id=u)
    for text, user, where, meta in SEED:
        m.add(text, user_id=user, metadata=meta, infer=False, **where)
    assert alive(m) == EVERYTHING


@pytest.fixture
def m(db_path: Path) -> Iterator[Memory]:
    mem = Memory(str(db_path), embedder="hashing")
    yield mem
    mem.close()


@pytest.mark.parametrize(("args", "gone"), CASES)
def test_oss_delete_all_removes_exactly_what_it_selects(m: Memory, args: dict[str, Any], gone: set[str]) -> None:
    seed_oss(m)
    m.delete_all(**args)
    assert alive(m) == EVERYTHING - {("alice", t) for t in gone}


def test_oss_delete_all_refuses_what_it_cannot_honour(m: Memory) -> None:
    seed_oss(m)
    for args, field in [*REFUSED, ({"filters": {"OR": [{"user_id": "alice"}, {"user_id": "bob"}]}}, "user_id")]:
        with pytest.raises(InvalidInput) as exc:
            m.delete_all(**args)
        assert exc.value.field == field, args
    assert alive(m) == EVERYTHING


def test_oss_reads_honour_filters_and_refuse_conflicts(m: Memory) -> None:
    seed_oss(m)
    for args, gone in CASES:
        if "run_id" in args:
            continue  # delete_all's own argument; get_all/search take it inside filters
        listed = {x["memory"] for x in m.get_all(**args)["results"]}
        assert listed == gone, args
        found = {x["memory"] for x in m.search("drink tea bike Lisbon coffee", **args)["results"]}
        assert found <= gone, args
    with pytest.raises(InvalidInput, match="different user_ids"):
        m.get_all(user_id="alice", filters={"user_id": "bob"})
    with pytest.raises(InvalidInput, match="different agent_ids"):
        m.search("tea", user_id="alice", agent_id="helper", filters={"agent_id": "other"})
    with pytest.raises(InvalidInput) as exc:
        m.get_all(filters={"user_id": "alice", "score": {"gte": 0.5}})
    assert exc.value.field == "filters.score"


def _tool_args(args: dict[str, Any]) -> dict[str, Any]:
    """A delete_all case as the tool takes it: run_id only inside filters."""
    out = {k: v for k, v in args.items() if k != "run_id"}
    if "run_id" in args:
        run = {"run_id": args["run_id"]}
        out["filters"] = {"AND": [args["filters"], run]} if "filters" in args else run
    return out


def test_delete_all_memories_tool_removes_exactly_what_it_selects(m: Memory, db_path: Path) -> None:
    tm = TrulyMem(m.store, user_id="alice")  # the server's default user is alice (the store stays m's)
    for args, gone in CASES:
        seed_oss(m)
        res = tm.call("delete_all_memories", _tool_args(args))
        assert res.ok and res.result["deleted"] == len(gone), (args, res.error)
        assert alive(m) == EVERYTHING - {("alice", t) for t in gone}, args
    seed_oss(m)
    for args, field in REFUSED:
        res = tm.call("delete_all_memories", _tool_args(args))
        assert not res.ok and res.error is not None and res.error["field"] == field, (args, res.error)
    # a memory scoped to alice never reaches another user (issue 30); an admin scope names users
    refused = tm.call("delete_all_memories", {"filters": {"user_id": "bob", "topic": "drink"}})
    assert not refused.ok and refused.error is not None and refused.error["type"] == "forbidden"
    assert alive(m) == EVERYTHING
    admin = TrulyMem(m.store, scope=Scope.everyone())
    assert admin.call("delete_all_memories", {"filters": {"user_id": "bob", "topic": "drink"}}).ok
    assert alive(m) == EVERYTHING - {("bob", "Bob drinks tea")}
    for args, gone in CASES:  # the reads agree with the deletes
        if "run_id" not in args:
            listed = tm.call("get_memories", _tool_args(args))
            assert {x["memory"] for x in listed.result["results"]} == gone - {"Bob drinks tea"}, args


def test_delete_all_memories_over_http_tools(db_path: Path) -> None:
    with Memory(str(db_path), embedder="hashing") as mem:
        seed_oss(mem)
    served = Served(str(db_path), "--user", "alice")
    try:
        with httpx.Client(base_url=served.url, timeout=30) as c, Memory(str(db_path), embedder="hashing") as mem:
            for args, gone in CASES[:6]:
                seed_oss(mem)
                r = c.post("/v1/tools/delete_all_memories", json=_tool_args(args))
                assert r.status_code == 200, r.text
                assert alive(mem) == EVERYTHING - {("alice", t) for t in gone}, args
            seed_oss(mem)
            for args, field in REFUSED:
                r = c.post("/v1/tools/delete_all_memories", json=_tool_args(args))
                assert r.status_code == 422 and r.json()["error"]["field"] == field, r.text
            assert alive(mem) == EVERYTHING
    finally:
        served.stop()


# --- trulymem's own fields in mem0's metadata -------------------------------------------------

def test_metadata_carries_type_pinned_and_confidence_everywhere(m: Memory) -> None:
    seed_oss(m)
    expected = {"I drink tea": {"topic": "drink", "type": "preference"}, "I ride a bike": {"topic": "sport",
                "pinned": True}, "I live in Lisbon": {"type": "profile", "confidence": 0.5}}
    oss = {x["memory"]: x for x in m.get_all(filters={"user_id": "alice"})["results"]}
    assert {t: oss[t]["metadata"] for t in expected} == expected
    assert m.search("bike", filters={"user_id": "alice"})["results"][0]["metadata"] == expected["I ride a bike"]
    tm = TrulyMem(m.store, user_id="alice")  # the store stays m's
    listed = {x["memory"]: x for x in tm.call("get_memories", {}).result["results"]}
    assert {t: listed[t]["metadata"] for t in expected} == expected
    assert listed["I ride a bike"]["pinned"] is True and listed["I live in Lisbon"]["type"] == "profile"  # kept
    one = tm.call("get_memory", {"memory_id": listed["I live in Lisbon"]["id"]}).result
    assert one["metadata"] == expected["I live in Lisbon"] and one["confidence"] == 0.5
    found = tm.call("search_memories", {"query": "tea", "filters": {"metadata": {"type": "preference"}}}).result
    assert [x["memory"] for x in found["results"]] == ["I drink tea"]
    assert found["results"][0]["metadata"] == expected["I drink tea"]
    # what the dream skill does with them: group by metadata.type, skip metadata.pinned
    pinned = tm.call("get_memories", {"filters": {"metadata": {"pinned": True}}}).result["results"]
    assert [x["memory"] for x in pinned] == ["I ride a bike"]
    unpinned = tm.call("get_memories", {"filters": {"metadata.pinned": False}}).result["results"]
    assert {x["memory"] for x in unpinned} == {"I drink tea", "I drink coffee", "I live in Lisbon"}
    typed = tm.call("get_memories", {"filters": {"metadata.type": "*"}}).result["results"]
    assert {x["memory"] for x in typed} == {"I drink tea", "I live in Lisbon"}


def test_metadata_over_http_tools(db_path: Path) -> None:
    with Memory(str(db_path), embedder="hashing") as mem:
        seed_oss(mem)
    served = Served(str(db_path), "--user", "alice")
    try:
        with httpx.Client(base_url=served.url, timeout=30) as c:
            r = c.post("/v1/tools/get_memories", json={"filters": {"metadata": {"pinned": True}}})
            assert r.status_code == 200, r.text
            (bike,) = r.json()["results"]
            assert bike["metadata"] == {"topic": "sport", "pinned": True}
            r = c.post("/v1/tools/get_memories", json={"filters": {"metadata.type": "profile"}})
            assert r.json()["results"][0]["metadata"] == {"type": "profile", "confidence": 0.5}
    finally:
        served.stop()


# --- filters ---------------------------------------------------------------------------------

def test_filter_forms() -> None:
    from trulymem.model import EdgeKind, Fact, utcnow

    now = utcnow()
    f = Fact(id="f1", kind=EdgeKind.FACT, subject_id="s", object_id="o", subject="user", relation=MEMORY_RELATION,
             object="I drink tea", user_id="alice", agent_id="helper", created_at=now, updated_at=now, valid_at=now,
             type="preference", pinned=True, metadata={"topic": "drink"})
    item = as_item(f)
    for spec, want in (({"agent_id": "*"}, True), ({"app_id": "*"}, False), ({"NOT": {"app_id": "*"}}, True),
                       ({"metadata": {"topic": "drink", "pinned": True}}, True), ({"metadata": {"topic": "*"}}, True),
                       ({"metadata": {"topic": {"in": ["sport"]}}}, False), ({"metadata.type": "preference"}, True),
                       ({"metadata.confidence": 1.0}, True), ({"keywords": {"icontains": "TEA"}}, True),
                       ({"OR": [{"app_id": "*"}, {"agent_id": "*"}]}, True), ({"OR": [{"app_id": "*"}]}, False)):
        assert compile_filter(spec)(item) is want, spec
    assert scope_of({"user_id": "*", "agent_id": "helper"}) == {"agent_id": "helper"}  # a wildcard names no one
    for spec, field in (({"id": "f1"}, "filters.id"), ({"OR": [{"score": 1}]}, "filters.OR.0.score"),
                        ({"metadata": {"topic": {"bogus": 1}}}, "filters.metadata.topic.bogus"),
                        # a value of the wrong kind is refused, never read as "matches nothing" (or everything)
                        ({"created_at": {"gte": 5}}, "filters.created_at.gte"), ({"metadata": "x"}, "filters.metadata"),
                        ({"n": {"gt": [1]}}, "filters.n.gt"), ({"n": {"lte": True}}, "filters.n.lte"),
                        ({"OR": [{}]}, "filters.OR.0"), ({"AND": [{"user_id": "a"}, {}]}, "filters.AND.1")):
        with pytest.raises(InvalidInput) as exc:
            compile_filter(spec)
        assert exc.value.field == field
    from trulymem.limits import Limits

    with pytest.raises(InvalidInput, match="conditions"):  # a metadata object's keys and operators count
        check_filter({"metadata": {f"k{i}": {"gt": 1, "lt": 2} for i in range(3)}}, Limits(filter_conditions=5))


# --- what a dream retired --------------------------------------------------------------------

def _note(text: str, **kw: Any) -> dict[str, Any]:
    return {"subject": "user", "relation": MEMORY_RELATION, "object": text, "type": "decision", **kw}


def retire(db: str) -> dict[str, str]:
    """What a dream leaves (as ``dream/run.py`` writes it): two memories merged into a new
    one, a conflict's loser superseded by its winner, one pruned; and one updated before."""
    with TrulyMem(db, user_id="alice") as mem:
        a, b, ecs, vercel, old = mem.commit([_note("Use PostgreSQL for auth"), _note("Auth DB is PostgreSQL"),
                                             _note("Deploy to ECS"), _note("Deploy to Vercel"),
                                             _note("Scratch note", confidence=0.2)], supersede=False).created
        now = mem.clock()
        with mem.store.transaction():
            mem.store.invalidate_facts([a, b], now)
            merged = mem.commit([_note("Auth DB is PostgreSQL (for auth)",
                                       metadata={"merged_from": [a, b], "source": "mem0-dream"})]).created[0]
            mem.store.supersede_facts([(a, merged), (b, merged)], now)
            mem.store.supersede_facts([(ecs, vercel)], now)
            mem.store.invalidate_facts([old], now)
    return {"a": a, "b": b, "merged": merged, "ecs": ecs, "vercel": vercel, "old": old}


def check_history(history: Callable[[str], list[dict[str, Any]]], ids: dict[str, str]) -> None:
    for key in ("a", "b"):
        events = history(ids[key])
        assert [e["event"] for e in events] == ["ADD", "DELETE"] and events[-1]["is_deleted"] is True
        assert events[-1]["metadata"] == {"reason": "merged", "superseded_by": ids["merged"], "current": ids["merged"]}
        assert events[-1]["new_memory"] is None and events[-1]["old_memory"] in ("Use PostgreSQL for auth",
                                                                                 "Auth DB is PostgreSQL")
    lost = history(ids["ecs"])
    assert [e["event"] for e in lost] == ["ADD", "DELETE"] and lost[-1]["old_memory"] == "Deploy to ECS"
    assert lost[-1]["metadata"] == {"reason": "superseded", "superseded_by": ids["vercel"], "current": ids["vercel"]}
    pruned = history(ids["old"])
    assert [e["event"] for e in pruned] == ["ADD", "DELETE"] and "metadata" not in pruned[-1]
    assert [e["event"] for e in history(ids["merged"])] == ["ADD"]
    assert [e["event"] for e in history(ids["vercel"])] == ["ADD"]


def test_retired_memories_in_the_python_api(m: Memory, db_path: Path) -> None:
    ids = retire(str(db_path))
    for key in ("a", "b", "ecs", "old"):  # gone under their ids: never another memory's text
        assert m.get(ids[key]) is None
    assert m.get(ids["merged"])["memory"] == "Auth DB is PostgreSQL (for auth)"  # type: ignore[index]
    assert m.get(ids["vercel"])["memory"] == "Deploy to Vercel"  # type: ignore[index]
    check_history(m.history, ids)
    for call in (lambda: m.update(ids["a"], text="x"), lambda: m.delete(ids["ecs"]), lambda: m.delete(ids["old"])):
        with pytest.raises(NotFound):
            call()
    assert {x["memory"] for x in m.get_all(filters={"user_id": "alice"})["results"]} == {
        "Auth DB is PostgreSQL (for auth)", "Deploy to Vercel"}  # nothing of the successors changed


def test_retired_memories_in_the_tools(db_path: Path) -> None:
    ids = retire(str(db_path))
    with TrulyMem(str(db_path), user_id="alice") as tm:
        for key, says in (("a", f"was merged into memory '{ids['merged']}'"),
                          ("ecs", f"was superseded by memory '{ids['vercel']}'"), ("old", "was deleted")):
            for tool, args in (("get_memory", {}), ("update_memory", {"text": "x"}), ("delete_memory", {})):
                res = tm.call(tool, {"memory_id": ids[key], **args})
                assert not res.ok and res.error is not None and res.error["type"] == "not_found", res
                assert says in res.error["message"]
        check_history(lambda i: tm.call("memory_history", {"memory_id": i}).result["results"], ids)
        # the successor moves on: the retired memory names where it is now
        tm.call("update_memory", {"memory_id": ids["merged"], "text": "Auth DB is PostgreSQL 16"})
        assert tm.call("get_memory", {"memory_id": ids["merged"]}).result["memory"] == "Auth DB is PostgreSQL 16"
        assert tm.call("memory_history", {"memory_id": ids["a"]}).result["results"][-1]["metadata"]["current"] == \
            ids["merged"]  # an update keeps the id
        tm.call("delete_memory", {"memory_id": ids["vercel"]})
        res = tm.call("get_memory", {"memory_id": ids["ecs"]})
        assert f"superseded by memory '{ids['vercel']}', since deleted" in res.error["message"]  # type: ignore[index]
        assert tm.call("memory_history", {"memory_id": ids["ecs"]}).result["results"][-1]["metadata"]["current"] is None


def test_a_real_dream_run(db_path: Path, tmp_path: Path) -> None:
    """``run_dream --auto`` merging two copies of one fact: every memory it retired is gone
    under its id, and its history names the memory that took its place."""
    from trulymem.dream import run_dream

    with TrulyMem(str(db_path), user_id="alice", app_id="p") as mem:
        mem.commit([_note("The auth database is PostgreSQL"), _note("the auth database is PostgreSQL.")],
                   supersede=False)
        res = run_dream(mem, project_dir=tmp_path, auto=True, embedder=None, emit=lambda _: None)
        assert res.applied is not None and res.applied.merged == 1 and len(res.applied.retired) == 2
        (merged,) = res.applied.added
        for old in res.applied.retired:
            got = mem.call("get_memory", {"memory_id": old})
            assert not got.ok and merged in got.error["message"]  # type: ignore[index]
            last = mem.call("memory_history", {"memory_id": old}).result["results"][-1]
            assert last["event"] == "DELETE" and last["metadata"]["superseded_by"] == merged
            assert last["metadata"]["reason"] == "merged"
        assert mem.call("get_memory", {"memory_id": merged}).result["metadata"]["type"] == "decision"


def test_an_empty_id_is_refused_never_read_as_any(tmp_path: Path) -> None:
    m = Memory(str(tmp_path / "empty.db"))
    m.add("I like tea", user_id="alice", agent_id="bot1", infer=False)
    m.add("I like coffee", user_id="alice", agent_id="bot2", infer=False)
    for call in (lambda: m.delete_all(user_id="alice", agent_id=""), lambda: m.get_all(user_id="alice", agent_id=" "),
                 lambda: m.search("tea", user_id="alice", agent_id="")):
        with pytest.raises(InvalidInput, match="agent_id"):
            call()
    assert len(m.get_all(user_id="alice")["results"]) == 2
