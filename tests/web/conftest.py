"""The web app in a real headless Chromium (Debian's, at /usr/bin/chromium) driven by Playwright,
against a real ``trulymem serve``.

Without the browser (or Playwright) the tests skip with the reason — except under
``TRULYMEM_REQUIRE_BROWSER=1`` (CI), where a missing browser is an error: CI never skips
silently. Every request the page makes is recorded, and any to a host other than this
machine is refused and fails the test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.helpers import Served
from tests.web.seed import seed

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LOCAL = {"127.0.0.1", "localhost", "[::1]", "::1"}


def _missing(why: str) -> None:
    if os.environ.get("TRULYMEM_REQUIRE_BROWSER") == "1":
        pytest.fail(f"TRULYMEM_REQUIRE_BROWSER=1 but {why}", pytrace=False)
    pytest.skip(why)


class Requests:
    """Every URL the browser asked for, and those refused for leaving this machine."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.foreign: list[str] = []

    def route(self, route: Any) -> None:
        url = route.request.url
        self.seen.append(url)
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about") or parts.hostname in LOCAL:
            route.continue_()
        else:
            self.foreign.append(url)
            route.abort()


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        _missing(f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[test]')")
    profile = tmp_path_factory.mktemp("chromium-profile")  # a fresh user-data dir
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM, headless=True,
                                                   args=FLAGS, viewport={"width": 1280, "height": 800})
        try:
            yield ctx
        finally:
            ctx.close()


@pytest.fixture
def requests_seen(browser_context: Any) -> Iterator[Requests]:
    seen = Requests()
    browser_context.route("**/*", seen.route)
    yield seen
    browser_context.unroute("**/*")
    assert not seen.foreign, f"requests left this machine: {seen.foreign}"


@pytest.fixture
def page(browser_context: Any, requests_seen: Requests, tmp_path: Path) -> Iterator[Any]:
    pg = browser_context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    # the page's Content-Security-Policy blocks anything it does not expect: each block is a failure
    pg.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
    pg.set_default_timeout(20_000)
    yield pg
    pg.screenshot(path=str(tmp_path / "last.png"))
    pg.close()
    assert not errors, f"errors in the page: {errors}"


@pytest.fixture
def served(db_path: Path) -> Iterator[Served]:
    """The seeded memory behind a real ``trulymem serve`` (no MCP)."""
    seed(db_path)
    srv = Served(str(db_path), "--no-mcp")
    yield srv
    srv.stop()
