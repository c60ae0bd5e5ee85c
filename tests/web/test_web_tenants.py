"""Every web route and ``POST /v1/chat`` with bob's key, aimed at alice: nothing of hers in any
answer, nothing of hers changed, every one a 404 as if she did not exist, and nothing of hers in
the model's prompts (the reliability suite's tenant probe tries these routes too, over a real
server without a model)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.web.seed import seed
from trulymem import TrulyMem
from trulymem.keys import create_key
from trulymem.llm.scripted import ScriptedLLM
from trulymem.server.http import create_app
from trulymem.store.sqlite import SQLiteStore
from trulymem.web.edits import correct
from trulymem.web.graph import graph_view

SECRET = "alice-secret diary"


def rows(db: Path, user: str) -> list[str]:
    with TrulyMem(db, user_id=user) as mem:
        buf = io.StringIO()
        mem.export_jsonl(buf)
    return buf.getvalue().splitlines()


def alice_ids(db: Path) -> dict[str, str]:
    """One of each id of alice's the routes take: a node, a fact, a correction run."""
    with TrulyMem(db, user_id="alice") as mem:
        mem.commit([{"subject": "user", "relation": "reads", "object": SECRET}])
        view = graph_view(mem.store, mem.scope)
        fact = next(e for e in view["edges"] if e["relation"] == "likes")
        node = next(n for n in view["nodes"] if n["name"] == "Porto")
        run = correct(mem.context(), fact["id"], "pin")["run_id"]
    return {"node": node["id"], "fact": fact["id"], "run": run}


def attempts(ids: dict[str, str]) -> Iterator[tuple[str, str, dict[str, Any], Any]]:
    alice = {"user_id": "alice"}
    for params in ({}, alice):
        yield "GET", "/v1/graph", params, None
        yield "GET", "/v1/graph/session", params, None
        yield "GET", f"/v1/graph/nodes/{ids['node']}", params, None
        yield "GET", f"/v1/graph/nodes/{ids['node']}/neighbours", params, None
        yield "GET", f"/v1/graph/facts/{ids['fact']}/versions", params, None
        yield "POST", "/v1/graph/search", params, {"query_intent": "Porto"}
        yield "GET", "/v1/graph/tasks", params, None
        yield "GET", "/v1/graph/memories", params, None
        if params:  # filters beside a user name (bob's own filtered listings are his to read)
            yield "GET", "/v1/graph/tasks", {**params, "as_of": "2099-01-01T00:00:00Z"}, None
            yield "GET", "/v1/graph/memories", {**params, "relation": "reads", "pinned": "false"}, None
        yield "POST", "/v1/graph/corrections/forget", params, {"fact_ids": [ids["fact"]]}
        yield "GET", "/v1/graph/corrections", params, None
        for action in ("edit", "forget", "unpin"):
            yield "POST", "/v1/graph/corrections", params, {"fact_id": ids["fact"], "action": action, "text": "bob was here"}
        yield "POST", f"/v1/graph/corrections/{ids['run']}/undo", params, None
        yield "GET", "/v1/graph/dream/runs", params, None
        yield "POST", "/v1/graph/dream/undo", params, {}
        yield "POST", "/v1/graph/dream/undo", params, {"run_id": ids["run"]}  # a correction's: not a dream
        yield "POST", "/v1/chat", params, {"message": "what does alice like?", "stream": False, **params}


def test_bobs_key_never_reaches_alice_through_the_web_routes(db_path: Path) -> None:
    seed(db_path, "alice")
    seed(db_path, "bob")
    ids = alice_ids(db_path)
    with SQLiteStore(str(db_path)) as store:
        _, bob = create_key(store, user_id="bob")
    before = rows(db_path, "alice")
    secrets = [ids["node"], ids["fact"], ids["run"], SECRET]
    llm = ScriptedLLM(["Sure."] * 4)
    with TestClient(create_app(str(db_path), mcp=False, llm=llm), base_url="http://127.0.0.1:8765") as c:
        for method, path, params, body in attempts(ids):
            res = c.request(method, path, params=params, json=body, headers={"Authorization": f"Bearer {bob}"})
            assert res.status_code < 500, (method, path, res.text)
            if params or path.startswith(("/v1/graph/nodes", "/v1/graph/facts", "/v1/graph/corrections/")) or (
                    body and "fact_id" in body):
                assert res.status_code == 404, (method, path, params, res.text)  # as if alice did not exist
            sent = json.dumps([path, params, body])
            assert not [s for s in secrets if s in res.text and s not in sent], (method, path, res.text)
            assert rows(db_path, "alice") == before, f"{method} {path} {params} changed alice's memory"
    assert len(llm.requests) == 1  # bob's own turn (naming alice is refused before any model call)
    assert SECRET not in json.dumps(llm.requests)  # which recalled bob's memory only
