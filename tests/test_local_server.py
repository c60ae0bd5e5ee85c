"""A keyless local ``trulymem serve`` writes for its default user (``--user``, else the
configured default) and never reads across users unless a request names one."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest

from tests.helpers import Served
from trulymem import TrulyMem

pytest.importorskip("mcp")

from tests.test_mcp import caller, exercise, http_session  # noqa: E402


def _seed_bob(db: Path) -> str:
    with TrulyMem(db, user_id="bob") as mem:
        mem.call("memory_commit", {"triplets": [{"subject": "user", "relation": "likes", "object": "Lisbon jazz"}]})
        return str(mem.call("add_memory", {"text": "Bob's secret: Lisbon"}).result["results"][0]["id"])  # type: ignore[index]


@pytest.mark.parametrize("user", ["alice", None], ids=["--user alice", "configured default"])
def test_keyless_mcp_writes_for_the_default_user(db_path: Path, user: str | None) -> None:
    bob_id = _seed_bob(db_path)
    served = Served(str(db_path), *(["--user", user] if user else []))
    me = user or "default"

    async def main() -> None:
        async with http_session(served.url) as session:
            call = caller(session)
            # bob's memories are invisible to a request that names no user
            assert "Lisbon" not in (await call("memory_recall", query_intent="Lisbon jazz"))["text"]
            assert (await call("search_memories", query="Lisbon"))["results"] == []
            with pytest.raises(RuntimeError, match="not_found"):
                await call("get_memory", memory_id=bob_id)
            await exercise(session)  # memory_commit, task_create, persona_set, memory_purge, memory_ingest …
            # naming a user is the keyless server's explicit way to reach it (documented)
            assert (await call("get_memory", memory_id=bob_id, user_id="bob"))["memory"] == "Bob's secret: Lisbon"

    try:
        anyio.run(main)
        with httpx.Client(base_url=served.url, timeout=30) as c:
            assert c.get("/v1/persona").json()["attributes"] == {"role": "guide"}
            assert [t["task_id"] for t in c.get("/v1/tasks").json()["tasks"]] == ["Task_a"]
            assert c.get("/v1/memories").json()["total"] == 0  # exercise() ends with delete_all_memories
            assert c.get("/v1/memories", params={"user_id": "bob"}).json()["total"] == 2  # bob untouched
    finally:
        served.stop()
    with TrulyMem(db_path, user_id=me) as mem:
        assert mem.call("persona_get", {}).result["attributes"] == {"role": "guide"}  # type: ignore[index]
    with TrulyMem(db_path, user_id="bob") as mem:
        assert mem.call("persona_get", {}).result["attributes"] == {}  # type: ignore[index]


def test_rest_filters_as_json_text_are_key_checked(db_path: Path) -> None:
    """The API-key check reads ``filters`` given as JSON text, so REST takes them as MCP does."""
    from tests.test_http import key

    _seed_bob(db_path)
    alice = key(db_path, "--user", "alice")
    served = Served(str(db_path))
    try:
        with httpx.Client(base_url=served.url, timeout=30, headers={"Authorization": f"Bearer {alice}"}) as c:
            r = c.post("/v1/memories/list", json={"filters": '{"user_id": "bob"}'})
            assert r.status_code == 404 and r.json()["error"]["field"] == "user_id"  # bob's, hidden as unknown
            c.post("/v1/memories", json={"text": "Alice likes tea"}).raise_for_status()
            r = c.post("/v1/memories/list", json={"filters": '{"user_id": "alice"}'})
            assert r.status_code == 200 and r.json()["total"] == 1
            r = c.post("/v1/memories/list", json={"filters": "{not json"})
            assert r.status_code == 422 and r.json()["error"]["field"] == "filters"
    finally:
        served.stop()


@pytest.mark.parametrize("flags, mcp", [((), True), (("--no-mcp",), False)], ids=["with MCP", "--no-mcp"])
def test_the_start_line_names_mcp_only_when_it_is_served(db_path: Path, flags: tuple[str, ...], mcp: bool) -> None:
    served = Served(str(db_path), *flags)
    try:
        answer = httpx.post(served.url + "/mcp", json={}, timeout=10,
                            headers={"Accept": "application/json, text/event-stream"})
        served.log.seek(0)
        start = served.log.read().splitlines()[0]
    finally:
        served.stop()
    assert ("MCP /mcp" in start) is mcp and ("no MCP" in start) is not mcp, start
    assert (answer.status_code == 404) is not mcp, answer.status_code


def test_a_taken_port_is_one_error_and_no_start_line(db_path: Path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "trulymem", "serve", "--db", str(db_path), "--port", str(port)],
                              capture_output=True, text=True, timeout=60)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and f"cannot listen on 127.0.0.1:{port}" in said, said
    assert "on http://" not in said, said
