"""``Scope.everyone()`` reads every user and writes none: every write path refuses it with a
typed error and changes nothing, in the library and over HTTP (issue 12, item 4)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Served, snapshot, triplet
from trulymem import InvalidInput, TrulyMem
from trulymem.model import Scope

WRITES: list[tuple[str, dict[str, Any]]] = [
    ("memory_commit", {"triplets": [triplet("user", "likes", "jazz")]}),
    ("memory_purge", {"criteria": {"object": "tea"}}),
    ("memory_purge", {"criteria": {"object": "tea"}, "mode": "hard", "confirm": True}),
    ("task_create", {"task_id": "T", "description": "d"}),
    ("task_set_state", {"task_id": "T0", "state": "paused"}),
    ("persona_set", {"attributes": {"role": "cat"}}),
    ("memory_ingest", {"messages": [{"speaker": "user", "text": "hello"}]}),
    ("add_memory", {"text": "coffee"}),
    ("update_memory", {"memory_id": "MID", "text": "coffee"}),
    ("update_memory", {"memory_id": "MID", "metadata": {"pinned": True}}),
    ("delete_memory", {"memory_id": "MID"}),
    ("delete_all_memories", {}),
    ("memory_dream", {"mode": "auto"}),
]


@pytest.fixture
def seeded(mem: TrulyMem) -> tuple[TrulyMem, str]:
    mid = mem.call("add_memory", {"text": "tea"}).result["results"][0]["id"]  # type: ignore[index]
    mem.task_create("T0", "a task")
    return mem, mid


@pytest.mark.parametrize(("tool", "args"), WRITES)
def test_every_write_tool_refuses_the_global_scope(seeded: tuple[TrulyMem, str], tool: str,
                                                   args: dict[str, Any]) -> None:
    mem, mid = seeded
    everyone = TrulyMem(mem.store, scope=Scope.everyone(), clock=mem.clock)
    args = json.loads(json.dumps(args).replace("MID", mid))
    before = snapshot(mem)
    res = everyone.call(tool, args)
    assert not res.ok and res.error is not None
    assert res.error["type"] == "invalid_input" and res.error["field"] == "user_id", res.error
    assert snapshot(mem) == before


def test_reads_still_see_every_user(seeded: tuple[TrulyMem, str]) -> None:
    mem, mid = seeded
    everyone = TrulyMem(mem.store, scope=Scope.everyone())
    assert everyone.call("get_memory", {"memory_id": mid}).ok
    assert everyone.call("get_memories", {}).result["total"] == 1  # type: ignore[index]
    # naming the user makes the write one user's
    assert everyone.call("update_memory", {"memory_id": mid, "text": "coffee", "user_id": "alice"}).ok


def test_import_into_the_global_scope_needs_all_users(seeded: tuple[TrulyMem, str], tmp_path: Path) -> None:
    mem, _ = seeded
    buf = io.StringIO()
    mem.export_jsonl(buf)
    with TrulyMem(tmp_path / "other.db", scope=Scope.everyone()) as target:
        before = snapshot(target)
        with pytest.raises(InvalidInput) as exc:
            target.import_jsonl(buf.getvalue().splitlines())
        assert exc.value.field == "user_id" and snapshot(target) == before
        assert target.import_jsonl(buf.getvalue().splitlines(), all_users=True)["facts"] > 0  # explicit restore


def _admin_key(db: Path) -> str:
    out = subprocess.run([sys.executable, "-m", "trulymem", "keys", "create", "--db", str(db), "--admin", "--json"],
                         capture_output=True, text=True, check=True)
    return str(json.loads(out.stdout)["token"])


@pytest.mark.parametrize("keyed", [False, True], ids=["keyless", "admin-key"])
def test_http_patch_and_delete_need_a_user(db_path: Path, keyed: bool) -> None:
    with TrulyMem(db_path, user_id="alice") as mem:
        mid = mem.call("add_memory", {"text": "tea"}).result["results"][0]["id"]  # type: ignore[index]
    headers = {"Authorization": f"Bearer {_admin_key(db_path)}"} if keyed else {}
    s = Served(str(db_path))
    try:
        with httpx.Client(base_url=s.url, timeout=30, headers=headers) as c:
            before = c.get(f"/v1/memories/{mid}").json()
            for r in (c.patch(f"/v1/memories/{mid}", json={"text": "coffee"}),
                      c.patch(f"/v1/memories/{mid}", json={"metadata": {"pinned": True}}),
                      c.delete(f"/v1/memories/{mid}"),
                      c.post("/v1/tools/delete_memory", json={"memory_id": mid}),
                      c.post("/v1/tools/update_memory", json={"memory_id": mid, "text": "coffee"})):
                assert 400 <= r.status_code < 500, r.text
                # an admin must name the user; a keyless server acts as its default user, who has no such memory
                assert r.json()["error"]["field"] == ("user_id" if keyed else "memory_id")
            assert c.get(f"/v1/memories/{mid}").json() == before
            assert c.get(f"/v1/memories/{mid}/history", params={"user_id": "alice"}).json()["results"][-1]["event"] == "ADD"
            # naming the user is how an admin (or a keyless local client) changes a memory
            ok = c.patch(f"/v1/memories/{mid}", json={"text": "coffee", "user_id": "alice"})
            assert ok.status_code == 200, ok.text
            alice = {"user_id": "alice"}  # or as ?user_id=, on every single-memory route
            new_id = ok.json()["id"]
            assert c.patch(f"/v1/memories/{new_id}", params=alice, json={"metadata": {"pinned": True}}).status_code == 200
            assert c.get(f"/v1/memories/{new_id}", params=alice).json()["pinned"] is True
            events = c.get(f"/v1/memories/{mid}/history", params=alice).json()["results"]
            assert [e["event"] for e in events] == ["ADD", "UPDATE"]
            assert c.delete(f"/v1/memories/{new_id}", params=alice).status_code == 200
            assert c.get(f"/v1/memories/{new_id}", params=alice).status_code == 404
    finally:
        s.stop()
