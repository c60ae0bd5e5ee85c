"""The web app in headless Chromium against a real ``trulymem serve`` (see conftest for the rules)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Served
from tests.web.conftest import Requests
from tests.web.seed import create_key, seed
from trulymem.llm.scripted_server import ScriptedServer


def ready(page: Any, url: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("body[data-state=ready]")


def drawn(page: Any) -> dict[str, Any]:
    out: dict[str, Any] = page.evaluate("window.trulymem.drawn()")
    return out


def fact_item(page: Any, relation: str) -> Any:
    return page.locator("#panel-node li.fact", has_text=relation).first


def open_user(page: Any) -> None:
    page.fill("#search-input", "Porto")
    page.press("#search-input", "Enter")
    page.wait_for_selector("#results li")
    page.locator("#results .result", has_text="lives_in").first.click()
    page.wait_for_selector("#node-title")
    assert page.inner_text("#node-title") == "user"


def test_graph_search_node_and_time(page: Any, served: Served, tmp_path: Path, requests_seen: Requests) -> None:
    ready(page, served.url)
    now = drawn(page)
    assert {"Porto", "Acme", "cello", "Plan the trip"} <= set(now["nodes"]) and "Lisbon" not in now["nodes"]
    assert {"lives_in", "works_at", "plays"} <= set(now["edges"])
    page.screenshot(path=str(tmp_path / "graph.png"))

    page.fill("#search-input", "Porto")
    page.click("#search-form button[type=submit]")
    page.wait_for_selector("#results li")
    first = page.locator("#results li").filter(has_text="Porto").first
    assert "why:" in first.inner_text() and "match" in first.inner_text()
    assert drawn(page)["matched"] >= 1
    first.locator("button").click()
    page.wait_for_selector("#node-title")
    assert "Lisbon" in page.inner_text("#panel-node")  # its history: the value Porto replaced
    cello = fact_item(page, "plays")
    cello.locator("summary").click()
    assert "I play the cello" in cello.inner_text()  # the message the fact came from
    assert "Plan the trip" in page.inner_text("#tasks")
    page.screenshot(path=str(tmp_path / "node.png"))

    page.evaluate("() => { const s = document.getElementById('as-of'); s.value = 500; "
                  "s.dispatchEvent(new Event('input')); }")
    page.wait_for_function("() => document.getElementById('graph-status').textContent.includes('as of')")
    page.wait_for_selector("body[data-state=ready]")
    then = drawn(page)
    assert "Lisbon" in then["nodes"] and "Porto" not in then["nodes"] and "Acme" not in then["nodes"]
    page.locator("#results .result", has_text="lives_in").first.click()  # the node panel follows the slider
    page.wait_for_selector("#panel-node h3 >> text=Facts then")
    then_facts = page.locator("#panel-node ul.facts").first.inner_text()
    assert "lives_in Lisbon" in then_facts and "Porto" not in then_facts
    page.screenshot(path=str(tmp_path / "as_of.png"))
    assert all(u.startswith(served.url) for u in requests_seen.seen)
    assert (tmp_path / "graph.png").stat().st_size > 0


def test_edit_then_undo(page: Any, served: Served, tmp_path: Path) -> None:
    ready(page, served.url)
    open_user(page)
    item = fact_item(page, "works_at")
    item.get_by_role("button", name="Edit").click()
    page.get_by_label("New value: user works_at …").fill("Globex")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("#toast.show >> text=Edited")
    page.wait_for_function("() => window.trulymem.drawn().nodes.includes('Globex')")
    assert "Acme" not in drawn(page)["nodes"]
    page.wait_for_selector("#panel-node li.fact >> text=works_at Globex")  # the panel, reloaded after the graph
    page.screenshot(path=str(tmp_path / "edited.png"))

    page.locator("#toast").get_by_role("button", name="Undo").click()
    page.wait_for_selector("#toast.show >> text=Undone")
    page.wait_for_function("() => window.trulymem.drawn().nodes.includes('Acme')")
    assert "Globex" not in drawn(page)["nodes"]
    facts = httpx.get(served.url + "/v1/graph").json()
    assert [e["relation"] for e in facts["edges"]].count("works_at") == 1

    fact_item(page, "likes").get_by_role("button", name="Pin").click()
    page.wait_for_selector("#toast.show >> text=Pinned")
    page.wait_for_function("() => document.querySelector('#panel-node').textContent.includes('pinned')")
    page.get_by_role("tab", name="Changes").click()
    page.wait_for_selector("#changes li >> text=pin")
    assert "(undone)" in page.inner_text("#changes")  # the edit, undone above


def test_dream_review_and_apply(page: Any, served: Served, tmp_path: Path) -> None:
    ready(page, served.url)
    page.get_by_role("tab", name="Dream").click()
    page.get_by_role("button", name="Review").click()
    page.wait_for_selector("#dream-report .conflicts fieldset")
    report = page.inner_text("#dream-report")
    assert "1 pair to review" in report and "1 conflict," in report and "dark mode" in report
    page.get_by_label("A: keep “Always use tabs”").check()
    page.get_by_label("Merge them").check()  # the dark mode pair
    page.screenshot(path=str(tmp_path / "dream.png"))
    page.get_by_role("button", name="Apply").click()
    page.wait_for_selector("#dream-report >> text=Applied")
    assert "1 merged (1 on review)" in page.inner_text("#dream-report")
    assert "1 conflict resolved" in page.inner_text("#dream-report")
    page.wait_for_selector("body[data-state=ready]")
    assert "Never use tabs" not in drawn(page)["nodes"]
    page.get_by_role("button", name="Undo dream").click()
    page.wait_for_selector("#dream-report >> text=undone")
    page.wait_for_selector("#dream-runs li >> text=undone")  # the list of runs follows
    page.wait_for_function("() => window.trulymem.drawn().nodes.includes('Never use tabs')")


def test_chat_one_turn_streamed_with_its_trace(page: Any, db_path: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    seed(db_path)
    steps: list[Any] = [
        {"tool_calls": [{"name": "memory_commit", "arguments": {
            "triplets": [{"subject": "user", "relation": "likes", "object": "jazz"}]}}]},
        "Noted: you like jazz, and you live in Porto.",
    ]
    with ScriptedServer(steps, model="scripted", api_key="k") as llm:
        monkeypatch.setenv("TRULYMEM_LLM_MODEL", "scripted")
        monkeypatch.setenv("TRULYMEM_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("TRULYMEM_LLM_API_KEY", "k")
        srv = Served(str(db_path), "--no-mcp")
        try:
            ready(page, srv.url)
            page.get_by_role("tab", name="Chat").click()
            page.get_by_label("Message").fill("I like jazz")
            page.keyboard.press("Enter")
            page.wait_for_selector("#chat-log .msg.ai details.trace")
            assert page.inner_text("#chat-log .msg.ai .text") == "Noted: you like jazz, and you live in Porto."
            page.locator("#chat-log details.trace summary").click()
            trace = page.inner_text("#chat-log details.trace")
            assert "memory_commit ✓" in trace and "facts: 1" in trace
            assert "user likes rock" in trace and "task Plan the trip [in_progress]" in trace  # what was recalled
            page.wait_for_function("() => window.trulymem.drawn().nodes.includes('jazz')")  # the graph followed
            assert page.evaluate("window.trulymem.firstToken") is not None
            page.screenshot(path=str(tmp_path / "chat.png"))
        finally:
            srv.stop()
    first_request = llm.requests[0]
    assert "Porto" in first_request["messages"][0]["content"]  # the turn recalled memory first


def test_sign_in_with_a_key(page: Any, db_path: Path, tmp_path: Path) -> None:
    seed(db_path, "alice")
    token = create_key(db_path, "alice")
    srv = Served(str(db_path), "--no-mcp")
    try:
        page.goto(srv.url + "/")
        page.wait_for_selector("#login[open]")
        page.screenshot(path=str(tmp_path / "login.png"))
        page.get_by_label("API key").fill("wrong")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector("#login[open] #login-error:not(:empty)")
        page.get_by_label("API key").fill(token)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector("body[data-state=ready]")
        assert page.inner_text("#who") == "memory of alice"
        assert "Porto" in drawn(page)["nodes"]
        page.get_by_role("button", name="Sign out").click()  # the key leaves the tab
        page.wait_for_selector("#login[open]")

        admin = create_key(db_path, None)  # an admin key reaches every user: the page asks which
        page.get_by_label("API key").fill(admin)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector("#login[open] >> text=name the user")
        page.get_by_label("User (admin keys only)").fill("alice")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector("body[data-state=ready]")
        assert page.inner_text("#who") == "memory of alice"
    finally:
        srv.stop()


def test_accessibility_labels_and_keyboard(page: Any, served: Served) -> None:
    ready(page, served.url)
    unlabelled = page.evaluate("""() => [...document.querySelectorAll('input, select, textarea, button')]
        .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                        && !el.textContent.trim())
        .map((el) => el.outerHTML)""")
    assert unlabelled == []
    assert page.get_attribute("#graph", "aria-label")
    assert page.get_attribute("html", "lang") == "en"

    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    page.keyboard.press("Enter")
    page.keyboard.type("Porto")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.keyboard.press("Enter")
    page.wait_for_selector("#results li")
    page.focus("#results .result")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'node-title'")

    page.focus("#tab-node")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.id") == "tab-chat"
    assert page.is_visible("#panel-chat") and not page.is_visible("#panel-node")
    page.focus("#graph")
    before = page.evaluate("window.trulymem.drawn().nodes.length")
    page.keyboard.press("+")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("window.trulymem.drawn().nodes.length") == before
    page.keyboard.press("n")  # the best-connected node first, read out
    assert page.inner_text("#graph-focus").startswith("user (entity")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'node-title'")
    assert page.inner_text("#node-title") == "user"
