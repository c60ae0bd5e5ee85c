"""trulymem.Memory against mem0 OSS: its README/docs snippets run unchanged, and every
answer has the keys mem0's answers have, read from the installed mem0ai source (no
network, mem0 is not imported: its package import starts telemetry)."""

from __future__ import annotations

import ast
import importlib.util
import re
import uuid
import warnings
from pathlib import Path
from typing import Any

import anyio
import pytest

from trulymem import AsyncMemory, InvalidInput, Memory, NotFound, TrulyMem

MEM0 = importlib.util.find_spec("mem0")
pytestmark = pytest.mark.skipif(MEM0 is None, reason="mem0ai is not installed")


def _source(rel: str) -> str:
    assert MEM0 is not None and MEM0.submodule_search_locations
    return (Path(next(iter(MEM0.submodule_search_locations))) / rel).read_text()


def _item_fields() -> set[str]:
    """mem0's ``MemoryItem`` fields (configs/base.py)."""
    tree = ast.parse(_source("configs/base.py"))
    cls = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "MemoryItem")
    return {s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}


def _promoted() -> set[str]:
    """The payload keys mem0 shows at an item's top level when the memory has them."""
    found = re.search(r"promoted_payload_keys = \[(.*?)\]", _source("memory/main.py"), re.S)
    assert found is not None
    return set(re.findall(r'"(\w+)"', found.group(1)))


def _history_keys() -> set[str]:
    src = _source("memory/storage.py")
    body = src[src.index("def get_history"):]
    return set(re.findall(r'"(\w+)":', body[body.index("return ["):body.index("for r in rows")]))


def _expected(payload: set[str], *, score: bool) -> set[str]:
    assert payload <= _promoted()
    return (_item_fields() if score else _item_fields() - {"score"}) | payload


def _is_uuid(value: str) -> bool:
    return str(uuid.UUID(value)) == value


@pytest.fixture
def m(db_path: Path) -> Any:
    mem = Memory(str(db_path), embedder="hashing")
    yield mem
    mem.close()


def test_readme_snippets_have_mem0s_keys(m: Memory) -> None:
    # mem0's quick start (docs: open-source/python-quickstart), infer=False: no model here
    messages = [
        {"role": "user", "content": "Hi, I'm Alex. I'm a vegetarian and I'm allergic to nuts."},
        {"role": "assistant", "content": "Hello Alex! I've noted that you're a vegetarian and have a nut allergy."},
    ]
    result = m.add(messages, user_id="alex", metadata={"category": "food"}, infer=False)
    assert all(set(r) == {"id", "memory", "event", "actor_id", "role"} for r in result["results"])
    assert [r["role"] for r in result["results"]] == ["user", "assistant"]
    related = m.search(query="What are my dietary restrictions? vegetarian", filters={"user_id": "alex"}, top_k=3)
    assert related["results"] and set(related) == {"results"}
    for entry in related["results"]:
        assert set(entry) == _expected({"user_id", "role"}, score=True)
        assert entry["metadata"] == {"category": "food"} and 0 < entry["score"] <= 1
    memories_str = "\n".join(f"- {entry['memory']}" for entry in related["results"])  # the README's use
    assert "vegetarian" in memories_str
    all_memories = m.get_all(filters={"user_id": "alex"})
    assert set(all_memories) == {"results"} and len(all_memories["results"]) == 2
    assert all(set(x) == _expected({"user_id", "role"}, score=False) for x in all_memories["results"])
    memory_id = result["results"][0]["id"]
    one = m.get(memory_id)
    assert one is not None and set(one) == _expected({"user_id", "role"}, score=True) and one["score"] is None
    assert m.update(memory_id=memory_id, data="Alex is vegan and allergic to nuts") == {
        "message": "Memory updated successfully!"}
    history = m.history(memory_id=memory_id)
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert all(set(h) == _history_keys() for h in history)
    assert m.delete(memory_id=memory_id) == {"message": "Memory deleted successfully!"}
    assert m.delete_all(user_id="alex") == {"message": "Memories deleted successfully!"}
    assert m.get_all(filters={"user_id": "alex"}) == {"results": []}
    m.reset()


def test_chat_snippet_keeps_the_assistants_words_off_the_user(m: Memory) -> None:
    # the README's chat_with_memories: system prompt, user message, the assistant's answer
    messages = [{"role": "system", "content": "You are a helpful AI."},
                {"role": "user", "content": "I adopted a cat called Miso"},
                {"role": "assistant", "content": "Noted!"}]
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        added = m.add(messages, user_id="sam")["results"]  # infer=True without a model: stored as given
    assert [(r["memory"], r["role"]) for r in added] == [("I adopted a cat called Miso", "user"),
                                                         ("Noted!", "assistant")]  # mem0 skips system messages
    named = m.add([{"role": "user", "name": "sam_k", "content": "I work nights"}], user_id="sam", infer=False)
    assert named["results"][0]["actor_id"] == "sam_k"
    item = m.get(named["results"][0]["id"])
    assert item is not None and item["actor_id"] == "sam_k" and item["role"] == "user"
    assert set(item) == _expected({"user_id", "role", "actor_id"}, score=True)
    assert m.history(item["id"])[0]["actor_id"] == "sam_k"
    with TrulyMem(m.store, user_id="sam") as tm:  # closes the store: last
        about_user = [f.object for f in tm.history("user", "memory")]
        assert "Noted!" not in about_user  # not a fact about the user
        assert [f.object for f in tm.history("assistant", "memory")] == ["Noted!"]


def test_update_keeps_the_id_and_history_behind_it(m: Memory) -> None:
    mid = m.add("I live in Lisbon", user_id="ann", infer=False)["results"][0]["id"]
    assert _is_uuid(mid)
    m.update(mid, text="I live in Porto")
    m.update(mid, text="I live in Faro")
    assert m.get(mid)["memory"] == "I live in Faro"  # type: ignore[index]
    assert [x["id"] for x in m.get_all(filters={"user_id": "ann"})["results"]] == [mid]
    assert m.search("Faro", filters={"user_id": "ann"})["results"][0]["id"] == mid
    history = m.history(mid)
    assert [(h["event"], h["old_memory"], h["new_memory"]) for h in history] == [
        ("ADD", None, "I live in Lisbon"), ("UPDATE", "I live in Lisbon", "I live in Porto"),
        ("UPDATE", "I live in Porto", "I live in Faro")]
    assert {h["memory_id"] for h in history} == {mid} and all(_is_uuid(h["id"]) for h in history)
    assert len({h["id"] for h in history}) == 3 and not any(h["is_deleted"] for h in history)
    assert history[0]["created_at"] == history[2]["created_at"] and history[2]["updated_at"] >= history[1]["updated_at"]
    m.update(mid, metadata={"pinned": True})  # metadata only: same version, same id
    assert m.get(mid)["metadata"] == {"pinned": True}  # type: ignore[index]
    m.delete(mid)
    assert m.get(mid) is None
    last = m.history(mid)[-1]
    assert last["event"] == "DELETE" and last["is_deleted"] is True and last["new_memory"] is None
    with pytest.raises(NotFound):
        m.update(mid, text="I live in Braga")


def test_older_hex_ids_show_as_uuids(m: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []  # ids as rows written before UUIDs: 32 hex digits

    def hex_ids(n: int) -> list[str]:
        made.extend(uuid.uuid4().hex for _ in range(n))
        return made[-n:]

    monkeypatch.setattr("trulymem.model.new_id", lambda: hex_ids(1)[0])
    monkeypatch.setattr("trulymem.tools.commit.new_ids", hex_ids)
    mid = m.add("I like tea", user_id="di", infer=False)["results"][0]["id"]
    monkeypatch.undo()
    assert uuid.UUID(mid).hex in made  # stored in the old form, answered in UUID form
    assert _is_uuid(mid) and m.get(mid)["id"] == mid  # type: ignore[index]
    assert m.get(uuid.UUID(mid).hex)["id"] == mid  # type: ignore[index]  # the stored form works too
    m.update(mid, text="I like coffee")
    assert m.get(mid)["memory"] == "I like coffee"  # type: ignore[index]
    assert {h["memory_id"] for h in m.history(uuid.UUID(mid).hex)} == {mid}


def test_tools_use_the_same_public_ids(m: Memory) -> None:
    mid = m.add("I like tea", user_id="bo", infer=False)["results"][0]["id"]
    with TrulyMem(m.store, user_id="bo") as tm:  # the operations the HTTP and MCP routes run
        res = tm.call("update_memory", {"memory_id": mid, "text": "I like coffee"})
        assert res.ok and res.result["id"] == mid  # type: ignore[index]
        got = tm.call("get_memory", {"memory_id": mid})
        assert got.ok and got.result["id"] == mid and got.result["memory"] == "I like coffee"  # type: ignore[index]
        hist = tm.call("memory_history", {"memory_id": mid})
        assert [h["memory_id"] for h in hist.result["results"]] == [mid, mid]  # type: ignore[index]
        listed = tm.call("get_memories", {})
        assert [x["id"] for x in listed.result["results"]] == [mid]  # type: ignore[index]
        assert tm.call("delete_memory", {"memory_id": mid}).result["id"] == mid  # type: ignore[index]


def test_get_all_and_search_take_mem0s_parameters(m: Memory) -> None:
    for text in ("I like tea", "I like green tea", "I like black tea"):
        m.add(text, user_id="cy", infer=False)
    assert len(m.get_all(filters={"user_id": "cy"}, top_k=2, show_expired=False)["results"]) == 2
    found = m.search("tea", filters={"user_id": "cy"}, top_k=2, threshold=0.0, rerank=False, explain=False,
                     show_expired=False)
    assert len(found["results"]) == 2
    assert m.search("tea", filters={"user_id": "cy"}, rerank=True, explain=True)["results"]
    for call, field in ((lambda: m.search("tea", filters={"user_id": "cy"}, reference_date="2024-01-01"),
                         "reference_date"),
                        (lambda: m.search("tea", filters={"user_id": "cy"}, rerank="yes"), "rerank"),
                        (lambda: m.add("x", user_id="cy", timestamp=1700000000), "timestamp"),
                        (lambda: m.add("x", user_id="cy", memory_type="procedural_memory"), "memory_type"),
                        (lambda: m.get_all(filters={"user_id": "cy"}, top_k=0), "page_size")):
        with pytest.raises(InvalidInput) as exc:
            call()  # type: ignore[no-untyped-call]
        assert exc.value.field == field
    assert len(m.get_all(filters={"user_id": "cy"})["results"]) == 3  # the refused adds stored nothing

    async def main() -> None:
        am = AsyncMemory(m.store)
        assert len((await am.search("tea", filters={"user_id": "cy"}, top_k=1, rerank=False))["results"]) == 1
        assert len((await am.get_all(filters={"user_id": "cy"}, top_k=1))["results"]) == 1

    anyio.run(main)
