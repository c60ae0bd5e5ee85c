"""Every public method of mem0ai 1.x's ``MemoryClient`` and ``AsyncMemoryClient`` against
a ``trulymem serve`` at ``argv[1]``, results checked. Run by ``test_mem0_v1_client.py`` in
its own process, with mem0ai 1.x first on ``sys.path`` (the test's own process has 2.x).
Prints one line, ``ok <mode> <calls>``; any failure is a traceback and a non-zero exit."""

from __future__ import annotations

import asyncio
import inspect
import sys
from typing import Any

import httpx
import mem0
from mem0.client.main import AsyncMemoryClient, MemoryClient
from mem0.exceptions import MemoryError as Mem0Error

SERVED = {"add", "get", "get_all", "search", "update", "delete", "delete_all", "history", "users", "delete_users",
          "reset", "batch_update", "batch_delete"}
NOT_SUPPORTED = {"create_memory_export", "get_memory_export", "get_summary", "feedback", "get_project",
                 "update_project", "get_webhooks", "create_webhook", "update_webhook", "delete_webhook"}
CLIENT_SIDE = {"chat"}


class Sync:
    """The async client's methods called like the sync ones."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.loop = asyncio.new_event_loop()

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.client, name)

        def call(*a: Any, **kw: Any) -> Any:
            out = fn(*a, **kw)  # 1.x's error decorator hides that its methods are coroutine functions
            return self.loop.run_until_complete(out) if inspect.isawaitable(out) else out
        return call


def raises(fn: Any, *args: Any, match: str = "", **kw: Any) -> None:
    """One error naming ``match``: mem0's, or (1.x's async client, whose error decorator
    does not await) httpx's with our error in its response."""
    try:
        fn(*args, **kw)
    except Mem0Error as exc:
        assert match in str(exc), (match, str(exc))
        return
    except httpx.HTTPStatusError as exc:
        assert match in exc.response.text, (match, exc.response.text)
        return
    raise AssertionError(f"{fn} did not raise")


def script(c: Any, me: str) -> int:
    """mem0ai 1.x's documented calls (docs.mem0.ai, platform quickstart of 1.x), checked."""
    added = c.add([{"role": "user", "content": "I live in Lisbon"}], user_id=me, infer=False,
                  metadata={"food": "vegan"}, version="v2")
    lisbon = added["results"][0]
    assert lisbon["memory"] == "I live in Lisbon" and lisbon["event"] == "ADD", added
    many = c.add("I drink green tea", user_id=me, agent_id="helper", run_id="run-1", infer=False)
    tea = many["results"][0]["id"]
    assert c.get(lisbon["id"])["metadata"] == {"food": "vegan"}
    assert {m["memory"] for m in c.get_all(user_id=me)["results"]} == {"I live in Lisbon", "I drink green tea"}
    assert c.get_all(version="v2", filters={"AND": [{"user_id": me}, {"agent_id": "helper"}]})["count"] == 1
    page = c.get_all(filters={"user_id": me}, page=1, page_size=1)
    assert page["count"] == 2 and len(page["results"]) == 1 and page["next"]
    assert len(c.get_all(user_id=me, top_k=1)["results"]) == 1
    found = c.search("where do I live", user_id=me, top_k=1, rerank=True, keyword_search=True, filter_memories=True)
    assert [r["id"] for r in found["results"]] == [lisbon["id"]], found
    found = c.search("where do I live", version="v2", filters={"AND": [{"user_id": me}, {"metadata": {"food": "vegan"}}]})
    assert [r["id"] for r in found["results"]] == [lisbon["id"]], found
    found = c.search("Lisbon tea", user_id=me, metadata={"food": "vegan"})  # 1.x's metadata narrows by those keys
    assert [r["id"] for r in found["results"]] == [lisbon["id"]], found
    found = c.search("tea", filters={"AND": [{"user_id": me}, {"keywords": "GREEN"}]})
    assert [r["id"] for r in found["results"]] == [tea], found
    found = c.search("Lisbon tea", filters={"AND": [{"user_id": me}, {"memory_ids": [tea]}]})
    assert [r["id"] for r in found["results"]] == [tea], found
    raises(c.search, "tea", filters={"AND": [{"user_id": me}, {"categories": {"in": ["food"]}}]}, match="categories")
    assert c.update(lisbon["id"], text="I live in Porto")["memory"] == "I live in Porto"
    assert c.get(lisbon["id"])["memory"] == "I live in Porto"
    assert [e["event"] for e in c.history(lisbon["id"])] == ["ADD", "UPDATE"]
    raises(c.update, lisbon["id"], timestamp=1700000000, match="timestamp")  # nothing changed
    assert c.get(lisbon["id"])["memory"] == "I live in Porto"
    entities = c.users()["results"]
    assert {(e["type"], e["name"]) for e in entities} >= {("user", me), ("agent", "helper"), ("run", "run-1")}
    assert "1" in c.batch_update([{"memory_id": tea, "text": "I drink black tea"}])["message"]
    assert c.get(tea)["memory"] == "I drink black tea"
    assert "1" in c.batch_delete([{"memory_id": tea}])["message"]
    raises(c.get, tea)
    assert c.delete(lisbon["id"])["message"]
    c.add("I like jazz", user_id=me, infer=False)
    assert c.delete_all(user_id=me)["message"]
    assert c.get_all(user_id=me)["results"] == []
    c.add("I like blues", user_id=me, run_id="run-2", infer=False)
    assert c.delete_users(run_id="run-2")["message"] == "Entity deleted successfully."
    c.add("I like soul", user_id=me, infer=False)
    assert c.delete_users(user_id=me)["message"] == "Entity deleted successfully."
    c.add("I like funk", user_id=me, infer=False)
    assert "reset" in c.reset()["message"].lower()
    assert c.get_all(user_id=me)["results"] == []
    for name, args in (("create_memory_export", ("{}",)), ("get_memory_export", ()), ("get_summary", ()),
                       ("feedback", ("x", "POSITIVE")), ("get_project", ()), ("update_project", (None, "x")),
                       ("get_webhooks", ("p",)), ("create_webhook", ("http://127.0.0.1/", "n", "p", ["e"])),
                       ("update_webhook", (1, "n")), ("delete_webhook", (1,))):
        raises(getattr(c, name), *args, match="not_supported")
    try:
        c.chat()
        raise AssertionError("chat() did not raise")
    except NotImplementedError:
        pass
    return 30


def main() -> None:
    url, mode = sys.argv[1], sys.argv[2]
    assert mem0.__file__ and "mem0ai-1" in mem0.__file__, mem0.__file__  # the 1.x copy, not the installed 2.x
    for cls in (MemoryClient, AsyncMemoryClient):
        public = {n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}
        assert public == SERVED | NOT_SUPPORTED | CLIENT_SIDE, public ^ (SERVED | NOT_SUPPORTED | CLIENT_SIDE)
    c: Any = MemoryClient(api_key="local", host=url) if mode == "sync" else \
        Sync(AsyncMemoryClient(api_key="local", host=url))
    print(f"ok {mode} {script(c, 'alice')}")


if __name__ == "__main__":
    main()
