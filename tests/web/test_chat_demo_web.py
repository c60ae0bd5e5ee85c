"""The web app's Chat tab with no API key: a real ``trulymem serve --model scripted`` answers from
memory in headless Chromium, and a server with no model says how to start one that chats."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Served
from trulymem import TrulyMem


@pytest.fixture(autouse=True)
def no_model_configured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The served process sees no model but what its command line names (no env, no config file)."""
    for name in ("TRULYMEM_LLM_MODEL", "TRULYMEM_LLM_BASE_URL", "TRULYMEM_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TRULYMEM_CONFIG", str(tmp_path / "none.toml"))


def said(srv: Served) -> str:
    srv.log.seek(0)
    return srv.log.read()


def chat_tab(page: Any, url: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("body[data-state=ready]")
    page.get_by_role("tab", name="Chat").click()


def send(page: Any, text: str) -> str:
    """Type a message, send it with Enter, wait for the finished reply and return its text."""
    done = page.locator("#chat-log .msg.ai details.trace").count()
    page.get_by_label("Message").fill(text)
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelectorAll('#chat-log .msg.ai details.trace').length > {done}")
    reply: str = page.locator("#chat-log .msg.ai .text").nth(done).inner_text()
    return reply


def ask(url: str, what: str | dict[str, Any]) -> str:
    """A chat turn's reply, or the first memory add_memory stored."""
    if isinstance(what, str):
        res = httpx.post(url + "/v1/chat", json={"message": what, "stream": False}, timeout=60)
        assert res.status_code == 200, res.text
        return str(res.json()["reply"])
    res = httpx.post(url + "/v1/memories", json=what, timeout=60)
    assert res.status_code == 200, res.text
    return str(res.json()["results"][0]["memory"])


def test_demo_model_remembers_a_statement_and_answers_from_memory(page: Any, db_path: Path) -> None:
    srv = Served(str(db_path), "--no-mcp", "--model", "scripted")
    try:
        assert "demo model that only recalls and stores by rules" in said(srv)
        chat_tab(page, srv.url)
        assert "Demo model" in page.inner_text("#chat-status")
        assert send(page, "I live in Lisbon and I work at Acme.").startswith("Noted")
        page.locator("#chat-log details.trace summary").first.click()
        assert "lives_in Lisbon" in page.locator("#chat-log details.trace").first.inner_text()  # stored by rules
        # a fresh agent per request: the answer can only come from the graph
        answer = send(page, "Where do I live?")
        assert answer.startswith("From memory:") and "lives_in Lisbon" in answer, answer
        page.locator("#chat-log details.trace summary").nth(1).click()
        assert "memory_recall ✓" in page.locator("#chat-log details.trace").nth(1).inner_text()
        page.wait_for_function("() => window.trulymem.drawn().nodes.includes('Lisbon')")  # the graph shows it
        # add_memory with infer goes to the same model, through the same resolution
        res = httpx.post(srv.url + "/v1/memories", json={"messages": [{"role": "user", "content": "I like jazz."}],
                                                         "infer": True}, timeout=30)
        assert res.status_code == 200, res.text
        assert [r["memory"] for r in res.json()["results"]] == ["user likes jazz"]  # found by the rules
        # one model for every request thread: each gets the step its own request calls for
        asks = [("Where do I live?", "From memory:"), ("I am 42 years old.", "Noted"),
                ({"messages": [{"role": "user", "content": "I live in Lisbon."}], "infer": True}, "user lives_in")] * 4
        with ThreadPoolExecutor(6) as pool:
            got = list(pool.map(lambda a: ask(srv.url, a[0]), asks))
        assert all(reply.startswith(want) for reply, (_, want) in zip(got, asks, strict=True)), got
    finally:
        srv.stop()
    with TrulyMem(db_path, user_id="default") as mem:
        assert [f.object for f in mem.history("user", "lives_in")] == ["Lisbon"]


def test_without_a_model_the_chat_tab_says_how_to_start_one(page: Any, db_path: Path) -> None:
    srv = Served(str(db_path), "--no-mcp")
    try:
        assert "no chat model" in said(srv) and "--model scripted" in said(srv)
        chat_tab(page, srv.url)
        note = page.inner_text("#chat-status")
        assert "no chat model" in note and "trulymem serve --model scripted" in note and "--api-key" in note
        assert page.get_by_label("Message").is_disabled()  # nothing typed in vain
        assert page.get_by_role("button", name="Send").is_disabled()
        res = httpx.post(srv.url + "/v1/chat", json={"message": "hi"}, timeout=30)  # a client that did not ask
        assert res.status_code == 501 and "--model scripted" in res.json()["error"]["message"]
    finally:
        srv.stop()


def test_which_model_the_page_is_told_about(db_path: Path) -> None:
    """``GET /v1/chat`` in process; ``scripted`` is the demo model only with no endpoint of its own."""
    from fastapi.testclient import TestClient

    from trulymem.config import LLMSettings
    from trulymem.llm import ScriptedLLM, get_llm
    from trulymem.llm.demo import is_demo
    from trulymem.server.http import create_app

    demo = get_llm(LLMSettings(model="scripted"))
    elsewhere = get_llm(LLMSettings(model="scripted", base_url="http://127.0.0.1:9/v1", api_key="k"))
    assert is_demo(demo) and not is_demo(elsewhere) and not is_demo(ScriptedLLM(["hi"]))
    for llm, want in ((demo, (True, True, "Demo model")), (ScriptedLLM(["hi"]), (True, False, None)),
                      (None, (False, False, "--model scripted"))):
        with TestClient(create_app(str(db_path), mcp=False, llm=llm), base_url="http://127.0.0.1:8765") as c:
            got = c.get("/v1/chat").json()
        assert (got["ready"], got["demo"]) == want[:2] and (got["message"] is None if want[2] is None
                                                             else want[2] in got["message"]), got
