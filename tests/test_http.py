"""The HTTP API against a real `trulymem serve` process on a loopback port."""

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


def key(db: Path, *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "trulymem", "keys", "create", "--db", str(db), "--json", *args],
                         capture_output=True, text=True, check=True)
    return str(json.loads(out.stdout)["token"])


@pytest.fixture
def open_server(db_path: Path) -> Iterator[Served]:
    s = Served(str(db_path))
    yield s
    s.stop()


def ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


def test_every_route_without_keys(open_server: Served) -> None:
    with httpx.Client(base_url=open_server.url, timeout=30) as c:
        assert ok(c.get("/health"))["status"] == "ok"
        added = ok(c.post("/v1/memories", json={"user_id": "alice", "text": "I live in Lisbon",
                                                "metadata": {"type": "profile", "source_app": "test"}}))
        mid = added["results"][0]["id"]
        ok(c.post("/v1/memories", json={"user_id": "alice", "messages": [
            {"role": "user", "content": "Deploy to ECS"}, {"role": "user", "content": "Use PostgreSQL for auth"}]}))
        assert c.get(f"/v1/memories/{mid}").status_code == 404  # no user named: the server's default user, not alice
        got = ok(c.get(f"/v1/memories/{mid}", params={"user_id": "alice"}))
        assert got["memory"] == "I live in Lisbon" and got["type"] == "profile" and got["metadata"]["source_app"] == "test"
        listed = ok(c.get("/v1/memories", params={"user_id": "alice"}))
        assert listed["total"] == 3
        flt = {"AND": [{"user_id": "alice"}, {"type": {"eq": "profile"}}]}
        assert ok(c.get("/v1/memories", params={"filters": json.dumps(flt)}))["total"] == 1
        assert ok(c.post("/v1/memories/list", json={"filters": {"memory": {"icontains": "deploy"}},
                                                    "user_id": "alice"}))["total"] == 1
        found = ok(c.post("/v1/memories/search", json={"user_id": "alice", "query": "where do I live Lisbon"}))
        assert found["results"][0]["id"] == mid and found["results"][0]["score"] == 1.0
        # without a key a request reaches the default user or the one it names (?user_id= or the body)
        alice = {"user_id": "alice"}
        upd = ok(c.patch(f"/v1/memories/{mid}", params=alice, json={"text": "I live in Porto"}))
        assert ok(c.get(f"/v1/memories/{mid}", params=alice))["memory"] == "I live in Porto"  # the old id follows
        assert ok(c.get(f"/v1/memories/{mid}", params=alice))["id"] == upd["id"]
        hist = ok(c.get(f"/v1/memories/{mid}/history", params=alice))
        assert [e["event"] for e in hist["results"]] == ["ADD", "UPDATE"]
        ok(c.patch(f"/v1/memories/{upd['id']}", json={"metadata": {"pinned": True}, "user_id": "alice"}))
        assert ok(c.get(f"/v1/memories/{upd['id']}", params=alice))["pinned"] is True
        assert c.get(f"/v1/memories/{upd['id']}", params={"user_id": "bob"}).status_code == 404  # not bob's
        assert ok(c.patch(f"/v1/memories/{upd['id']}", params={"user_id": "bob"}, json={"text": "x", "user_id": "alice"}),
                  422)["error"]["field"] == "user_id"  # two different users named: refused, not guessed
        ok(c.delete(f"/v1/memories/{upd['id']}", params=alice))
        assert c.get(f"/v1/memories/{upd['id']}", params=alice).status_code == 404
        assert ok(c.delete("/v1/memories", params={"user_id": "alice"}))["deleted"] == 2
        assert ok(c.get("/v1/memories", params={"user_id": "alice"}))["total"] == 0
        # triplets, recall, purge, tasks, persona, stats, dream, any tool
        jazz = {"triplets": [{"subject": "user", "relation": "likes", "object": "jazz"}]}
        assert ok(c.post("/v1/triplets", json={**jazz, "user_id": "alice"}), 422)["error"]["field"] == "user_id"
        ok(c.post("/v1/triplets", params={"user_id": "alice"}, json=jazz))  # without a key: ?user_id= says whose
        ok(c.post("/v1/tasks", json={"task_id": "Task_a", "description": "A task"}))  # the default user's
        assert ok(c.get("/v1/tasks"))["tasks"][0]["task_id"] == "Task_a"
        assert not ok(c.get("/v1/tasks", params=alice))["tasks"]
        assert ok(c.post("/v1/tools/memory_recall", params={"user_id": "alice"}, json={"query_intent": "jazz"}))["facts"]
        mine = ok(c.post("/v1/tools/memory_recall", json={"query_intent": "jazz"}))["facts"]
        assert "jazz" not in {f["object"] for f in mine}  # the default user's recall never reads alice's
        assert ok(c.get("/v1/stats"))["users"] == 1  # no user named: the default user only


def test_tool_routes_for_one_user(db_path: Path) -> None:
    token = key(db_path, "--user", "alice")
    s = Served(str(db_path))
    try:
        with httpx.Client(base_url=s.url, timeout=30, headers={"Authorization": f"Bearer {token}"}) as c:
            ok(c.post("/v1/triplets", json={"triplets": [{"subject": "user", "relation": "likes", "object": "jazz"}]}))
            assert "jazz" in ok(c.post("/v1/recall", json={"query_intent": "jazz"}))["text"]
            ok(c.post("/v1/tasks", json={"task_id": "Task_a", "description": "A task"}))
            assert ok(c.put("/v1/tasks/Task_a/state", json={"state": "paused"}))["state"] == "paused"
            assert ok(c.get("/v1/tasks"))["tasks"][0]["state"] == "paused"
            ok(c.patch("/v1/persona", json={"attributes": {"role": "guide"}}))
            assert ok(c.get("/v1/persona"))["attributes"] == {"role": "guide"}
            assert ok(c.get("/v1/stats"))["facts_valid"] >= 1
            assert ok(c.post("/v1/purge", json={"criteria": {"object": "jazz"}}))["matched"]
            assert ok(c.post("/v1/dream", json={"mode": "dry_run"}))["status"] in ("no_memories", "nothing_to_do")
            assert ok(c.post("/v1/tools/task_list", json={}))["tasks"]
            assert ok(c.post("/v1/ingest", json={"messages": [{"speaker": "alice", "text": "hi", "id": "m1"}]}))[
                "episodes"]
            assert c.post("/v1/tools/context_rewrite", json={}).status_code == 404
            assert "/v1/memories/search" in ok(c.get("/openapi.json"))["paths"]
            assert c.get("/docs").status_code == 200
    finally:
        s.stop()


def test_keys_keep_users_apart(db_path: Path) -> None:
    alice, bob, admin = key(db_path, "--user", "alice"), key(db_path, "--user", "bob"), key(db_path, "--admin")
    s = Served(str(db_path))
    try:
        a = httpx.Client(base_url=s.url, timeout=30, headers={"Authorization": f"Bearer {alice}"})
        b = httpx.Client(base_url=s.url, timeout=30, headers={"Authorization": f"Bearer {bob}"})
        root = httpx.Client(base_url=s.url, timeout=30, headers={"Authorization": f"Bearer {admin}"})
        bid = ok(b.post("/v1/memories", json={"text": "Bob's secret plan"}))["results"][0]["id"]
        ok(a.post("/v1/memories", json={"text": "Alice likes tea"}))
        # guessing Bob's id, naming Bob, or filtering for Bob: 404, never 403
        for r in (a.get(f"/v1/memories/{bid}"), a.patch(f"/v1/memories/{bid}", json={"text": "hacked"}),
                  a.delete(f"/v1/memories/{bid}"), a.get(f"/v1/memories/{bid}/history"),
                  a.get("/v1/memories", params={"user_id": "bob"}),
                  a.post("/v1/memories/list", json={"filters": {"OR": [{"user_id": "bob"}, {"user_id": "alice"}]}}),
                  a.post("/v1/memories/search", json={"query": "plan", "user_id": "bob"}),
                  a.post("/v1/memories", json={"text": "x", "user_id": "bob"}),
                  a.delete("/v1/memories", params={"user_id": "bob"})):
            assert r.status_code == 404, r.text
        assert [m["memory"] for m in ok(a.get("/v1/memories"))["results"]] == ["Alice likes tea"]
        assert ok(b.get(f"/v1/memories/{bid}"))["memory"] == "Bob's secret plan"  # untouched
        assert ok(root.get("/v1/memories"))["total"] == 2 and ok(root.get(f"/v1/memories/{bid}"))
        assert httpx.get(s.url + "/v1/memories", timeout=30).status_code == 401
        bad = httpx.get(s.url + "/v1/memories", headers={"Authorization": "Bearer tm_nope_nope"}, timeout=30)
        assert bad.status_code == 401 and bad.headers["www-authenticate"] == "Bearer"
        key_id = alice.split("_")[1]
        subprocess.run([sys.executable, "-m", "trulymem", "keys", "revoke", key_id, "--db", str(db_path)], check=True)
        assert a.get("/v1/memories").status_code == 401
        for c in (a, b, root):
            c.close()
    finally:
        s.stop()


def test_bad_bodies(open_server: Served) -> None:
    with httpx.Client(base_url=open_server.url, timeout=30) as c:
        big = c.post("/v1/memories", content=b'{"text": "' + b"x" * (2 << 20) + b'"}',
                     headers={"content-type": "application/json"})
        assert big.status_code == 413 and big.json()["error"]["type"] == "too_large"
        bad = c.post("/v1/memories", content=b"{not json", headers={"content-type": "application/json"})
        assert bad.status_code == 400 and bad.json()["error"]["field"] == "body"  # not JSON at all: 400
        field = c.post("/v1/memories", json={"user_id": "alice", "text": "x", "metadata": "nope"})
        assert field.status_code == 422 and field.json()["error"]["field"] == "metadata"
        both = c.post("/v1/memories", json={"user_id": "alice"})
        assert both.status_code == 422 and both.json()["error"]["field"] == "messages"
        flt = c.get("/v1/memories", params={"user_id": "alice", "filters": '{"age": {"between": 1}}'})
        assert flt.status_code == 422 and flt.json()["error"]["field"] == "filters.age.between"
        assert c.get("/v1/memories", params={"user_id": "alice", "page_size": 5000}).status_code == 422
        assert c.get("/v1/memories/nope").status_code == 404


def test_pagination_over_a_thousand_memories(open_server: Served) -> None:
    with httpx.Client(base_url=open_server.url, timeout=60) as c:
        for start in range(0, 1000, 200):
            ok(c.post("/v1/memories", json={"user_id": "alice", "messages": [
                {"role": "user", "content": f"memory number {i}"} for i in range(start, start + 200)]}))
        seen: list[str] = []
        for page in range(1, 12):
            data = ok(c.get("/v1/memories", params={"user_id": "alice", "page": page, "page_size": 100}))
            assert data["total"] == 1000 and data["total_pages"] == 10
            seen += [m["memory"] for m in data["results"]]
            assert data["has_more"] == (page < 10)
        assert seen == [f"memory number {i}" for i in range(1000)]


def test_listening_beyond_localhost_needs_a_key(db_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "trulymem", "serve", "--db", str(db_path), "--host", "0.0.0.0",
                        "--port", "1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "refusing to listen on 0.0.0.0 without an API key" in r.stderr


def test_dream_over_http_with_explicit_choices(open_server: Served) -> None:
    with httpx.Client(base_url=open_server.url, timeout=30) as c:
        for text in ("Deploy to ECS", "Deploy to Vercel", "Use PostgreSQL for auth", "Auth DB is PostgreSQL"):
            ok(c.post("/v1/memories", json={"user_id": "alice", "app_id": "p", "text": text,
                                            "metadata": {"type": "decision"}}))
        report = ok(c.post("/v1/dream", json={"user_id": "alice", "app_id": "p", "mode": "dry_run"}))
        assert report["status"] == "dry_run" and len(report["analysis"]["conflicts"]) == 1
        assert len(report["analysis"]["review"]) == 1  # the PostgreSQL pair: alike, not provably one fact
        assert report["output"].startswith("## dream — consolidation report")
        unplanned = c.post("/v1/dream", json={"user_id": "alice", "app_id": "p", "mode": "apply", "choices": {"1": "b"}})
        assert unplanned.status_code == 422 and unplanned.json()["error"]["field"] == "choices.1"  # a number needs its plan
        plan = report["analysis"]["plan_id"]
        bad = c.post("/v1/dream", json={"user_id": "alice", "app_id": "p", "mode": "apply", "choices": {"5": "A"},
                                        "plan_id": plan})
        assert bad.status_code == 422 and bad.json()["error"]["field"] == "choices.5"
        done = ok(c.post("/v1/dream", json={"user_id": "alice", "app_id": "p", "mode": "apply", "choices": {"1": "b"},
                                            "review": {"1": "merge"}, "plan_id": plan}))
        assert (done["applied"]["merged"], done["applied"]["reviewed"], done["applied"]["resolved"]) == (1, 1, 1)
        left = sorted(m["memory"] for m in ok(c.get("/v1/memories", params={"user_id": "alice"}))["results"])
        assert "Deploy to ECS" not in left and "Deploy to Vercel" in left and len(left) == 2


def test_more_bad_requests(open_server: Served) -> None:
    with httpx.Client(base_url=open_server.url, timeout=30) as c:
        for body, field in (({"text": "x", "user_id": ["a"]}, "user_id"), ({"user_id": "a", "text": "x",
                            "metadata": {"confidence": "high"}}, "metadata.confidence")):
            r = c.post("/v1/memories", json=body)
            assert r.status_code == 422 and r.json()["error"]["field"] == field, r.text
        deep = "[" * 3000 + "]" * 3000  # a short URL that nests 3,000 levels
        assert c.get("/v1/memories", params={"user_id": "a", "filters": deep}).status_code == 422
        nested = {"user_id": "a"}
        for _ in range(40):
            nested = {"NOT": nested}
        r = c.post("/v1/memories/list", json={"filters": nested})
        assert r.status_code == 422 and "deeper" in r.json()["error"]["message"]
        assert ok(c.post("/v1/dream", json={"mode": "apply"}))["project"] == "default"  # no user named: the default
        assert c.delete("/v1/memories", params={"user_id": "a", "agent_id": ""}).status_code == 422


def test_an_empty_path_segment_is_no_route_never_a_redirect(open_server: Served) -> None:
    """An id of "/" (sent as %2F) leaves an empty segment: answered 404 in the error shape,
    never redirected to the list (or the delete-all) route without its trailing slash."""
    with httpx.Client(base_url=open_server.url, timeout=30, follow_redirects=False) as c:
        ok(c.post("/v1/memories", json={"text": "I keep bees", "user_id": "alice"}))
        for method, path in (("GET", "/v1/memories/%2F"), ("DELETE", "/v1/memories/%2F"),
                             ("GET", "/v1/memories/%2F/history"), ("PUT", "/v1/memories//")):
            r = c.request(method, path, params={"user_id": "alice"})
            assert r.status_code == 404 and r.json()["error"]["type"] == "not_found", (method, path, r.text)
        assert len(ok(c.get("/v1/memories", params={"user_id": "alice"}))["results"]) == 1
