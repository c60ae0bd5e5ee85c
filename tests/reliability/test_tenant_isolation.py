"""Tenant isolation: with bob's API key (made as the README says, ``trulymem keys create
--user bob``), every route of a real ``trulymem serve`` — and every tool over ``/mcp`` — is
tried against alice's data (the web app's ``/v1/graph…`` routes and ``/v1/chat`` too): naming
alice, guessing her memory, task, node, fact and run ids, and filters with
every operator (``eq ne gt gte lt lte in nin contains icontains`` under ``AND``/``OR``/``NOT``).
Nothing of alice's may appear in an answer and nothing of hers may change; the library's
scope is held to the same for every operator. Prints the counts.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.helpers import Served
from tests.web.test_web_tenants import attempts as web_attempts
from trulymem import TrulyMem
from trulymem.web.edits import correct
from trulymem.web.graph import graph_view

pytestmark = pytest.mark.reliability
pytest.importorskip("fastapi")

OPS = ["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains"]
SECRET = "alice-secret"
DOCS = {"/health", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json"}


def _alice_rows(db: Path) -> list[str]:
    with TrulyMem(db, user_id="alice") as mem:
        buf = io.StringIO()
        mem.export_jsonl(buf)
    return buf.getvalue().splitlines()


def _seed(db: Path) -> tuple[str, set[str]]:
    """Alice's memories, triplets (two namespaces), task, persona and episodes; bob's own few.
    Returns alice's memory id and every id of hers."""
    with TrulyMem(db, user_id="alice", embedder="hashing") as mem:
        mid = mem.call("add_memory", {"text": f"{SECRET} plan: launch on friday",
                                      "metadata": {"type": "plan", "k": 5}}).result["results"][0]["id"]  # type: ignore[index]
        mem.call("add_memory", {"text": f"{SECRET} pin 4242", "agent_id": "agent-a", "run_id": "run-a"})
        mem.commit([{"subject": "user", "relation": "likes", "object": f"{SECRET} tea"}])
        mem.with_scope(app_id="app-a").commit([{"subject": "user", "relation": "works_on", "object": f"{SECRET} app"}])
        mem.task_create("Task_alice_secret", f"{SECRET} task")
        mem.persona_set({"role": f"{SECRET} persona"})
        mem.call("memory_ingest", {"messages": [{"speaker": "alice", "text": f"{SECRET} said this"}]})
    with TrulyMem(db, user_id="bob", embedder="hashing") as bob:
        bob.call("add_memory", {"text": "bob likes chess"})
        bob.task_create("Task_bob", "bob's task")
    ids = {json.loads(row)["id"] for row in _alice_rows(db) if "id" in json.loads(row)}
    return str(mid), ids


def _web_ids(db: Path) -> dict[str, str]:
    """Ids of alice's that the web routes take: a node, a fact and a correction run."""
    with TrulyMem(db, user_id="alice") as mem:
        view = graph_view(mem.store, mem.scope)
        fact = next(e for e in view["edges"] if e["relation"] == "likes")
        node = next(n for n in view["nodes"] if n["name"] == f"{SECRET} tea")
        run = correct(mem.context(), fact["id"], "pin")["run_id"]
    return {"node": node["id"], "fact": fact["id"], "run": run}


def _key(db: Path, user: str) -> str:
    out = subprocess.run([sys.executable, "-m", "trulymem", "keys", "create", "--db", str(db), "--user", user, "--json"],
                         capture_output=True, text=True, check=True)
    return str(json.loads(out.stdout)["token"])


def filters() -> Iterator[dict[str, Any]]:
    """Filters that would reach alice's memories if the key's user were not enforced: every
    operator on ``user_id`` and on the memory text, alone and under ``AND``/``OR``/``NOT``."""
    for op in OPS:
        who = ["alice"] if op in ("in", "nin") else ("ali" if "contains" in op else ("a" if op[0] in "gl" else "alice"))
        what = [f"{SECRET} pin 4242"] if op in ("in", "nin") else (
            SECRET.upper() if op == "icontains" else (SECRET if op == "contains" else ("" if op[0] in "gl" else "x")))
        yield {"user_id": {op: who}}
        yield {"memory": {op: what}}
        yield {"OR": [{"user_id": "bob"}, {"memory": {op: what}}]}
        yield {"NOT": {"memory": {op: what}}}
        yield {"AND": [{"user_id": {op: who}}, {"memory": {op: what}}]}
    yield {"NOT": {"user_id": "bob"}}
    yield {"OR": [{"user_id": "alice"}, {"user_id": "bob"}]}
    yield {"agent_id": "agent-a"}
    yield {"app_id": "app-a"}
    yield {"run_id": "run-a"}
    yield {"AND": [{"user_id": "bob"}, {"NOT": {"agent_id": "nobody"}}]}


def attempts(mid: str) -> Iterator[tuple[str, str, dict[str, Any], Any]]:
    """``(method, path, query, body)``: every route, aimed at alice."""
    alice = {"user_id": "alice"}
    for flt in filters():
        yield "GET", "/v1/memories", {"filters": json.dumps(flt)}, None
        yield "POST", "/v1/memories/list", {}, {"filters": flt}
        yield "POST", "/v1/memories/search", {}, {"query": SECRET, "filters": flt}
        yield "POST", "/v1/tools/delete_all_memories", {}, {"filters": flt}
    for route in (("GET", f"/v1/memories/{mid}"), ("DELETE", f"/v1/memories/{mid}"),
                  ("GET", f"/v1/memories/{mid}/history")):
        yield *route, {}, None
        yield *route, alice, None
    for body in ({"text": "hacked"}, {"text": "hacked", **alice}, {"metadata": {"pinned": True}}):
        yield "PATCH", f"/v1/memories/{mid}", {}, body
    yield "PATCH", f"/v1/memories/{mid}", alice, {"text": "hacked"}
    yield "GET", "/v1/memories", alice, None
    yield "DELETE", "/v1/memories", alice, None
    yield "POST", "/v1/memories", {}, {"text": "planted", **alice}
    yield "POST", "/v1/memories/search", {}, {"query": SECRET, **alice}
    yield "POST", "/v1/memories/list", {}, alice
    for path, body in (("/v1/triplets", {"triplets": [{"subject": "user", "relation": "likes", "object": "planted"}]}),
                       ("/v1/recall", {"query_intent": f"{SECRET},TaskNode,persona", "depth": 3}),
                       ("/v1/recall", {"query_intent": "tea", "seed_entities": [f"{SECRET} tea"]}),
                       ("/v1/purge", {"criteria": {"object_contains": SECRET}}),
                       ("/v1/purge", {"criteria": {"object_contains": SECRET}, "mode": "hard", "confirm": True}),
                       ("/v1/tasks", {"task_id": "Task_alice_secret", "description": "planted"}),
                       ("/v1/ingest", {"messages": [{"speaker": "bob", "text": "planted"}]}),
                       ("/v1/dream", {"mode": "auto"}), ("/v1/dream", {"mode": "dry_run"}),
                       ("/v1/dream", {"mode": "apply", "choices": {}})):
        yield "POST", path, {}, body
        yield "POST", path, alice, body
    yield "PATCH", "/v1/persona", alice, {"attributes": {"role": "hacked"}}
    yield "PATCH", "/v1/persona", {}, {"attributes": {"role": "bob's"}}
    for path in ("/v1/tasks", "/v1/persona", "/v1/stats", "/v1/chat"):  # GET /v1/chat: is a chat model set up
        yield "GET", path, {}, None
        yield "GET", path, alice, None
    yield "PUT", "/v1/tasks/Task_alice_secret/state", {}, {"state": "cancelled"}
    yield "PUT", "/v1/tasks/Task_alice_secret/state", alice, {"state": "cancelled"}
    for name in ("get_memory", "update_memory", "delete_memory", "memory_history"):
        yield "POST", f"/v1/tools/{name}", {}, {"memory_id": mid, **({"text": "hacked"} if name == "update_memory" else {})}
        yield "POST", f"/v1/tools/{name}", alice, {"memory_id": mid}
    for name in ("memory_stats", "persona_get", "task_list", "get_memories", "memory_recall"):
        yield "POST", f"/v1/tools/{name}", alice, {"query_intent": SECRET} if name == "memory_recall" else {}


def leaks(text: str, sent: str, ids: set[str]) -> list[str]:
    """Alice's ids, or her texts in full, in an answer that did not carry them in its request."""
    found = [i for i in ids if i in text and i not in sent]
    return found + [t for t in (f"{SECRET} plan", "pin 4242", f"{SECRET} tea", f"{SECRET} app", f"{SECRET} task",
                                f"{SECRET} persona", f"{SECRET} said") if t in text and t not in sent]


def _template(path: str, mid: str, web: dict[str, str]) -> str:
    for key, name in (("node", "{node_id}"), ("fact", "{fact_id}"), ("run", "{run_id}")):
        path = path.replace(web[key], name)
    return path.replace(mid, "{memory_id}").replace("Task_alice_secret", "{task_id}").replace(
        "/v1/tools/", "/v1/tools/{name}#").split("#")[0]


def test_bobs_key_never_reaches_alice(tmp_path: Path) -> None:
    db = tmp_path / "tenants.db"
    mid, ids = _seed(db)
    web = _web_ids(db)
    ids |= set(web.values())
    bob = _key(db, "bob")
    _key(db, "alice")
    before = _alice_rows(db)
    s = Served(str(db))
    statuses: Counter[int] = Counter()
    routes: Counter[tuple[str, str]] = Counter()
    found: list[str] = []
    try:
        with httpx.Client(base_url=s.url, timeout=60, headers={"Authorization": f"Bearer {bob}"}) as c:
            served = {(m.upper(), p) for p, ops in c.get("/openapi.json").json()["paths"].items() for m in ops} - {
                (m, p) for m in ("GET", "POST") for p in DOCS}
            for method, path, query, body in [*attempts(mid), *web_attempts(web)]:
                r = c.request(method, path, params=query, json=body)
                statuses[r.status_code] += 1
                routes[(method, _template(path, mid, web))] += 1
                # 501: /v1/chat on this server without a chat model, a deliberate answer
                assert r.status_code < 500 or (path, r.status_code) == ("/v1/chat", 501), (method, path, r.text)
                found += [f"{method} {path} {query}: {x}" for x in leaks(r.text, json.dumps([path, query, body]), ids)]
                assert _alice_rows(db) == before, f"{method} {path} {query} {body} changed alice's memories"
            mcp_calls = anyio.run(_over_mcp, s.url, bob, mid, ids, found)
    finally:
        s.stop()
    assert _alice_rows(db) == before
    print(f"\nbob's key: {sum(routes.values())} requests over {len(routes)} routes "
          f"({', '.join(f'{k} x{v}' for k, v in sorted(statuses.items()))}), {len(list(filters()))} filters x 4 "
          f"filtering routes, {mcp_calls} MCP calls; {len(found)} leaks, 0 changes to alice's "
          f"{len(before)} rows")
    assert found == []
    assert served <= set(routes), f"routes never tried: {sorted(served - set(routes))}"


async def _over_mcp(url: str, token: str, mid: str, ids: set[str], found: list[str]) -> int:
    """Every MCP tool with bob's key, aimed at alice the same ways."""
    from tests.test_mcp import http_session

    calls = 0
    async with http_session(url, token) as session:
        tools = [t.name for t in (await session.list_tools()).tools]
        for name in tools:
            tries: list[dict[str, Any]] = [{"user_id": "alice"}, {"memory_id": mid}, {"memory_id": mid, "user_id": "alice"},
                                           {"task_id": "Task_alice_secret", "state": "paused"}, {"query_intent": SECRET},
                                           {"criteria": {"object_contains": SECRET}}]
            tries += [{"filters": flt} for flt in filters()] if name in ("get_memories", "delete_all_memories") else []
            tries += [{"query": SECRET, "filters": flt} for flt in filters()] if name == "search_memories" else []
            for args in tries:
                res = await session.call_tool(name, args)
                calls += 1
                text = res.content[0].text if res.content else ""  # type: ignore[union-attr]
                found += [f"mcp {name} {args}: {x}" for x in leaks(text, json.dumps(args), ids)]
    return calls


@pytest.mark.parametrize("tool", ["get_memories", "search_memories", "delete_all_memories"])
def test_a_users_scope_never_reaches_another_user_for_any_operator(tmp_path: Path, tool: str) -> None:
    """The library: a memory bound to bob, with filters that do not name alice outright (naming
    a user as an argument or an equality is reading as that user: the key is the boundary)."""
    db = tmp_path / "tenants.db"
    _, ids = _seed(db)
    before = _alice_rows(db)
    tried = 0
    with TrulyMem(db, user_id="bob", embedder="hashing") as bob:
        for flt in filters():
            if "alice" in json.dumps(flt) and not any(op in json.dumps(flt) for op in OPS if op != "eq"):
                continue  # {"user_id": "alice"}: an explicit choice of user
            args = {"filters": flt, **({"query": SECRET} if tool == "search_memories" else {})}
            res = bob.call(tool, args)
            tried += 1
            assert leaks(json.dumps(res.to_dict()), json.dumps(args), ids) == [], (flt, res.to_dict())
        purge = bob.call("memory_purge", {"criteria": {"object_contains": SECRET}, "mode": "hard", "confirm": True})
        assert purge.ok and purge.result["matched"] == []  # type: ignore[index]
    assert _alice_rows(db) == before
    print(f"\nlibrary, bob's scope, {tool}: {tried} filters, 0 leaks, alice unchanged")
