"""``/docs`` renders from local files in a real Chromium with every foreign request refused,
and big replies are gzipped while small ones are not."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import httpx

from tests.helpers import Served
from tests.web.conftest import Requests
from tests.web.screens import shot


def test_swagger_ui_loads_with_no_network(page: Any, served: Served, requests_seen: Requests,
                                          tmp_path: Path) -> None:
    page.goto(served.url + "/docs")
    page.wait_for_selector(".swagger-ui .opblock-summary-path")  # rendered from /openapi.json
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/v1/memories" in p for p in paths) and any("/v1/graph" in p for p in paths)
    assert requests_seen.seen and all(u.startswith(served.url) for u in requests_seen.seen), requests_seen.seen
    assert any(u.endswith("/swagger-ui-bundle.js") for u in requests_seen.seen)
    shot(page, "docs-offline.png", tmp_path)


def test_big_replies_are_gzipped_small_ones_are_not(served: Served) -> None:
    with httpx.Client(base_url=served.url, headers={"Accept-Encoding": "gzip"}) as client:
        raw = client.get("/v1/graph", params={"max_nodes": 20000})
        assert raw.status_code == 200 and raw.json()["nodes"]
        small = client.get("/health")
        assert "content-encoding" not in small.headers
        js = client.get("/docs/assets/swagger-ui-bundle.js")
        assert js.headers["content-encoding"] == "gzip" and len(js.content) > 1_000_000
        # the wire size: the bundle's bytes as sent
        with client.stream("GET", "/docs/assets/swagger-ui-bundle.js") as r:
            sent = b"".join(r.iter_raw())
        assert len(sent) < len(js.content) / 3 and gzip.decompress(sent) == js.content
