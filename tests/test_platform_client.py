"""mem0's own hosted-platform clients (``mem0ai``'s ``MemoryClient`` and
``AsyncMemoryClient``) against a real ``trulymem serve``, changing only ``host=``:
every public method, with its results checked, and nothing leaving localhost."""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Served
from tests.test_http import key

if importlib.util.find_spec("mem0") is None:  # not imported here: telemetry must be off before mem0 loads
    pytest.skip("mem0ai is not installed", allow_module_level=True)

LOOPBACK = {"127.0.0.1", "::1", "localhost"}
# what trulymem serves, and what answers 501 not_supported (or fails in the client itself)
SERVED = {"add", "get", "get_all", "search", "update", "delete", "delete_all", "history", "users", "delete_users",
          "reset", "batch_update", "batch_delete"}
NOT_SUPPORTED = {"create_memory_export", "get_memory_export", "get_summary", "feedback", "get_profile",
                 "generate_profile", "get_profile_settings", "update_profile_settings", "sample_profiles",
                 "get_profile_job", "get_project", "update_project", "get_webhooks", "create_webhook", "update_webhook",
                 "delete_webhook"}
CLIENT_SIDE = {"chat"}  # raises NotImplementedError in mem0ai itself


@pytest.fixture
def mem0_client(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """The ``mem0`` package with telemetry off (its documented ``MEM0_TELEMETRY``) and every
    connection or name lookup beyond loopback refused and recorded."""
    monkeypatch.setenv("MEM0_TELEMETRY", "False")  # read once, when mem0 is first imported
    monkeypatch.setenv("MEM0_DIR", str(tmp_path / "mem0"))
    loaded = "mem0.memory.telemetry" in sys.modules
    import mem0.client.main as main
    import mem0.memory.telemetry as telemetry

    if loaded:  # another test imported mem0 first: the switch as the variable would have set it
        monkeypatch.setattr(telemetry, "MEM0_TELEMETRY", False)
        monkeypatch.setattr(telemetry.client_telemetry, "posthog", None)
    assert telemetry.MEM0_TELEMETRY is False and telemetry.client_telemetry.posthog is None
    escaped: list[Any] = []
    real_connect, real_lookup = socket.socket.connect, socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in LOOPBACK:
            escaped.append(address)
            raise OSError(f"test: no connections beyond loopback ({address})")
        return real_connect(self, address)

    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in LOOPBACK and host is not None:
            escaped.append(host)
            raise socket.gaierror(f"test: no name lookups ({host})")
        return real_lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    yield main
    assert escaped == []


def _public(cls: type) -> set[str]:
    return {n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}


def test_every_public_method_is_accounted_for(mem0_client: Any) -> None:
    """A method a new mem0ai adds fails here until it is served or listed as unsupported."""
    for cls in (mem0_client.MemoryClient, mem0_client.AsyncMemoryClient):
        assert _public(cls) == SERVED | NOT_SUPPORTED | CLIENT_SIDE


class Sync:
    """The async client's methods called like the sync ones, so one script tests both."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.loop = asyncio.new_event_loop()  # one loop: the client's connection pool belongs to it

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.client, name)
        if not inspect.iscoroutinefunction(fn):
            return fn
        return lambda *a, **kw: self.loop.run_until_complete(fn(*a, **kw))

    def close(self) -> None:
        self.loop.run_until_complete(self.client.async_client.aclose())
        self.loop.close()


def script(c: Any, me: str, mem0_error: type[Exception]) -> None:
    """Every served method, results checked; mem0's option names and shapes as its docs use them."""
    added = c.add("I live in Lisbon", user_id=me, infer=False, metadata={"source": "test"})
    lisbon = added["results"][0]
    assert lisbon["memory"] == "I live in Lisbon" and lisbon["event"] == "ADD"
    many = c.add([{"role": "user", "content": "I drink green tea"}, {"role": "user", "content": "I ride a bike"}],
                 user_id=me, agent_id="helper", run_id="run-1", infer=False)
    assert [r["memory"] for r in many["results"]] == ["I drink green tea", "I ride a bike"]
    got = c.get(lisbon["id"])
    assert got["memory"] == "I live in Lisbon" and got["user_id"] == me and got["metadata"] == {"source": "test"}
    page = c.get_all(filters={"user_id": me}, page=1, page_size=2)
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"] and page["previous"] is None
    rest = c.get_all(filters={"user_id": me}, page=2, page_size=2)
    assert len(rest["results"]) == 1 and rest["next"] is None and rest["previous"]
    assert c.get_all(filters={"AND": [{"user_id": me}, {"agent_id": "helper"}]})["count"] == 2
    found = c.search("where do I live", filters={"user_id": me}, top_k=1, rerank=True)
    assert [r["id"] for r in found["results"]] == [lisbon["id"]] and found["results"][0]["score"] > 0
    updated = c.update(lisbon["id"], text="I live in Porto")
    assert updated["memory"] == "I live in Porto"
    assert c.get(lisbon["id"])["memory"] == "I live in Porto"  # the id mem0 gave still finds the memory
    assert c.update(updated["id"], metadata={"source": "edited"})["metadata"] == {"source": "edited"}
    events = c.history(updated["id"])
    assert [e["event"] for e in events] == ["ADD", "UPDATE"] and events[-1]["new_memory"] == "I live in Porto"
    # bad input: one typed error, nothing changed
    with pytest.raises(mem0_error, match="expiration_date"):
        c.update(updated["id"], text="I live in Faro", expiration_date="2030-01-01")
    assert c.get(updated["id"])["memory"] == "I live in Porto"
    entities = c.users()["results"]
    assert {(e["type"], e["name"]) for e in entities} >= {("user", me), ("agent", "helper"), ("run", "run-1")}
    assert next(e for e in entities if e["type"] == "user")["total_memories"] == 3
    tea, bike = (r["id"] for r in many["results"])
    assert "2" in c.batch_update([{"memory_id": tea, "text": "I drink black tea"}, {"memory_id": bike, "text": "I walk"}])[
        "message"]
    assert c.get(tea)["memory"] == "I drink black tea"
    with pytest.raises(mem0_error, match="memories.1"):  # the second is unknown: the first is not changed either
        c.batch_update([{"memory_id": tea, "text": "I drink coffee"}, {"memory_id": "nope", "text": "x"}])
    assert c.get(tea)["memory"] == "I drink black tea"
    assert "1" in c.batch_delete([{"memory_id": bike}])["message"]
    with pytest.raises(mem0_error):
        c.get(bike)
    assert c.delete(tea)["message"]
    assert c.get_all(filters={"user_id": me})["count"] == 1
    with pytest.raises(mem0_error, match="has memories here"):  # its two memories are gone already
        c.delete_users(run_id="run-1")
    c.add("I drink oolong", user_id=me, run_id="run-1", infer=False)
    assert c.delete_users(run_id="run-1")["message"] == "Entity deleted successfully."
    assert c.delete_all(user_id=me)["message"]
    assert c.get_all(filters={"user_id": me})["count"] == 0
    c.add("I like jazz", user_id=me, infer=False)
    assert c.delete_users(user_id=me)["message"] == "Entity deleted successfully."
    c.add("I like blues", user_id=me, infer=False)
    assert "reset" in c.reset()["message"]
    assert c.get_all(filters={"user_id": me})["count"] == 0
    for name, args in (("create_memory_export", ("{}",)), ("get_memory_export", ()), ("get_summary", ()),
                       ("feedback", ("x", "POSITIVE")), ("get_profile", (me,)), ("generate_profile", (me,)),
                       ("get_profile_settings", ()), ("update_profile_settings", (True,)), ("sample_profiles", ()),
                       ("get_profile_job", ("job1",))):
        with pytest.raises(mem0_error, match="not_supported"):
            getattr(c, name)(*args)
    with pytest.raises(NotImplementedError):
        c.chat()
    with pytest.raises(mem0_error, match="not_supported"):
        got = c.project.get()  # the project manager's routes too
        if inspect.iscoroutine(got):
            c.loop.run_until_complete(got)
    for name, args in (("get_project", ()), ("update_project", (None, "x")), ("get_webhooks", ("p",)),
                       ("create_webhook", ("http://127.0.0.1/", "n", "p", ["e"])), ("update_webhook", (1, "n")),
                       ("delete_webhook", (1,))):
        with pytest.raises(mem0_error, match="not_supported"):
            getattr(c, name)(*args)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_platform_client_with_a_user_key(db_path: Path, mem0_client: Any, mode: str) -> None:
    from mem0.exceptions import MemoryError as Mem0Error

    alice, bob = key(db_path, "--user", "alice"), key(db_path, "--user", "bob")
    served = Served(str(db_path))
    try:
        other = mem0_client.MemoryClient(api_key=bob, host=served.url)
        secret = other.add("Bob's secret", user_id="bob", infer=False)["results"][0]["id"]
        other.add("Bob's helper note", user_id="bob", agent_id="helper", run_id="run-1", infer=False)
        c: Any = mem0_client.MemoryClient(api_key=alice, host=served.url) if mode == "sync" else \
            Sync(mem0_client.AsyncMemoryClient(api_key=alice, host=served.url))
        script(c, "alice", Mem0Error)
        # alice's key never reaches bob: his ids and his name answer as if unknown, and nothing of his changed
        for call in (lambda: c.get(secret), lambda: c.delete(secret), lambda: c.update(secret, text="x"),
                     lambda: c.get_all(filters={"user_id": "bob"}), lambda: c.search("secret", filters={"user_id": "bob"}),
                     lambda: c.delete_all(user_id="bob"), lambda: c.add("x", user_id="bob", infer=False),
                     lambda: c.history(secret), lambda: c.delete_users(user_id="bob"),
                     lambda: c.batch_update([{"memory_id": secret, "text": "x"}]),
                     lambda: c.batch_delete([{"memory_id": secret}])):
            with pytest.raises(Mem0Error):
                call()
        # an agent or run entity is deleted within the key's own user only
        c.add("Alice's helper note", user_id="alice", agent_id="helper", run_id="run-1", infer=False)
        assert c.delete_users(agent_id="helper")["message"]
        with pytest.raises(Mem0Error, match="has memories here"):  # alice's run-1 went with her helper note
            c.delete_users(run_id="run-1")
        assert other.get(secret)["memory"] == "Bob's secret"
        assert other.get_all(filters={"user_id": "bob"})["count"] == 2
        assert {e["name"] for e in other.users()["results"]} == {"bob", "helper", "run-1"}
        c.close() if isinstance(c, Sync) else c.client.close()
        other.client.close()
        with httpx.Client() as own, pytest.raises(ValueError, match="401"):  # closed though the constructor fails
            mem0_client.MemoryClient(api_key="not-a-key", host=served.url, client=own)
    finally:
        served.stop()


def test_platform_client_on_a_keyless_local_server(db_path: Path, mem0_client: Any) -> None:
    """mem0's client must send a key; a keyless server ignores it and serves its default user."""
    from mem0.exceptions import MemoryError as Mem0Error

    served = Served(str(db_path), "--user", "carol")
    try:
        c = mem0_client.MemoryClient(api_key="anything", host=served.url)
        lisbon = c.add("I live in Lisbon", infer=False)["results"][0]  # no user named: carol
        assert c.get(lisbon["id"])["user_id"] == "carol"
        assert c.get_all()["count"] == 1 and c.search("Lisbon")["results"][0]["id"] == lisbon["id"]
        c.add("Dan's note", user_id="dan", infer=False)  # named explicitly: dan
        assert c.get_all()["count"] == 1  # never both users without being asked
        assert {e["name"] for e in c.users()["results"] if e["type"] == "user"} == {"carol"}
        assert c.get_all(filters={"user_id": "dan"})["count"] == 1
        c.reset()  # the default user's memories: the script starts from an empty memory
        assert c.get_all()["count"] == 0 and c.get_all(filters={"user_id": "dan"})["count"] == 1
        script(c, "carol", Mem0Error)
        c.client.close()
    finally:
        served.stop()
