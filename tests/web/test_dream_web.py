"""The dream in the web app, in headless Chromium at desktop size against a real ``trulymem
serve``: the review with its pairs to review, a choice per item, apply, and undo from the
list of runs after a reload (see conftest for the browser's rules)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.dream_seed import seed_dream
from tests.helpers import Served


@pytest.fixture
def served(db_path: Path) -> Iterator[Served]:  # asked for before the page: the server outlives it
    seed_dream(db_path, "default")  # the keyless server's own user
    srv = Served(str(db_path), "--no-mcp")
    yield srv
    srv.stop()


def memories(served: Served) -> dict[str, str]:
    got = httpx.get(served.url + "/v1/memories", params={"page_size": 100}, timeout=30).json()
    return {m["id"]: m["memory"] for m in got["results"]}


def open_dream(page: Any, url: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("body[data-state=ready]")
    page.get_by_role("tab", name="Dream").click()


def item(page: Any, section: str, text: str) -> Any:
    return page.locator(f"#dream-report ol.{section} > li", has_text=text)


def test_review_choose_apply_reload_undo(served: Served, page: Any, tmp_path: Path) -> None:
    before = memories(served)
    open_dream(page, served.url)
    page.wait_for_selector("#dream-runs >> text=No dreams applied yet")
    page.get_by_role("button", name="Review").click()
    page.wait_for_selector("#dream-report ol.review fieldset")
    status = page.locator("#dream-report [role=status]").inner_text()
    assert status == "12 memories: 2 merges, 2 pairs to review, 1 conflict, 2 prunes."
    pairs = page.locator("#dream-report ol.review").inner_text()
    assert "Use PostgreSQL for auth" in pairs and "Keep meetings brief" in pairs
    assert "Merged would read: “Auth DB is PostgreSQL”" in pairs
    assert "(past the 90d kept for session_state)" in item(page, "prunes", "flaky CI").inner_text()

    item(page, "review", "Use PostgreSQL for auth").get_by_label("Merge them").check()
    item(page, "review", "Keep meetings brief").get_by_label("Keep both (not asked again)").check()
    page.get_by_label("A: keep “Deploy to ECS”").check()  # against the suggestion (the later one)
    item(page, "merges", "linter").get_by_label("Skip this merge").check()
    item(page, "prunes", "flaky CI").get_by_label("Skip this prune").check()
    page.screenshot(path=str(tmp_path / "dream-review.png"), full_page=True)
    page.get_by_role("button", name="Apply").click()
    page.wait_for_selector("#dream-report >> text=Applied")
    assert page.locator("#dream-report [role=status]").inner_text() == (
        "Applied: 2 merged (1 on review), 1 pruned, 1 conflict resolved, 1 pair kept apart, 2 skipped.")
    after = set(memories(served).values())
    assert {"Deploy to ECS", "Keep meetings brief", "Meetings should be short", "temp notes on the flaky CI job",
            "Always run the linter before pushing", "Auth DB is PostgreSQL"} <= after
    assert not after & {"Deploy to Vercel", "Use PostgreSQL for auth", "scratch notes about the login bug"}
    assert len(after & {"Standup is at 02:00 UTC", "Standup is at 2am UTC"}) == 1  # one memory, either wording
    page.wait_for_selector("#dream-runs li >> text=2 merged, 1 pruned, 1 conflict resolved, 1 pair kept apart")

    page.get_by_role("button", name="Review").click()  # what was kept apart is not asked again
    page.wait_for_selector("#dream-report ol.prunes")
    assert page.locator("#dream-report [role=status]").inner_text() == (
        "8 memories: 1 merge, 0 pairs to review, 0 conflicts, 1 prune.")

    page.reload()  # the page that applied it is gone: the run is still listed, and undone from there
    page.wait_for_selector("body[data-state=ready]")
    page.get_by_role("tab", name="Dream").click()
    run = page.locator("#dream-runs li").first
    run.get_by_role("button", name="Undo").click()
    page.wait_for_selector("#dream-runs li >> text=undone")
    assert memories(served) == before
    page.wait_for_function("() => window.trulymem.drawn().nodes.includes('Deploy to Vercel')")
    page.get_by_role("tab", name="Changes").click()
    page.wait_for_selector("#changes li.dream-run")
    assert "dream: 2 merged" in page.inner_text("#changes") and "(undone)" in page.inner_text("#changes")


def test_changes_panel_undoes_a_dream_and_a_stale_review_is_refused(served: Served, page: Any) -> None:
    open_dream(page, served.url)
    page.get_by_role("button", name="Review").click()
    page.wait_for_selector("#dream-report ol.review fieldset")
    httpx.post(served.url + "/v1/memories", json={"text": "Standup is at 2:00 UTC", "metadata": {"type": "process"}},
               timeout=30).raise_for_status()  # the memories change after the review
    before = memories(served)
    page.get_by_role("button", name="Apply").click()
    page.wait_for_selector("#dream-report [role=alert] >> text=Not applied")
    assert "review the dream again" in page.inner_text("#dream-report") and memories(served) == before

    page.get_by_role("button", name="Review again").click()
    page.wait_for_selector("#dream-report ol.review fieldset")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_selector("#dream-report >> text=Applied: 2 merged")
    assert memories(served) != before
    page.get_by_role("tab", name="Changes").click()
    row = page.locator("#changes li.dream-run").first
    row.get_by_role("button", name="Undo").click()
    page.wait_for_selector("#changes li.dream-run >> text=(undone)")
    assert memories(served) == before


def test_dream_runs_are_the_users_own(db_path: Path) -> None:
    from fastapi.testclient import TestClient

    from trulymem.keys import create_key
    from trulymem.server.http import create_app
    from trulymem.store.sqlite import SQLiteStore

    seed_dream(db_path, "alice")
    seed_dream(db_path, "bob")
    with SQLiteStore(str(db_path)) as store:
        keys = {u: {"Authorization": f"Bearer {create_key(store, user_id=u)[1]}"} for u in ("alice", "bob")}
    with TestClient(create_app(str(db_path), mcp=False), base_url="http://127.0.0.1:8765") as c:
        plan = c.post("/v1/dream", json={"mode": "dry_run"}, headers=keys["alice"]).json()["analysis"]
        done = c.post("/v1/dream", json={"mode": "apply", "plan_id": plan["plan_id"]}, headers=keys["alice"])
        run_id = done.json()["applied"]["run_id"]
        assert c.get("/v1/graph/dream/runs", headers=keys["bob"]).json() == []
        assert c.get("/v1/graph/dream/runs", params={"user_id": "alice"}, headers=keys["bob"]).status_code == 404
        assert c.post("/v1/graph/dream/undo", json={"run_id": run_id}, headers=keys["bob"]).status_code == 404
        assert c.post("/v1/graph/dream/undo", json={"run_id": 7}, headers=keys["alice"]).status_code == 422
        mine = c.get("/v1/graph/dream/runs", headers=keys["alice"]).json()
        assert [(r["run_id"], r["undone_at"]) for r in mine] == [(run_id, None)]  # bob changed nothing
        assert c.post("/v1/graph/dream/undo", json={"run_id": run_id}, headers=keys["alice"]).json()["undone"] is True
