"""The Memories table's routes and the task chain at a time, in process over a real SQLite file."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.web.seed import add_tasks, seed
from trulymem import TrulyMem
from trulymem.server.http import create_app


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    seed(db_path)
    with TestClient(create_app(str(db_path), mcp=False), base_url="http://127.0.0.1:8765") as c:
        yield c


def export(db: Path) -> str:
    with TrulyMem(db, user_id="default") as mem:
        buf = io.StringIO()
        mem.export_jsonl(buf)
    return buf.getvalue()


def test_memories_filter_by_type_relation_pinned_and_time(client: TestClient) -> None:
    every = client.get("/v1/graph/memories").json()
    texts = {f"{m['subject']} {m['relation']} {m['object']}" for m in every["memories"]}
    assert {"user lives_in Porto", "user works_at Acme", "user plays cello"} <= texts
    assert "user lives_in Lisbon" not in texts                     # replaced: history, not a current memory
    assert not any(m["relation"] in ("said", "mentions") for m in every["memories"])  # who said which message
    assert every["total"] == len(every["memories"]) and {"style", "pref"} <= set(every["types"])
    assert {"lives_in", "memory"} <= set(every["relations"])
    style = client.get("/v1/graph/memories", params={"type": "style"}).json()["memories"]
    assert [m["object"] for m in style] == ["Never use tabs", "Always use tabs"]  # newest first
    lives = client.get("/v1/graph/memories", params={"relation": "Lives-In"}).json()["memories"]  # folded like the store
    assert [m["object"] for m in lives] == ["Porto"]
    pin = next(m for m in every["memories"] if m["object"] == "Acme")
    assert client.post("/v1/graph/corrections", json={"fact_id": pin["id"], "action": "pin"}).status_code == 200
    pinned = client.get("/v1/graph/memories", params={"pinned": "true"}).json()["memories"]
    assert [m["object"] for m in pinned] == ["Acme"]
    assert "Acme" not in {m["object"] for m in client.get("/v1/graph/memories", params={"pinned": "false"}).json()["memories"]}
    week = (datetime.now(UTC) - timedelta(days=7)).isoformat()
    old = client.get("/v1/graph/memories", params={"until": week}).json()["memories"]
    assert {m["object"] for m in old} == {"rock", "Always use tabs"}  # those from 10 days ago still current
    recent = {m["object"] for m in client.get("/v1/graph/memories", params={"since": week}).json()["memories"]}
    assert "rock" not in recent and "Porto" in recent
    then = client.get("/v1/graph/memories", params={"as_of": week}).json()["memories"]
    assert {"Lisbon", "Always use tabs"} <= {m["object"] for m in then}


@pytest.mark.parametrize("params,field", [({"since": "yesterday"}, "since"), ({"until": "x"}, "until"),
                                          ({"limit": 0}, "limit"),
                                          ({"since": "2026-02-01T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, "since")])
def test_bad_filters_name_the_field(client: TestClient, params: dict[str, object], field: str) -> None:
    res = client.get("/v1/graph/memories", params=params)
    assert res.status_code == 422 and res.json()["error"]["field"] == field


def test_bulk_forget_is_one_undoable_correction(client: TestClient, db_path: Path) -> None:
    rows = client.get("/v1/graph/memories", params={"type": "pref"}).json()["memories"]
    assert len(rows) == 2
    before = export(db_path)
    bad = client.post("/v1/graph/corrections/forget", json={"fact_ids": [rows[0]["id"], "nope"]})
    assert bad.status_code == 404 and bad.json()["error"]["field"] == "fact_ids"
    assert export(db_path) == before                                # all or nothing
    for body in ({"fact_ids": []}, {"fact_ids": "x"}, {}):
        res = client.post("/v1/graph/corrections/forget", json=body)
        assert res.status_code == 422 and res.json()["error"]["field"] == "fact_ids"
    done = client.post("/v1/graph/corrections/forget", json={"fact_ids": [r["id"] for r in rows]}).json()
    assert done["forgotten"] == 2
    assert client.get("/v1/graph/memories", params={"type": "pref"}).json()["memories"] == []
    again = client.post("/v1/graph/corrections/forget", json={"fact_ids": [rows[0]["id"]]})
    assert again.status_code == 409
    listed = client.get("/v1/graph/corrections").json()[0]
    assert listed["run_id"] == done["run_id"] and listed["text"].startswith("2 facts: ")
    assert client.post(f"/v1/graph/corrections/{done['run_id']}/undo").json()["undone"] is True
    assert export(db_path) == before


def test_tasks_as_they_stood_at_a_time(client: TestClient, db_path: Path) -> None:
    add_tasks(db_path)  # begun 8 days ago, paused 3 days ago; the seed's task is from yesterday
    now = client.get("/v1/graph/tasks").json()["tasks"]
    assert [(x["task_id"], x["state"]) for x in now] == [("Plan the trip", "in_progress"), ("Task_old", "paused")]
    at = (datetime.now(UTC) - timedelta(days=5)).isoformat()
    then = client.get("/v1/graph/tasks", params={"as_of": at}).json()
    assert [(x["task_id"], x["state"]) for x in then["tasks"]] == [("Task_old", "in_progress")]
    bad = client.get("/v1/graph/tasks", params={"as_of": "soon"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "as_of"
