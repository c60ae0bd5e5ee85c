"""trulymem.Memory / AsyncMemory: mem0's Python API on a real SQLite file."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest

from trulymem import AsyncMemory, InvalidInput, Memory, TrulyMem
from trulymem.llm import ScriptedLLM


@pytest.fixture
def m(db_path: Path) -> Any:
    mem = Memory(str(db_path), embedder="hashing")
    yield mem
    mem.close()


def test_add_search_get_update_delete_history(m: Memory) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = m.add([{"role": "user", "content": "I live in Lisbon"}, {"role": "assistant", "content": "Nice city!"}],
                  user_id="alice", run_id="chat-1", metadata={"type": "profile", "mood": "happy"})
        m.add("I like green tea", user_id="alice")
    assert len([w for w in caught if "chat model" in str(w.message)]) == 1  # said once, not per call
    assert [x["event"] for x in r["results"]] == ["ADD", "ADD"]
    lisbon = r["results"][0]["id"]
    item = m.get(lisbon)
    assert item is not None and set(item) >= {"id", "memory", "hash", "metadata", "created_at", "updated_at"}
    assert item["metadata"] == {"mood": "happy", "type": "profile"} and item["run_id"] == "chat-1"
    assert item["role"] == "user" and "actor_id" not in item
    old = m.search("where does she live Lisbon", user_id="alice")["results"]       # older mem0 form
    new = m.search("Lisbon", filters={"user_id": "alice"}, top_k=1)["results"]     # newer form
    assert old[0]["id"] == new[0]["id"] == lisbon and 0 < new[0]["score"] <= 1
    assert m.search("Lisbon", user_id="alice", threshold=1.01)["results"] == []
    assert m.get_all(user_id="alice", page_size=10)["total"] == 3
    assert m.get_all(filters={"AND": [{"user_id": "alice"}, {"run_id": "chat-1"}]}, page=1)["total"] == 2
    assert len(m.get_all(user_id="alice", filters={"NOT": {"memory": {"icontains": "TEA"}}})["results"]) == 2
    assert len(m.get_all(filters={"created_at": {"gte": "2000-01-01T00:00:00Z"}, "user_id": "alice"})["results"]) == 3
    assert m.update(lisbon, text="I live in Porto") == {"message": "Memory updated successfully!"}
    assert m.get(lisbon)["memory"] == "I live in Porto"  # type: ignore[index]
    m.update(lisbon, metadata={"pinned": True})
    assert m.get(lisbon)["metadata"]["pinned"] is True  # type: ignore[index]
    m.delete(lisbon)
    assert m.get(lisbon) is None
    assert [e["event"] for e in m.history(lisbon)] == ["ADD", "UPDATE", "DELETE"]
    assert m.delete_all(user_id="alice") == {"message": "Memories deleted successfully!"}
    assert m.get_all(user_id="alice") == {"results": []}
    with TrulyMem(m.store, user_id="alice") as tm:  # the same graph: nothing was erased
        assert len(tm.history("user", "memory")) == 3  # Lisbon, Porto, tea: "Nice city!" is the assistant's
        assert len(tm.history("assistant", "memory")) == 1


def test_memories_share_the_graph_with_triplets(m: Memory, db_path: Path) -> None:
    m.add("Deploy to ECS", user_id="bob", infer=False, metadata={"type": "decision"})
    m.add("Deploy to Vercel", user_id="bob", infer=False, metadata={"type": "decision"})
    with TrulyMem(str(db_path), user_id="bob", embedder="hashing") as tm:
        assert "Deploy to ECS" in tm.recall("deploy ECS").text
        from trulymem.dream import run_dream

        res = run_dream(tm, dry_run=True, emit=lambda _: None)
        assert res.analysis is not None and len(res.analysis.conflicts) == 1


def test_infer_with_a_model(db_path: Path) -> None:
    llm = ScriptedLLM(['["The user lives in Lisbon", "The user is vegetarian"]', "not json"])
    with Memory(str(db_path), embedder="hashing", llm=llm) as mem:
        r = mem.add([{"role": "user", "content": "I moved to Lisbon and I don't eat meat"}], user_id="carol")
        assert [x["memory"] for x in r["results"]] == ["The user lives in Lisbon", "The user is vegetarian"]
        with pytest.raises(InvalidInput, match="not JSON"):
            mem.add("anything", user_id="carol")
        assert len(mem.get_all(user_id="carol")["results"]) == 2


def test_bad_input(m: Memory) -> None:
    for call, field in ((lambda: m.add("x"), "user_id"), (lambda: m.add([], user_id="a"), "messages"),
                        (lambda: m.search("", user_id="a"), "query"), (lambda: m.get_all(page=0, user_id="a"), "page"),
                        (lambda: m.get_all(), "user_id"),
                        (lambda: m.update("nope"), "text"), (lambda: m.get_all(filters={"OR": []}), "filters.OR")):
        with pytest.raises(InvalidInput) as exc:
            call()
        assert exc.value.field == field
    assert m.get("nope") is None
    with pytest.raises(InvalidInput):
        Memory.from_config({"vector_store": {}})


def test_async_memory(db_path: Path) -> None:
    async def main() -> None:
        am = AsyncMemory(str(db_path), embedder="hashing")
        r = await am.add("I like chess", user_id="dan", infer=False)
        mid = r["results"][0]["id"]
        assert (await am.get(mid))["memory"] == "I like chess"  # type: ignore[index]
        assert (await am.search("chess", user_id="dan"))["results"]
        assert len((await am.get_all(filters={"user_id": "dan"}, top_k=5))["results"]) == 1
        await am.update(mid, text="I like go")
        assert len(await am.history(mid)) == 2
        assert (await am.reset())["deleted"] == 1
        am.close()

    anyio.run(main)


def test_updates_keep_provenance_and_case_fixes(m: Memory) -> None:
    mid = m.add("i live in lisbon", user_id="eve", run_id="r1", infer=False)["results"][0]["id"]
    m.update(mid, text="I live in Porto")
    assert m.get(mid)["run_id"] == "r1"  # type: ignore[index]
    assert len(m.get_all(user_id="eve", run_id="r1")["results"]) == 1
    m.update(mid, text="I LIVE IN PORTO")
    assert m.get(mid)["memory"] == "I LIVE IN PORTO"  # type: ignore[index]
    new = {"id": mid}
    for meta, field in (({"confidence": "high"}, "metadata.confidence"), ({"confidence": 5}, "metadata.confidence"),
                        ({"pinned": "false"}, "metadata.pinned")):
        with pytest.raises(InvalidInput) as exc:
            m.add("x", user_id="eve", metadata=meta, infer=False)
        assert exc.value.field == field
        with pytest.raises(InvalidInput):
            m.update(new["id"], metadata=meta)
    with pytest.raises(InvalidInput, match="different user_id"):
        m.delete_all(user_id="eve", filters={"user_id": "mallory"})
