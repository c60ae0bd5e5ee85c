"""Profile topics read by a chat model at ingest (optional): batched calls to the
project's scripted local model server over HTTP, only known topics kept, the model's
statements marked with their source, and nothing stored when the model is missing
or answers nonsense."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trulymem import TrulyMem
from trulymem.enrich.model_profiles import BATCH, SOURCE, parse_topics
from trulymem.errors import InvalidInput
from trulymem.llm import ScriptedLLM
from trulymem.llm.openai_chat import OpenAIChat
from trulymem.llm.scripted_server import ScriptedServer
from trulymem.model import NodeType, utcnow
from trulymem.recall import RecallConfig, RecallQuery, recall
from trulymem.store.base import FactQuery
from trulymem.tools import ToolContext, get_tool, run_tool

TALK = [
    {"speaker": "Ines", "text": "Morning! Any plans for the weekend?", "id": "K1:1"},
    {"speaker": "Emil", "text": "Luna and Oliver chewed the sofa again, the little rascals.", "id": "K1:2"},
    {"speaker": "Ines", "text": "Ha, typical kittens.", "id": "K1:3"},
]


def _ctx(mem: TrulyMem, llm: object | None) -> ToolContext:
    return ToolContext(store=mem.store, scope=mem.scope, now=utcnow(), embedder=mem.embedder, llm=llm)  # type: ignore[arg-type]


def _stated(mem: TrulyMem) -> list[tuple[str, str, str | None]]:
    with mem.store.transaction(write=False):
        facts = mem.store.facts(FactQuery(scope=mem.scope.user_wide(), relation_keys=["stated_in"]))
    return sorted((f.subject or "", f.object or "", f.source) for f in facts)


def test_parse_keeps_known_topics_of_known_messages() -> None:
    reply = json.dumps([{"message": 1, "topics": ["Pets", "astrology"]}, {"message": 7, "topics": ["pets"]},
                        {"message": "x", "topics": ["pets"]}, {"topics": ["pets"]}, {"message": 0, "topics": "pets"}])
    assert parse_topics(reply, 3) == {1: ["pets"]}
    assert parse_topics("```json\n[]\n```", 3) == {}
    with pytest.raises(InvalidInput):
        parse_topics("I think message 1 is about pets.", 3)


def test_the_scripted_model_server_names_a_statement_the_rules_miss(db_path: Path) -> None:
    reply = json.dumps([{"message": 1, "topics": ["pets"]}, {"message": 0, "topics": ["weather"]}])
    with ScriptedServer([reply], model="m", api_key="k").start() as srv, \
            TrulyMem(db_path, user_id="u", embedder="hashing") as mem:
        llm = OpenAIChat("m", base_url=srv.base_url, api_key="k", timeout=10, max_retries=0)
        run_tool(get_tool("memory_ingest"), _ctx(mem, llm), {"messages": TALK, "model_profiles": True})
        assert len(srv.requests) == 1  # one batch
        asked = srv.requests[0]["messages"][0]["content"]
        assert "2. Ines: Ha, typical kittens." in asked and "pets" in asked
        # no first person: the rules leave K1:2 out; the model files it under Emil's pets
        assert _stated(mem) == [("Emil · pets", "K1:2", SOURCE)]
        with mem.store.transaction(write=False):
            res = recall(mem.store, mem.scope, RecallQuery("What pets does Emil have?", depth=1, limit=10),
                         mem.clock(), RecallConfig())
        hits = [n for n in res.nodes if n.type == NodeType.EPISODE and any("profile" in w for w in n.why)]
        assert [n.metadata["turn_id"] for n in hits] == ["K1:2"]


def test_messages_go_to_the_model_in_batches(db_path: Path) -> None:
    n = 2 * BATCH + 3
    msgs = [{"speaker": "Emil", "text": f"Note {i}.", "id": f"B:{i}"} for i in range(n)]
    llm = ScriptedLLM(["[]", json.dumps([{"message": 1, "topics": ["work"]}]), "[]"])
    with TrulyMem(db_path, user_id="u", embedder="hashing") as mem:
        run_tool(get_tool("memory_ingest"), _ctx(mem, llm), {"messages": msgs, "model_profiles": True})
        assert _stated(mem) == [("Emil · work", f"B:{BATCH + 1}", SOURCE)]  # the second batch's message 1


def test_no_model_or_no_json_stores_nothing(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="u", embedder="hashing") as mem:
        for llm in (None, ScriptedLLM(["Sure! Message 1 is about pets."])):
            with pytest.raises(InvalidInput) as exc:
                run_tool(get_tool("memory_ingest"), _ctx(mem, llm), {"messages": TALK, "model_profiles": True})
            assert exc.value.field == "model_profiles"
        with mem.store.transaction(write=False):
            assert not mem.store.facts(FactQuery(scope=mem.scope.user_wide()))
