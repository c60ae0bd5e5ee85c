"""The tool routes' fast path (``trulymem.server.fastpath``) answers exactly as FastAPI does.

Each request is sent twice to a real ``trulymem serve``: plainly (the fast path takes it) and
with one more query parameter, which FastAPI ignores but which sends the request the usual
way through FastAPI. Status, content type and body bytes must be the same.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Served

pytest.importorskip("fastapi")

from trulymem.server.fastpath import FastPath  # noqa: E402


@pytest.fixture
def server(db_path: Path) -> Iterator[Served]:
    s = Served(str(db_path))
    yield s
    s.stop()


def both(c: httpx.Client, path: str, body: Any, user: str | None = "alice", **headers: str) -> httpx.Response:
    """The answer of the fast path, after checking that FastAPI's own answer is the same."""
    params = {"user_id": user} if user else {}
    raw = json.dumps(body).encode()
    heads = {"Content-Type": "application/json", **headers}
    fast = c.post(path, params=params, content=raw, headers=heads)
    slow = c.post(path, params={**params, "via": "fastapi"}, content=raw, headers=heads)
    assert (fast.status_code, fast.headers["content-type"], fast.content) == (
        slow.status_code, slow.headers["content-type"], slow.content), path
    assert fast.headers.get("www-authenticate") == slow.headers.get("www-authenticate")
    assert fast.headers.get("retry-after") == slow.headers.get("retry-after")
    return fast


def test_reads_and_errors_answer_as_fastapi_does(server: Served) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        r = c.post("/v1/triplets", params={"user_id": "alice"}, json={"triplets": [
            {"subject": "user", "relation": "likes", "object": "jazz"},
            {"subject": "user", "relation": "lives_in", "object": "Lisbon"}]})
        assert r.status_code == 200, r.text
        c.post("/v1/memories", json={"user_id": "alice", "text": "I drink green tea every morning"}).raise_for_status()
        recalled = both(c, "/v1/recall", {"query_intent": "jazz Lisbon", "depth": 2}).json()
        assert "jazz" in json.dumps(recalled)
        both(c, "/v1/tools/memory_recall", {"query_intent": "what music", "depth": 1})
        both(c, "/v1/memories/search", {"query": "tea"})
        both(c, "/v1/memories/list", {"filters": {"memory": {"icontains": "tea"}}})
        assert both(c, "/v1/tools/memory_stats", {"user_id": "alice"}, user=None).status_code == 422  # unknown field
        # errors: the tool's validation, an unknown tool, users that disagree, the hidden tool
        assert both(c, "/v1/recall", {"query_intent": "jazz", "depth": "deep"}).status_code == 422
        assert both(c, "/v1/recall", {"query_intent": "jazz", "limit": "many"}).status_code == 422
        assert both(c, "/v1/tools/no_such_tool", {"a": 1}).status_code == 404
        assert both(c, "/v1/tools/context_rewrite", {"a": 1}).status_code == 404
        assert both(c, "/v1/recall", {"query_intent": "jazz", "user_id": "bob"}).status_code == 422
        assert both(c, "/v1/recall", {"query_intent": "jazz", "user_id": 7}, user=None).status_code == 422


def test_writes_go_through_the_fast_path_once(server: Served) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        r = c.post("/v1/triplets", params={"user_id": "carol"}, content=json.dumps({"triplets": [
            {"subject": "user", "relation": "owns", "object": "a red bike"}]}),
            headers={"Content-Type": "application/json"})
        assert r.status_code == 200, r.text
        stats = c.post("/v1/tools/memory_stats", params={"user_id": "carol"}, json={}).json()
        assert stats["facts_valid"] == 1, stats


def test_keys_are_checked_on_the_fast_path(db_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "trulymem", "keys", "create", "--db", str(db_path), "--json",
                          "--user", "alice"], capture_output=True, text=True, check=True)
    token = json.loads(out.stdout)["token"]
    s = Served(str(db_path))
    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            assert both(c, "/v1/recall", {"query_intent": "jazz"}, user=None).status_code == 401
            assert both(c, "/v1/recall", {"query_intent": "jazz"}, user=None,
                        Authorization="Bearer tm_nope_nope").status_code == 401
            mine = {"Authorization": f"Bearer {token}"}
            both(c, "/v1/recall", {"query_intent": "jazz"}, user=None, **mine)  # no memories yet: the same 404
            c.post("/v1/triplets", json={"triplets": [{"subject": "user", "relation": "likes", "object": "jazz"}]},
                   headers=mine).raise_for_status()
            assert both(c, "/v1/recall", {"query_intent": "jazz"}, user=None, **mine).status_code == 200
            assert both(c, "/v1/recall", {"query_intent": "jazz"}, user="bob", **mine).status_code == 404
            assert both(c, "/v1/recall", {"query_intent": "jazz", "user_id": "bob"}, user=None,
                        **mine).status_code == 404
    finally:
        s.stop()


def test_what_the_fast_path_leaves_to_fastapi() -> None:
    fast = FastPath(run_named=lambda *a: None, run_any=lambda *a: None)  # type: ignore[arg-type]
    fast.add("POST", "/v1/recall", "memory_recall")

    def scope(path: str, query: bytes = b"", kind: bytes = b"application/json", method: str = "POST",
              root: str = "") -> Any:
        return {"type": "http", "method": method, "path": path, "query_string": query, "root_path": root,
                "headers": [(b"content-type", kind)] if kind else []}

    body = {"query_intent": "jazz"}
    assert fast._route(scope("/v1/recall"), body) is not None
    assert fast._route(scope("/v1/recall", b"user_id=alice"), body)[2] == "alice"  # type: ignore[index]
    assert fast._route(scope("/v1/tools/memory_recall"), body)[1] == "memory_recall"  # type: ignore[index]
    for s, b in ((scope("/v1/recall", b"user_id=a&x=1"), body), (scope("/v1/recall", b"x=1"), body),
                 (scope("/v1/recall", b"user_id=a&user_id=b"), body), (scope("/v1/recall/"), body),
                 (scope("/v1/recall", kind=b"text/plain"), body), (scope("/v1/recall", kind=b""), body),
                 (scope("/v1/recall", kind=b"application/vnd.x+json"), body), (scope("/v1/recall"), {}),
                 (scope("/v1/recall"), [body]), (scope("/v1/recall", method="PUT"), body),
                 (scope("/v1/tools/"), body), (scope("/v1/tools/a/b"), body), (scope("/v1/other"), body),
                 (scope("/v1/recall", root="/api"), body)):
        assert fast._route(s, b) is None, (s, b)


def test_the_plain_requests_really_take_the_fast_path(db_path: Path) -> None:
    """The comparisons above would pass if the fast path never ran: count what it answers."""
    from starlette.testclient import TestClient

    from trulymem.server.http import create_app

    app = create_app(str(db_path))
    fast = next(m.kwargs["fast"] for m in app.user_middleware if "fast" in m.kwargs)
    with TestClient(app, base_url="http://localhost") as c:
        r = c.post("/v1/triplets", params={"user_id": "dave"},
                   json={"triplets": [{"subject": "user", "relation": "likes", "object": "jazz"}]})
        assert r.status_code == 200 and fast.taken == 1
        assert c.post("/v1/recall", params={"user_id": "dave"}, json={"query_intent": "jazz"}).status_code == 200
        assert c.post("/v1/tools/memory_recall", params={"user_id": "dave"},
                      json={"query_intent": "jazz"}).status_code == 200
        assert fast.taken == 3
        c.post("/v1/recall", params={"user_id": "dave", "via": "fastapi"}, json={"query_intent": "jazz"})
        c.post("/v1/recall", params={"user_id": "dave"}, content=b"{}", headers={"Content-Type": "application/json"})
        assert fast.taken == 3  # another query parameter and an empty body went through FastAPI
