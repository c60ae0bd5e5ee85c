"""What a mem0 user switching to trulymem tries first (issue 27), with mem0ai 2.x's own
client against a real ``trulymem serve`` and with ``trulymem.Memory`` as mem0's
quickstart uses it: platform filters (metadata, keywords, memory_ids, wildcards, an OR
of users, categories refused), by-id calls on a keyless server for any user, mem0's
config dictionary, ``ValueError`` for unknown ids; and install hints that work for how
trulymem was installed."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import Served
from tests.test_http import key
from trulymem import AsyncMemory, InvalidInput, Memory, NotFound
from trulymem.llm.scripted_server import ScriptedServer

HAS_MEM0 = importlib.util.find_spec("mem0") is not None


@pytest.fixture
def client(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db_path: Path) -> Iterator[Any]:
    if not HAS_MEM0:
        pytest.skip("mem0ai is not installed")
    monkeypatch.setenv("MEM0_TELEMETRY", "False")
    monkeypatch.setenv("MEM0_DIR", str(tmp_path / "mem0"))
    import mem0.client.main as main
    import mem0.memory.telemetry as telemetry

    monkeypatch.setattr(telemetry, "MEM0_TELEMETRY", False)
    served = Served(str(db_path))
    try:
        c = main.MemoryClient(api_key="local", host=served.url)
        yield c
        c.client.close()
    finally:
        served.stop()


def error() -> type[Exception]:
    from mem0.exceptions import MemoryError as Mem0Error

    return Mem0Error


def test_platform_filters_and_by_id_calls_on_a_keyless_server(client: Any) -> None:
    c = client
    vegan = c.add("I eat vegan food", user_id="alice", infer=False, metadata={"food": "vegan"})["results"][0]["id"]
    c.add("I cycle to work", user_id="alice", agent_id="coach", infer=False)
    bob = c.add("Bob eats meat", user_id="bob", infer=False, metadata={"food": "meat"})["results"][0]["id"]
    # metadata as a nested object, on both listing and search
    f = {"AND": [{"user_id": "alice"}, {"metadata": {"food": "vegan"}}]}
    assert [m["id"] for m in c.get_all(filters=f)["results"]] == [vegan]
    assert [m["id"] for m in c.search("food", filters=f)["results"]] == [vegan]
    # keywords: a case-insensitive substring of the text, as on the platform
    f = {"AND": [{"user_id": "alice"}, {"keywords": "VEGAN"}]}
    assert [m["id"] for m in c.get_all(filters=f)["results"]] == [vegan]
    # memory_ids: public ids (an updated memory keeps its id)
    c.update(vegan, text="I eat vegan food only")
    f = {"AND": [{"user_id": "alice"}, {"memory_ids": [vegan, bob]}]}
    assert [m["memory"] for m in c.get_all(filters=f)["results"]] == ["I eat vegan food only"]
    assert [m["id"] for m in c.search("vegan food", filters=f)["results"]] == [vegan]
    # "*": the field is set (the platform's rule); on user_id: every user the server reaches
    f = {"AND": [{"user_id": "alice"}, {"agent_id": "*"}]}
    assert [m["memory"] for m in c.get_all(filters=f)["results"]] == ["I cycle to work"]
    assert {m["user_id"] for m in c.get_all(filters={"user_id": "*"})["results"]} == {"alice", "bob"}
    # … and a search of "*" searches each user with such memories
    assert {m["id"] for m in c.search("eats food", filters={"user_id": "*"})["results"]} >= {vegan, bob}
    # an OR of users is searched in each, merged by score
    found = c.search("eats food", filters={"OR": [{"user_id": "alice"}, {"user_id": "bob"}]})["results"]
    assert {vegan, bob} <= {m["id"] for m in found} and [m["score"] for m in found] == sorted(
        (m["score"] for m in found), reverse=True)
    found = c.search("eats food", filters={"user_id": {"in": ["bob"]}})["results"]
    assert [m["id"] for m in found] == [bob]
    # categories: one typed error naming it, not an empty answer
    with pytest.raises(error(), match="categories"):
        c.get_all(filters={"AND": [{"user_id": "alice"}, {"categories": {"in": ["food"]}}]})
    # by id, a keyless server reaches a memory of any user, as its add/search/get_all do
    assert c.get(bob)["memory"] == "Bob eats meat"
    assert c.update(bob, text="Bob eats fish", user_id="bob")["memory"] == "Bob eats fish"
    assert [e["event"] for e in c.history(bob)] == ["ADD", "UPDATE"]
    with pytest.raises(error(), match="not_found"):  # the user named is not the memory's
        c.update(bob, text="x", user_id="alice")
    assert c.get(bob)["memory"] == "Bob eats fish"
    assert c.batch_update([{"memory_id": bob, "text": "Bob eats rice"}])
    assert c.get(bob)["memory"] == "Bob eats rice"
    assert c.delete(bob)["message"]
    with pytest.raises(error(), match="not_found"):
        c.get(bob)


def test_a_users_key_still_reaches_only_its_user(db_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    if not HAS_MEM0:
        pytest.skip("mem0ai is not installed")
    monkeypatch.setenv("MEM0_TELEMETRY", "False")
    monkeypatch.setenv("MEM0_DIR", str(tmp_path / "mem0"))
    import mem0.client.main as main

    alice, bob = key(db_path, "--user", "alice"), key(db_path, "--user", "bob")
    served = Served(str(db_path))
    try:
        b = main.MemoryClient(api_key=bob, host=served.url)
        secret = b.add("Bob's secret", user_id="bob", infer=False)["results"][0]["id"]
        a = main.MemoryClient(api_key=alice, host=served.url)
        assert a.search("anything", filters={"user_id": "alice"})["results"] == []  # alice exists from her key
        for call in (lambda: a.get(secret), lambda: a.update(secret, text="x", user_id="bob"),
                     lambda: a.search("secret", filters={"OR": [{"user_id": "alice"}, {"user_id": "bob"}]}),
                     lambda: a.get_all(filters={"user_id": "*"}),
                     lambda: a.search("secret", filters={"user_id": "*"})):
            with pytest.raises(error()):
                call()
        assert b.get(secret)["memory"] == "Bob's secret"
        a.add("Alice's note", user_id="alice", infer=False)
        for call in (lambda: a.delete_all(user_id=""), lambda: a.delete_all(user_id="alice", run_id="")):
            with pytest.raises(error(), match="empty"):  # an empty id is named as wrong: never "no one", never 404
                call()
        assert [m["memory"] for m in a.get_all(filters={"user_id": "alice"})["results"]] == ["Alice's note"]
        a.client.close()
        b.client.close()
    finally:
        served.stop()


# --- trulymem.Memory as mem0's open-source quickstart uses it ---------------------------------

def test_from_config_reads_mem0s_config(tmp_path: Path) -> None:
    with ScriptedServer([json.dumps(["Likes vegan food"])]) as llm:
        config = {"vector_store": {"provider": "qdrant", "config": {"collection_name": "x", "path": "/nowhere"}},
                  "llm": {"provider": "openai", "config": {"model": "scripted", "temperature": 0.1,
                                                           "openai_base_url": llm.base_url, "api_key": "k"}},
                  "history_db_path": "/nowhere/history.db", "version": "v1.1",
                  "custom_fact_extraction_prompt": "Only food preferences.", "db": str(tmp_path / "m.db"),
                  "embedder": "hashing"}
        with pytest.warns(UserWarning, match="vector_store") as said:
            m = Memory.from_config(config_dict=config)
        assert "history_db_path" in str(said[0].message) and "llm.config.temperature" in str(said[0].message)
        with m:
            out = m.add("I am vegan", user_id="alice")
            assert [r["memory"] for r in out["results"]] == ["Likes vegan food"]
            assert "Only food preferences." in llm.requests[0]["messages"][0]["content"]
    # a positional dict, trulymem's own keys only: no warning; AsyncMemory too
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Memory.from_config({"db": str(tmp_path / "n.db"), "embedder": "hashing"}).close()
        am = AsyncMemory.from_config(config_dict={"db": str(tmp_path / "n.db"), "embedder": "hashing"})
        assert asyncio.run(am.history("nothing")) == []
        am.close()


@pytest.mark.parametrize(("config", "field"), [
    ({"llm": {"provider": "anthropic", "config": {"model": "claude"}}}, "llm.provider"),
    ({"llm": {"provider": "openai", "config": {"modle": "x"}}}, "llm.config"),
    ({"embedder": {"provider": "gemini", "config": {}}}, "embedder.provider"),
    ({"vector_store": {"config": {}}}, "vector_store"),
    ({"vectorstore": {"provider": "qdrant"}}, "config_dict"),
    ({"db": ""}, "config_dict.db"),
])
def test_from_config_refuses_what_it_cannot_honour(config: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as exc:
        Memory.from_config(config_dict=config)
    assert exc.value.field == field


def test_mem0_code_paths_for_unknown_ids_and_wildcards(db_path: Path) -> None:
    with Memory(str(db_path), embedder="hashing") as m:
        tea = m.add("I drink tea", user_id="alice", infer=False, metadata={"category": "drinks"})["results"][0]["id"]
        m.add("I ride a bike", user_id="alice", infer=False)
        assert issubclass(NotFound, ValueError) and issubclass(NotFound, KeyError)
        with pytest.raises(ValueError, match="no memory"):  # what mem0's own code catches
            m.update("no-such-memory", text="x")
        assert m.history("no-such-memory") == []
        assert [e["event"] for e in m.history(tea)] == ["ADD"]
        # "*" on a metadata key matches every memory, as over mem0's default vector store
        listed = m.get_all(filters={"user_id": "alice", "category": "*"})["results"]
        assert {x["memory"] for x in listed} == {"I drink tea", "I ride a bike"}
        found = m.search("tea bike", filters={"user_id": "alice", "category": "*"})["results"]
        assert {x["memory"] for x in found} == {"I drink tea", "I ride a bike"}
        # the same key spelled as mem0's metadata object follows the same rule
        nested = m.get_all(filters={"user_id": "alice", "metadata": {"category": "*"}})["results"]
        assert {x["memory"] for x in nested} == {"I drink tea", "I ride a bike"}
        # an unscoped Memory searches every user a filter selects: "*", or only an agent
        m.add("Bob drinks green tea", user_id="bob", agent_id="barista", infer=False)
        assert {x["user_id"] for x in m.search("tea", filters={"user_id": "*"})["results"]} == {"alice", "bob"}
        assert [x["memory"] for x in m.search("tea", filters={"agent_id": "barista"})["results"]] == [
            "Bob drinks green tea"]
        with pytest.raises(InvalidInput, match="needs a user_id"):  # naming no one at all, as mem0 refuses
            m.search("tea")


# --- install hints ----------------------------------------------------------------------------

class FakeDist:
    def __init__(self, direct_url: dict[str, Any] | None) -> None:
        self.text = None if direct_url is None else json.dumps(direct_url)

    def read_text(self, name: str) -> str | None:
        assert name == "direct_url.json"
        return self.text


@pytest.mark.parametrize(("direct_url", "hint"), [
    (None, 'pip install "trulymem[server]"'),
    ({"url": "file:///src/trulymem", "dir_info": {"editable": True}}, 'pip install -e "/src/trulymem[server]"'),
    ({"url": "file:///src/my%20trulymem", "dir_info": {}}, 'pip install "/src/my trulymem[server]"'),
    ({"url": "https://example.org/trulymem-0.1.tar.gz", "archive_info": {}},
     'pip install "trulymem[server] @ https://example.org/trulymem-0.1.tar.gz"'),
])
def test_install_hints_follow_how_trulymem_was_installed(monkeypatch: pytest.MonkeyPatch,
                                                         direct_url: dict[str, Any] | None, hint: str) -> None:
    from trulymem import extras

    monkeypatch.setattr(extras, "distribution", lambda name: FakeDist(direct_url))
    assert extras.install_command("server") == hint
    assert extras.needs("the server", "server", "uvicorn") == f"the server needs its extra: {hint} (uvicorn missing)"


def test_the_cli_hint_is_the_one_for_this_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hint ``trulymem serve`` prints without its extra, for this very install."""
    from click.testing import CliRunner

    from trulymem.cli import main
    from trulymem.extras import install_command

    monkeypatch.setitem(sys.modules, "trulymem.server.connections", None)  # as without the extra
    res = CliRunner().invoke(main, ["serve", "--db", ":memory:"])
    assert res.exit_code != 0 and install_command("server") in res.output
