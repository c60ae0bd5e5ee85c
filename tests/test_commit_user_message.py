"""``memory_commit``'s ``user_message``: a client that is not the built-in Agent (an MCP,
HTTP or tool-calling model) passes the user's message, and each fact about the user that
the message does not state with the same polarity is stored as speculation, with a
warning naming why. Through the library's ``call``, a real MCP stdio client (``trulymem
mcp``) and a real ``trulymem serve`` over HTTP; re-run on PostgreSQL by
tests/contract/test_commit_user_message_pg.py."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.conftest import Clock
from tests.helpers import Served
from trulymem import TrulyMem
from trulymem.store.base import FactQuery
from trulymem.tools import get_tool

# (what the user wrote, the model's claim about the user, the reason named, or None when stated)
CASES: list[tuple[str, tuple[str, str, str], str | None]] = [
    ("Have you ever been to Kyoto in autumn?", ("user", "visited", "Kyoto"), "the user's words are a question"),
    ("My roommate bakes sourdough bread every Sunday.", ("user", "bakes", "sourdough bread"),
     "the user's words are about someone else"),
    ("If the weather holds I'll go kayaking on the fjord.", ("user", "plans_to", "go kayaking"),
     "the user's words are a condition"),
    ("I never eat mushrooms.", ("user", "eats", "mushrooms"), "the user said the opposite"),
    ("Long day at work, I'm exhausted.", ("user", "likes", "cycling"), "not stated by the user"),
    ("I grow tomatoes on my balcony.", ("user", "grows", "tomatoes"), None),
    ("Ich spreche kein Französisch, but I speak Portuguese fluently.", ("user", "speaks", "Portuguese"), None),
]


@pytest.fixture
def memory(db_path: Path) -> Iterator[TrulyMem]:
    with TrulyMem(db_path, user_id="ines", clock=Clock()) as mem:
        yield mem


def _commit(mem: TrulyMem, **args: Any) -> dict[str, Any]:
    res = mem.call("memory_commit", args)
    assert res.ok, res.error
    assert res.result is not None
    return res.result


def _stored(mem: TrulyMem, obj: str) -> list[bool]:
    """The speculation flag of each current fact whose object is ``obj``."""
    return [f.speculation for f in mem.store.facts(FactQuery(scope=mem.scope.user_wide(), validity="current"))
            if f.object == obj]


@pytest.mark.parametrize(("said", "claim", "reason"), CASES, ids=[c[0][:28] for c in CASES])
def test_a_fact_the_message_does_not_state_is_speculation_with_its_reason(
        memory: TrulyMem, said: str, claim: tuple[str, str, str], reason: str | None) -> None:
    subject, relation, obj = claim
    out = _commit(memory, user_message=said, triplets=[{"subject": subject, "relation": relation, "object": obj}])
    assert _stored(memory, obj) == [reason is not None]
    if reason is None:
        assert out["warnings"] == [] and out["facts"][0]["text"] == f"user {relation} {obj}"
    else:
        assert out["warnings"] == [f"stored as speculation ({reason}): user {relation} {obj}"]
        assert out["facts"][0]["text"] == f"user[speculation] {relation} {obj}"


def test_one_warning_per_marked_fact_and_only_facts_about_the_user(memory: TrulyMem) -> None:
    said = "Does my sister still live in Tromsø? I live in Bergen now."
    out = _commit(memory, user_message=said, triplets=[
        {"subject": "user", "relation": "lives_in", "object": "Bergen"},          # stated
        {"subject": "user", "relation": "has_sibling", "object": "a sister in Tromsø"},  # not in these words
        {"subject": "my sister", "relation": "lives_in", "object": "Tromsø"},     # the user's world, asked about
        {"subject": "Tromsø", "relation": "is_in", "object": "Norway"},           # not about the user
        {"subject": "user", "relation": "likes", "object": "fjords", "speculation": True},  # already a guess
    ])
    assert _stored(memory, "Bergen") == [False] and _stored(memory, "Norway") == [False]
    assert _stored(memory, "a sister in Tromsø") == [True] and _stored(memory, "Tromsø") == [True]
    assert _stored(memory, "fjords") == [True]
    assert len(out["warnings"]) == 2, out["warnings"]
    assert any("a sister in Tromsø" in w for w in out["warnings"])
    assert any("(the user's words are a question): my sister lives_in Tromsø" == w.removeprefix("stored as speculation ")
               for w in out["warnings"]), out["warnings"]


def test_without_a_message_nothing_changes_and_a_later_statement_makes_it_a_fact(memory: TrulyMem) -> None:
    out = _commit(memory, triplets=[{"subject": "user", "relation": "plays", "object": "the oboe"}])
    assert out["warnings"] == [] and _stored(memory, "the oboe") == [False]
    # null means not given (a strict schema sends every field)
    assert _commit(memory, user_message=None, triplets=[{"subject": "user", "relation": "owns",
                                                         "object": "a kayak"}])["warnings"] == []
    _commit(memory, user_message="Is a canoe faster?", triplets=[{"subject": "user", "relation": "owns",
                                                                  "object": "a canoe"}])
    assert _stored(memory, "a canoe") == [True]
    out = _commit(memory, user_message="I own a canoe, bought it last spring.",
                  triplets=[{"subject": "user", "relation": "owns", "object": "a canoe"}])
    assert out["reinforced"] and out["warnings"] == [] and _stored(memory, "a canoe") == [False]
    # the Python API's commit takes it too
    res = memory.commit([{"subject": "user", "relation": "owns", "object": "a sailboat"}],
                        user_message="My cousin owns a sailboat.")
    assert res.warnings == ["stored as speculation (the user's words are about someone else): user owns a sailboat"]


@pytest.mark.parametrize(("value", "message"), [
    ("", "at least 1 character"), ("   ", "at least 1 character"), ("x" * 32_001, "at most 32000"), (7, "string"),
], ids=["empty", "blank", "too long", "not text"])
def test_a_bad_user_message_is_refused_and_writes_nothing(memory: TrulyMem, value: Any, message: str) -> None:
    res = memory.call("memory_commit", {"user_message": value,
                                        "triplets": [{"subject": "user", "relation": "likes", "object": "tea"}]})
    assert not res.ok and res.error is not None
    assert res.error["field"] == "user_message" and message in res.error["message"], res.error
    assert _stored(memory, "tea") == []


def test_schemas_offer_user_message_as_optional() -> None:
    tool = get_tool("memory_commit")
    strict = tool.openai_schema(strict=True)["function"]["parameters"]
    assert "user_message" in strict["required"] and "null" in strict["properties"]["user_message"]["type"]
    assert "user_message" not in tool.parameters().get("required", [])
    assert tool.mcp_schema()["properties"]["user_message"]["type"] == ["string", "null"]  # optional: null allowed


# --- a real MCP client over stdio ----------------------------------------------------
async def _over_mcp(db: str) -> tuple[dict[str, Any], dict[str, Any], str, str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "trulymem", "mcp", "--db", db, "--user", "ines"],
                                   env={**os.environ, "TRULYMEM_EMBEDDER": "hashing"})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        prompt = await session.get_prompt("memory_protocol")
        res = await session.call_tool("memory_commit", {
            "user_message": "Would you recommend learning the banjo? My uncle teaches ukulele. I play the mandolin.",
            "triplets": [{"subject": "user", "relation": "learning", "object": "the banjo"},
                         {"subject": "user", "relation": "teaches", "object": "ukulele"},
                         {"subject": "user", "relation": "plays", "object": "the mandolin"}]})
        assert not res.isError, res.content
        listed = await session.call_tool("get_memories", {})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        return (tools["memory_commit"].inputSchema, json.loads(res.content[0].text),  # type: ignore[union-attr]
                text, listed.content[0].text)  # type: ignore[union-attr]


def test_through_a_real_mcp_stdio_client(db_path: Path) -> None:
    pytest.importorskip("mcp")
    schema, out, protocol, listed = anyio.run(_over_mcp, str(db_path))
    assert schema["properties"]["user_message"]["type"] == ["string", "null"]
    assert "user_message" in protocol
    assert [w.split(":")[0] for w in out["warnings"]] == [
        "stored as speculation (the user's words are a question)",
        "stored as speculation (the user's words are about someone else)"]
    spec = {m["object"]: m["speculation"] for m in json.loads(listed)["results"]}
    assert spec == {"the banjo": True, "ukulele": True, "the mandolin": False}


# --- a real HTTP server ----------------------------------------------------------------
def test_over_http(db_path: Path) -> None:
    pytest.importorskip("fastapi")
    s = Served(str(db_path), "--user", "ines")
    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            r = c.post("/v1/tools/memory_commit", json={
                "user_message": "Suppose I adopted a greyhound, it would need a big garden.",
                "triplets": [{"subject": "user", "relation": "has_pet", "object": "a greyhound"}]})
            assert r.status_code == 200, r.text
            assert r.json()["warnings"] == ["stored as speculation (the user's words are a condition): "
                                            "user has_pet a greyhound"]
            bad = c.post("/v1/tools/memory_commit", json={"user_message": "", "triplets": [
                {"subject": "user", "relation": "likes", "object": "rain"}]})
            assert bad.status_code in (400, 422) and "user_message" in bad.text
            listed = c.post("/v1/tools/get_memories", json={}).json()["results"]
            assert [(m["object"], m["speculation"]) for m in listed] == [("a greyhound", True)]
    finally:
        s.stop()


@pytest.mark.parametrize(("said", "why"), [
    ("I live in Lisbon, where do you live?", None), ("我住在里斯本，你呢？", None), ("我住在里斯本，你住在哪里？", None),
    ("I live in Lisbon, you know?", None), ("I can't cook but I live in Lisbon", None),
    ("Maybe I live in Lisbon one day", "the user's words hedge"), ("我可能住在里斯本", "the user's words hedge"),
    ("I wish I lived in Lisbon", "the user's words are a wish"),
    ("My mom thinks I live in Lisbon", "the user reports someone else's words"),
    ("我妈妈说我住在里斯本", "the user reports someone else's words"),
    ("I live in Lisbon.\nI don't live in Lisbon anymore.", "the user said the opposite"),
    ("I don't live in Lisbon anymore.\nActually I live in Lisbon again.", None),
])
def test_the_latest_clause_that_asserts_decides(said: str, why: str | None) -> None:
    """A question after a comma asks only itself; a hedge, a wish or another's words state nothing;
    of several messages, the latest statement about the claim decides."""
    from trulymem.text.speculation import speculation_reason

    obj = "里斯本" if "里斯本" in said else "Lisbon"
    assert speculation_reason("user", "lives_in", obj, said, None) == why


def test_a_denied_claim_never_reinforces_the_stated_fact(mem: TrulyMem) -> None:
    first = mem.commit([{"subject": "user", "relation": "lives_in", "object": "Paris"}], user_message="I live in Paris.")
    res = mem.commit([{"subject": "user", "relation": "lives_in", "object": "Paris"}],
                     user_message="I don't live in Paris anymore.")
    assert res.warnings == ["stored as speculation (the user said the opposite): user lives_in Paris"]
    [fact] = mem.history("user", "lives_in")
    assert fact.id == first.facts[0].id and fact.mention_count == 1 and not fact.speculation
