"""The web app at phone (390x844) and desktop sizes in a real Chromium: panes as tabs on a phone,
sign-in dialogs that never leave a dead page, a layout that stays put across edits, the Memories
table, the persona edited in place, and the time slider applied to the task chain."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Served
from tests.web.screens import shot
from tests.web.seed import add_tasks, create_key, seed

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture
def served(db_path: Path) -> Iterator[Served]:
    seed(db_path)
    add_tasks(db_path)
    srv = Served(str(db_path), "--no-mcp")
    yield srv
    srv.stop()


def ready(page: Any, url: str, size: dict[str, int]) -> None:
    page.set_viewport_size(size)
    page.goto(url + "/")
    page.wait_for_selector("body[data-state=ready]")


def visible(page: Any, selector: str) -> bool:
    return bool(page.locator(selector).is_visible())


def fits(page: Any) -> None:
    """Nothing wider than the screen: no sideways scrolling."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


def test_phone_shows_one_pane_at_a_time(page: Any, served: Served, tmp_path: Path) -> None:
    ready(page, served.url, PHONE)
    fits(page)
    assert visible(page, "#graph") and not visible(page, "#left") and not visible(page, "#right")
    box = page.locator("#graph canvas").first.bounding_box()
    assert box and box["width"] >= 380 and box["height"] >= 400  # the graph has the screen, not 0 px
    shot(page, "phone-graph.png", tmp_path)

    page.get_by_role("tab", name="Search").click()
    assert visible(page, "#left") and not visible(page, "#graph")
    fits(page)
    page.fill("#search-input", "Porto")
    page.press("#search-input", "Enter")
    page.wait_for_selector("#results li")
    shot(page, "phone-search.png", tmp_path)
    page.locator("#results .result", has_text="lives_in").first.click()  # opens the node in Details
    page.wait_for_selector("#node-title")
    assert visible(page, "#right") and not visible(page, "#left")
    assert page.get_by_role("tab", name="Details").get_attribute("aria-selected") == "true"
    fits(page)
    shot(page, "phone-details.png", tmp_path)

    page.get_by_role("tab", name="Graph").click()
    box = page.locator("#graph canvas").first.bounding_box()
    assert box and box["width"] >= 380
    assert page.evaluate("window.trulymem.drawn().matched") >= 1  # the search's highlights are still there

    page.get_by_role("tab", name="Memories").click()
    page.wait_for_selector("#table-view tbody tr[data-fact-id]")
    fits(page)
    shot(page, "phone-memories.png", tmp_path)


def test_sign_in_dialog_never_leaves_a_dead_page(page: Any, db_path: Path, tmp_path: Path) -> None:
    seed(db_path)
    key, admin = create_key(db_path, "default"), create_key(db_path, None)
    srv = Served(str(db_path), "--no-mcp")
    try:
        page.set_viewport_size(PHONE)
        page.goto(srv.url + "/")
        page.wait_for_selector("#login[open]")
        box = page.locator("#login").bounding_box()
        assert box and box["x"] >= 0 and box["y"] >= 0
        assert box["x"] + box["width"] <= PHONE["width"] and box["y"] + box["height"] <= PHONE["height"]
        shot(page, "phone-signin.png", tmp_path)

        page.keyboard.press("Escape")  # dismissed: the page says why it is empty and how to go on
        page.wait_for_selector("body[data-state=signed-out]")
        assert not visible(page, "#login")
        assert "Not signed in" in page.inner_text("#graph-status") or visible(page, "#signin")
        page.get_by_role("button", name="Sign in").first.click()
        page.wait_for_selector("#login[open]")
        page.get_by_role("button", name="Cancel").click()
        page.wait_for_selector("body[data-state=signed-out]")

        page.locator("#signin").click()  # a user's key with another user's name
        page.fill("#login-user", "bob")
        page.fill("#login-key", key)
        page.locator("#login-form button[type=submit]").click()
        page.wait_for_selector("#login[open] #login-error:not(:empty)")
        assert "bob" in page.inner_text("#login-error")
        shot(page, "phone-signin-wrong-user.png", tmp_path)

        page.fill("#login-user", "")  # fixed: the memory opens
        page.locator("#login-form button[type=submit]").click()
        page.wait_for_selector("body[data-state=ready]")
        assert "memory of default" in page.inner_text("#who") and not visible(page, "#signin")

        page.get_by_role("button", name="Sign out").click()  # an admin key naming a user with no memory
        page.wait_for_selector("#login[open]")
        page.fill("#login-key", admin)
        page.locator("#login-form button[type=submit]").click()
        page.wait_for_selector("#login[open] >> text=name the user")
        page.fill("#login-user", "nobody")
        page.locator("#login-form button[type=submit]").click()
        page.wait_for_selector("#login[open] #login-error >> text=nobody")
        page.fill("#login-user", "default")
        page.locator("#login-form button[type=submit]").click()
        page.wait_for_selector("body[data-state=ready]")
        assert "memory of default" in page.inner_text("#who")
        page.wait_for_selector("#persona-edit", state="attached")  # the last request the page makes, before the server goes
    finally:
        srv.stop()


def test_an_edit_moves_nothing_and_keeps_highlights(page: Any, served: Served, tmp_path: Path) -> None:
    ready(page, served.url, DESKTOP)
    page.fill("#search-input", "Acme")
    page.press("#search-input", "Enter")
    page.wait_for_selector("#results li")
    matched = page.evaluate("window.trulymem.drawn().matched")
    assert matched >= 1
    page.locator("#results .result", has_text="works_at").first.click()
    page.wait_for_selector("#node-title")
    page.wait_for_timeout(400)  # the centring animation
    before, zoom = page.evaluate("window.trulymem.positions()"), page.evaluate("window.trulymem.zoom()")
    item = page.locator("#panel-node li.fact", has_text="works_at").first
    item.get_by_role("button", name="Edit").click()
    page.get_by_label("New value: user works_at …").fill("Globex")
    page.get_by_role("button", name="Save").click()
    page.wait_for_selector("#toast.show >> text=Edited")
    page.wait_for_function("() => window.trulymem.drawn().nodes.includes('Globex')")
    after = page.evaluate("window.trulymem.positions()")
    assert page.evaluate("window.trulymem.zoom()") == zoom
    kept = set(before) & set(after)
    assert len(kept) >= len(before) - 1  # only Acme may go
    assert {n: after[n] for n in kept} == {n: before[n] for n in kept}
    # the search's highlights stay: all but the replaced fact and its old value
    assert page.evaluate("window.trulymem.drawn().matched") >= matched - 2
    shot(page, "desktop-after-edit.png", tmp_path)


def test_memories_table_filter_add_edit_forget_export(page: Any, served: Served, tmp_path: Path) -> None:
    ready(page, served.url, DESKTOP)
    page.get_by_role("tab", name="Memories").click()
    page.wait_for_selector("#table-view tbody tr[data-fact-id]")
    assert visible(page, "#left") and visible(page, "#right")  # a desktop keeps the side panes
    page.select_option("#mf-type", "style")
    page.wait_for_function("() => document.querySelectorAll('#table-view tbody tr[data-fact-id]').length === 2")
    assert "Never use tabs" in page.inner_text("#table-view tbody")

    page.select_option("#mf-type", "")
    page.fill("#ma-relation", "likes")
    page.fill("#ma-object", "jazz")
    page.fill("#ma-type", "music")
    page.get_by_role("button", name="Add", exact=True).click()
    page.wait_for_selector("#table-view tbody >> text=jazz")
    page.wait_for_function("() => window.trulymem.drawn().nodes.includes('jazz')")  # the graph follows

    row = page.locator("#table-view tbody tr", has_text="jazz")
    row.get_by_role("button", name="Edit").click()
    page.get_by_label("New value: user likes …").fill("blues")
    page.locator("#table-view").get_by_role("button", name="Save").click()
    page.wait_for_selector("#table-view tbody >> text=blues")
    assert page.locator("#table-view tbody tr", has_text="jazz").count() == 0

    page.locator("#table-view tbody tr", has_text="blues").get_by_role("button", name="Pin").click()
    page.wait_for_selector("#toast.show >> text=Pinned")
    page.select_option("#mf-pinned", "true")
    page.wait_for_function("() => document.querySelectorAll('#table-view tbody tr[data-fact-id]').length === 1")
    page.select_option("#mf-pinned", "")

    page.select_option("#mf-type", "style")
    page.wait_for_function("() => document.querySelectorAll('#table-view tbody tr[data-fact-id]').length === 2")
    page.get_by_label("Select every memory shown").check()
    shot(page, "desktop-memories.png", tmp_path)
    page.get_by_role("button", name="Forget selected (2)").click()
    page.wait_for_selector("#toast.show >> text=Forgotten: 2 memories")
    page.wait_for_selector("#table-view tbody >> text=No memories match.")
    page.locator("#toast").get_by_role("button", name="Undo").click()
    page.wait_for_function("() => document.querySelectorAll('#table-view tbody tr[data-fact-id]').length === 2")

    with page.expect_download() as dl:
        page.get_by_role("button", name="Export JSON lines").click()
    lines = Path(dl.value.path()).read_text().splitlines()
    assert sorted(json.loads(x)["object"] for x in lines) == ["Always use tabs", "Never use tabs"]

    page.fill("#mf-since", (datetime.now() - timedelta(days=3)).strftime("%Y-%m-%d"))  # since 3 days ago
    page.dispatch_event("#mf-since", "change")
    page.wait_for_function("() => document.querySelector('#mf-count').textContent.startsWith('1 memory')")


def test_persona_edited_in_place(page: Any, served: Served, tmp_path: Path) -> None:
    ready(page, served.url, PHONE)
    page.get_by_role("tab", name="Search").click()
    page.wait_for_selector("#persona >> text=No persona stored.")
    page.get_by_role("button", name="Edit persona").click()
    page.get_by_label("Attribute 1: name").fill("role")
    page.get_by_label("Attribute 1: value").fill("catgirl")
    page.get_by_role("button", name="Add attribute").click()
    page.get_by_label("Attribute 2: name").fill("tone")
    page.get_by_label("Attribute 2: value").fill("")
    page.get_by_role("button", name="Save persona").click()
    page.wait_for_selector("#persona >> text=Each attribute needs a name and a value.")  # refused, nothing sent
    page.get_by_label("Attribute 2: value").fill("playful")
    page.get_by_role("button", name="Save persona").click()
    page.wait_for_selector("#persona dd >> text=playful")
    fits(page)
    shot(page, "phone-persona.png", tmp_path)
    assert httpx.get(served.url + "/v1/persona").json()["attributes"] == {"role": "catgirl", "tone": "playful"}
    page.get_by_role("button", name="Edit persona").click()
    page.get_by_role("button", name="Remove attribute 2").click()
    page.get_by_role("button", name="Save persona").click()
    page.wait_for_function("() => !document.querySelector('#persona').textContent.includes('playful')")
    assert httpx.get(served.url + "/v1/persona").json()["attributes"] == {"role": "catgirl"}


def test_time_slider_moves_the_task_chain(page: Any, served: Served, tmp_path: Path) -> None:
    ready(page, served.url, DESKTOP)
    now = page.inner_text("#tasks")
    assert "Plan the trip" in now and "Task_old" in now and "paused" in now
    # the slider runs from the first memory (10 days ago) to now: 50% is about 5 days ago
    page.evaluate("() => { const s = document.getElementById('as-of'); s.value = 500; "
                  "s.dispatchEvent(new Event('input')); }")
    page.wait_for_function("() => !document.getElementById('tasks').textContent.includes('Plan the trip')")
    then = page.inner_text("#tasks")
    assert "Task_old" in then and "in_progress" in then and "paused" not in then
    shot(page, "desktop-slider-tasks.png", tmp_path)
    page.get_by_role("tab", name="Memories").click()  # the table follows the slider, read-only in the past
    page.wait_for_selector("#mf-count >> text=as of")
    table = page.inner_text("#table-view tbody")
    assert "Lisbon" in table and "Porto" not in table
    assert page.locator("#table-view tbody").get_by_role("button", name="Edit").count() == 0
    page.get_by_role("tab", name="Graph").click()
    page.evaluate("() => { const s = document.getElementById('as-of'); s.value = 1000; "
                  "s.dispatchEvent(new Event('input')); }")
    page.wait_for_function("() => document.getElementById('tasks').textContent.includes('Plan the trip')")
