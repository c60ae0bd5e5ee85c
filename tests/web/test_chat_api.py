"""``POST /v1/chat``: a turn of the protocol agent, streamed as server-sent events or answered whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.helpers import Served
from tests.web.seed import seed
from trulymem import TrulyMem
from trulymem.llm.scripted import ScriptedLLM
from trulymem.llm.scripted_server import ScriptedServer
from trulymem.server.http import create_app

BASE = "http://127.0.0.1:8765"
COMMIT = {"tool_calls": [{"name": "memory_commit", "arguments": {
    "triplets": [{"subject": "user", "relation": "likes", "object": "jazz"}]}}]}


def events(lines: list[str]) -> list[tuple[str, Any]]:
    out, event = [], "message"
    for line in lines:
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            out.append((event, json.loads(line[5:])))
    return out


def test_streamed_turn_tokens_then_done_with_the_trace(db_path: Path) -> None:
    seed(db_path)
    llm = ScriptedLLM([COMMIT, "Noted, jazz it is."])
    with TestClient(create_app(str(db_path), mcp=False, llm=llm), base_url=BASE) as c:
        with c.stream("POST", "/v1/chat", json={"message": "I like jazz"}) as res:
            assert res.status_code == 200 and res.headers["content-type"].startswith("text/event-stream")
            got = events(list(res.iter_lines()))
    kinds = [e for e, _ in got]
    assert kinds[0] == "tool" and kinds[-1] == "done" and "error" not in kinds and "token" in kinds
    assert got[0][1]["name"] == "memory_commit" and got[0][1]["ok"]  # told as it finished, before the reply
    assert "".join(d["text"] for e, d in got if e == "token") == "Noted, jazz it is."
    done = got[-1][1]
    assert done["reply"] == "Noted, jazz it is."
    trace = done["trace"]
    assert [t["name"] for t in trace["tools"]] == ["memory_commit"] and trace["written"]["facts"]
    assert "likes rock" in json.dumps(trace["recalled"])  # what the turn recalled before the model answered
    with TrulyMem(db_path, user_id="default") as mem:
        assert any(f.object == "jazz" for f in mem.recall("jazz").facts)


def test_whole_answer_and_errors(db_path: Path) -> None:
    seed(db_path)
    with TestClient(create_app(str(db_path), mcp=False, llm=ScriptedLLM(["Hello."])), base_url=BASE) as c:
        whole = c.post("/v1/chat", json={"message": "hi", "stream": False})
        assert whole.status_code == 200 and whole.json()["reply"] == "Hello."
        for body, field in (({}, "message"), ({"message": "  "}, "message"), ({"message": "x", "stream": "yes"},
                                                                                "stream"),
                            ({"message": "x", "mood": 1}, "mood"), ({"message": "x" * 9000}, "message")):
            res = c.post("/v1/chat", json=body)
            assert res.status_code == 422 and res.json()["error"]["field"] == field
        with c.stream("POST", "/v1/chat", json={"message": "again"}) as res:  # the script is used up
            got = events(list(res.iter_lines()))
        assert got[-1][0] == "error" and got[-1][1]["error"]["type"] == "llm_error"
    with TestClient(create_app(str(db_path), mcp=False), base_url=BASE) as c:
        res = c.post("/v1/chat", json={"message": "hi"})
        assert res.status_code == 501 and res.json()["error"]["field"] == "llm"


def test_over_real_http_with_the_scripted_model_server(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seed(db_path)
    with ScriptedServer(["A streamed reply, in several pieces."], model="m", api_key="k") as llm:
        monkeypatch.setenv("TRULYMEM_LLM_MODEL", "m")
        monkeypatch.setenv("TRULYMEM_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("TRULYMEM_LLM_API_KEY", "k")
        srv = Served(str(db_path), "--no-mcp")
        try:
            with httpx.stream("POST", srv.url + "/v1/chat", json={"message": "hello"}, timeout=30) as res:
                got = events(list(res.iter_lines()))
        finally:
            srv.stop()
    tokens = [d["text"] for e, d in got if e == "token"]
    assert len(tokens) > 1 and "".join(tokens) == "A streamed reply, in several pieces."
    assert got[-1][0] == "done"
