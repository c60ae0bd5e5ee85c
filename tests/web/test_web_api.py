"""The web app's JSON routes over a real SQLite file, in process (no browser needed)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.web.seed import seed
from trulymem import TrulyMem
from trulymem.server.http import create_app
from trulymem.web.graph import graph_view


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    seed(db_path)
    with TestClient(create_app(str(db_path), mcp=False), base_url="http://127.0.0.1:8765") as c:
        yield c


def edge(graph: dict[str, Any], relation: str) -> dict[str, Any]:
    return next(e for e in graph["edges"] if e["relation"] == relation)


def names(graph: dict[str, Any]) -> set[str]:
    return {n["name"] for n in graph["nodes"]}


def test_page_and_assets_are_served_with_a_strict_policy(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for path in ("/web/app.js", "/web/vendor/cytoscape.esm.min.js", "/web/style.css",
                 "/web/vendor/cytoscape.LICENSE", "/web/vendor/VENDOR.md"):
        assert client.get(path).status_code == 200, path
    assert "javascript" in client.get("/web/app.js").headers["content-type"]


def test_graph_now_and_as_of(client: TestClient) -> None:
    now = client.get("/v1/graph").json()
    assert {"Porto", "Acme", "cello"} <= names(now) and "Lisbon" not in names(now)
    assert edge(now, "lives_in")["kind"] == "FACT"
    assert {n["type"] for n in now["nodes"]} >= {"EntityNode", "TaskNode", "EpisodeNode"}
    then = client.get("/v1/graph", params={"as_of": (datetime.now(UTC) - timedelta(days=5)).isoformat()}).json()
    assert "Lisbon" in names(then) and "Porto" not in names(then) and "Acme" not in names(then)
    assert client.get("/v1/graph", params={"as_of": "2000-01-01T00:00:00Z"}).json()["shown"] == {"nodes": 0, "facts": 0}
    bad = client.get("/v1/graph", params={"as_of": "last tuesday"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "as_of"
    assert client.get("/v1/graph", params={"max_nodes": 0}).status_code == 422


def test_level_of_detail_keeps_structure_first_and_counts_the_rest(db_path: Path) -> None:
    with TrulyMem(db_path, user_id="bob", embedder="hashing") as mem:
        mem.commit([{"subject": f"thing {i}", "relation": "near", "object": f"thing {i + 1}"} for i in range(600)])
        mem.run("task_create", {"task_id": "T1", "description": "a task"})
        view = graph_view(mem.store, mem.scope, max_nodes=100)
    assert view["shown"]["nodes"] == 100 and view["total"]["nodes"] > 600
    assert "T1" in names(view)  # the task chain is kept whatever the size
    assert view["hidden"] == view["total"]["nodes"] - 100 == sum(c["count"] for c in view["clusters"])
    kept = {n["id"] for n in view["nodes"]}
    assert all(e["source"] in kept and e["target"] in kept for e in view["edges"])


def test_node_history_and_provenance(client: TestClient) -> None:
    graph = client.get("/v1/graph").json()
    user = next(n for n in graph["nodes"] if n["name"] == "user")
    node = client.get(f"/v1/graph/nodes/{user['id']}").json()
    past = [f for f in node["history"] if f["relation"] == "lives_in"]
    assert [f["object"] for f in past] == ["Lisbon"] and past[0]["superseded_by"]
    cello = next(f for f in node["facts"] if f["relation"] == "plays")
    # the message by its words and time (message_text), as recall shows it
    [said] = cello["provenance"]["messages"]
    assert said["id"] == "m-cello" and re.fullmatch(r"“I play the cello” \(\d{4}-\d\d-\d\d \d\d:\d\d\)", said["text"])
    versions = client.get(f"/v1/graph/facts/{past[0]['id']}/versions").json()
    assert [v["object"] for v in versions] == ["Lisbon", "Porto"]
    assert client.get("/v1/graph/nodes/nope").status_code == 404


def test_search_says_why(client: TestClient) -> None:
    res = client.post("/v1/graph/search", json={"query_intent": "Porto"}).json()
    hit = next(f for f in res["facts"] if f["object"] == "Porto")
    assert hit["why"] and any(not w.startswith("hop") for w in hit["why"])


def test_edit_forget_pin_each_undone_exactly(client: TestClient, db_path: Path) -> None:
    def export() -> str:
        import io

        with TrulyMem(db_path, user_id="default") as mem:
            buf = io.StringIO()
            mem.export_jsonl(buf)
            return buf.getvalue()

    fact = edge(client.get("/v1/graph").json(), "works_at")
    before = export()
    for action, text in (("edit", "Globex"), ("forget", None), ("pin", None)):
        done = client.post("/v1/graph/corrections", json={"fact_id": fact["id"], "action": action, "text": text})
        assert done.status_code == 200, done.text
        after = client.get("/v1/graph").json()
        if action == "edit":
            assert "Globex" in names(after) and edge(after, "works_at")["id"] == done.json()["replacement_id"]
        elif action == "forget":
            assert "Acme" not in names(after)
        else:
            assert edge(after, "works_at")["pinned"]
        assert client.post(f"/v1/graph/corrections/{done.json()['run_id']}/undo").status_code == 200
        assert export() == before
    listed = client.get("/v1/graph/corrections").json()
    assert [r["action"] for r in listed] == ["pin", "forget", "edit"] and all(r["undone_at"] for r in listed)
    again = client.post(f"/v1/graph/corrections/{listed[0]['run_id']}/undo")
    assert again.status_code == 409


def test_undo_refuses_when_the_fact_changed_since(client: TestClient) -> None:
    fact = edge(client.get("/v1/graph").json(), "likes")
    first = client.post("/v1/graph/corrections", json={"fact_id": fact["id"], "action": "edit", "text": "jazz"}).json()
    client.post("/v1/graph/corrections", json={"fact_id": first["replacement_id"], "action": "pin"})
    refused = client.post(f"/v1/graph/corrections/{first['run_id']}/undo")
    assert refused.status_code == 409 and "changed" in refused.json()["error"]["message"]


@pytest.mark.parametrize(("body", "field"), [
    ({"fact_id": "x", "action": "edit", "text": "y"}, "fact_id"),
    ({"action": "forget"}, "fact_id"),
    ({"fact_id": "FACT", "action": "explode"}, "action"),
    ({"fact_id": "FACT", "action": "edit", "text": "  "}, "text"),
])
def test_bad_corrections_change_nothing(client: TestClient, body: dict[str, Any], field: str) -> None:
    fact = edge(client.get("/v1/graph").json(), "likes")
    body = {k: fact["id"] if v == "FACT" else v for k, v in body.items()}
    res = client.post("/v1/graph/corrections", json=body)
    assert res.status_code in (404, 422) and res.json()["error"]["field"] == field
    assert client.get("/v1/graph/corrections").json() == []


def test_a_users_key_reaches_only_that_user(db_path: Path) -> None:
    from trulymem.keys import create_key
    from trulymem.store.sqlite import SQLiteStore

    seed(db_path, "alice")
    seed(db_path, "bob")
    with SQLiteStore(str(db_path)) as store:
        _, token = create_key(store, user_id="alice")
    with TestClient(create_app(str(db_path), mcp=False), base_url="http://127.0.0.1:8765") as c:
        assert c.get("/").status_code == 200  # the page itself holds no data
        assert c.get("/v1/graph").status_code == 401
        auth = {"Authorization": f"Bearer {token}"}
        assert c.get("/v1/graph/session", headers=auth).json()["user_id"] == "alice"
        assert c.get("/v1/graph", headers=auth, params={"user_id": "bob"}).status_code == 404
        bobs = graph_of(db_path, "bob")
        res = c.post("/v1/graph/corrections", headers=auth, json={"fact_id": bobs, "action": "forget"})
        assert res.status_code == 404


def graph_of(db: Path, user: str) -> str:
    with TrulyMem(db, user_id=user) as mem:
        return str(edge(graph_view(mem.store, mem.scope), "likes")["id"])


@pytest.mark.parametrize(("method", "path", "params", "body"), [
    ("GET", "/v1/graph", {"max_nodes": "many"}, None),
    ("GET", "/v1/graph", {"max_nodes": 10**9}, None),
    ("GET", "/v1/graph/nodes/x", {"as_of": "2026-13-45"}, None),
    ("POST", "/v1/graph/search", {}, ["not", "an", "object"]),
    ("POST", "/v1/graph/search", {}, {"query_intent": "x" * 100_000}),
    ("POST", "/v1/graph/search", {}, {"query_intent": "rock", "limit": -1}),
    ("POST", "/v1/graph/corrections", {}, {"fact_id": 7, "action": "forget"}),
    ("POST", "/v1/graph/corrections", {}, {"fact_id": "FACT", "action": "edit", "text": 42}),
    ("POST", "/v1/graph/corrections", {}, {"fact_id": "FACT", "action": "edit", "text": "x" * 10_000}),
    ("POST", "/v1/graph/corrections/nope/undo", {}, None),
    ("POST", "/v1/graph/dream/undo", {}, {"run_id": "nope"}),
    ("GET", "/v1/graph/corrections", {"limit": "all"}, None),
])
def test_bad_requests_answer_one_typed_error(client: TestClient, method: str, path: str, params: dict[str, Any],
                                            body: Any) -> None:
    fact = edge(client.get("/v1/graph").json(), "likes")
    if isinstance(body, dict):
        body = {k: fact["id"] if v == "FACT" else v for k, v in body.items()}
    before = client.get("/v1/graph").json()
    res = client.request(method, path, params=params, json=body)
    assert 400 <= res.status_code < 500, res.text
    assert set(res.json()["error"]) >= {"type", "message"}
    assert client.get("/v1/graph").json() == before
