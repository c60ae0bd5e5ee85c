"""Bad input is one typed ``InvalidInput`` naming the field, on every path, and changes nothing:
the library's ``call()``, ``trulymem.Memory`` and the HTTP server (issue 12, item 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Served, snapshot, triplet
from trulymem import InvalidInput, Memory, TrulyMem

LONG = "lorem ipsum " * 400  # 4,800 characters: over the 4,000 of one memory


@pytest.fixture
def m(db_path: Path) -> Any:
    mem = Memory(str(db_path), embedder="hashing")
    yield mem
    mem.close()


def _added(mem: TrulyMem) -> str:
    res = mem.call("add_memory", {"text": "tea"})
    assert res.ok, res.error
    return str(res.result["results"][0]["id"])  # type: ignore[index]


@pytest.mark.parametrize(("tool", "args", "field"), [
    ("add_memory", {"text": "tea", "metadata": {"type": "user preference"}}, "metadata.type"),
    ("add_memory", {"text": "tea", "metadata": {"type": "t" * 513}}, "metadata.type"),
    ("add_memory", {"text": "tea", "metadata": {"type": 5}}, "metadata.type"),
    ("add_memory", {"messages": [{"role": "user", "content": LONG}]}, "messages.0.content"),
    ("add_memory", {"messages": [{"role": "user", "content": "ok"}, {"role": ["x"], "content": "y"}]},
     "messages.1.role"),
    ("add_memory", {"text": LONG}, "text"),
    ("update_memory", {"metadata": {"type": "user preference"}}, "metadata.type"),
    ("update_memory", {"metadata": {"type": "t" * 513}}, "metadata.type"),
    ("update_memory", {"metadata": {"big": "x" * 20_000}}, "metadata"),
    ("update_memory", {"text": LONG}, "text"),
    ("memory_commit", {"triplets": [triplet("user", "likes", "tea", type="t" * 513)]}, "triplets.0.type"),
])
def test_call_returns_one_typed_error(mem: TrulyMem, tool: str, args: dict[str, Any], field: str) -> None:
    mid = _added(mem)
    if tool == "update_memory":
        args = {**args, "memory_id": mid}
    before = snapshot(mem)
    res = mem.call(tool, args)
    assert not res.ok and res.error is not None
    assert res.error["type"] == "invalid_input" and res.error["field"] == field, res.error
    assert "validation error" not in res.error["message"] and "lorem" not in res.error["message"]
    assert snapshot(mem) == before


def test_the_merged_metadata_of_an_update_keeps_the_limit(mem: TrulyMem) -> None:
    res = mem.call("add_memory", {"text": "tea", "metadata": {"a": "x" * 9_000}})
    mid = res.result["results"][0]["id"]  # type: ignore[index]
    before = snapshot(mem)
    bad = mem.call("update_memory", {"memory_id": mid, "metadata": {"b": "y" * 9_000}})
    assert not bad.ok and bad.error["field"] == "metadata"  # type: ignore[index]
    assert snapshot(mem) == before


def test_a_stored_type_no_longer_breaks_text_updates(mem: TrulyMem) -> None:
    """The old metadata-only path stored types memory_commit refuses; then a text update raised."""
    mid = _added(mem)
    assert mem.call("update_memory", {"memory_id": mid, "metadata": {"type": "preference"}}).ok
    assert mem.call("update_memory", {"memory_id": mid, "text": "green tea"}).ok


def test_memory_api_raises_invalid_input(m: Memory) -> None:
    mid = m.add("tea", user_id="alice", infer=False)["results"][0]["id"]
    cases: list[tuple[Any, str]] = [
        (lambda: m.add("x" * 10_000_000, user_id="alice", infer=False), "messages"),
        (lambda: m.add([{"content": "x" * 5000}], user_id="alice", infer=False), "messages.0.content"),
        (lambda: m.add("tea", user_id="alice", metadata={"type": "user preference"}, infer=False), "metadata.type"),
        (lambda: m.add("tea", user_id="alice", metadata={"when": object()}, infer=False), "metadata"),
        (lambda: m.add("tea \ud800", user_id="alice", infer=False), "messages"),
        (lambda: m.update(mid, metadata={"type": "t" * 513}), "metadata.type"),
        (lambda: m.update(mid, text="y" * 5000), "text"),
        (lambda: m.get({"id": mid}), "memory_id"),  # type: ignore[arg-type]
        (lambda: m.search("tea", user_id="alice", top_k="5"), "top_k"),  # type: ignore[arg-type]
        (lambda: m.search("tea", user_id="alice", threshold="high"), "threshold"),  # type: ignore[arg-type]
        (lambda: m.search("tea " * 2000, user_id="alice"), "query"),
        (lambda: m.get_all(user_id="alice", page="2"), "page"),  # type: ignore[arg-type]
        (lambda: m.get_all(user_id="alice", filters={1: "x"}), "filters"),
    ]
    before = m.get_all(user_id="alice")
    for call, field in cases:
        with pytest.raises(InvalidInput) as exc:
            call()
        assert exc.value.field == field, (field, exc.value)
        assert "xxxxxxxx" not in str(exc.value) and "validation error" not in str(exc.value)
    assert m.get_all(user_id="alice") == before


def test_http_answers_422_and_logs_no_memory_text(db_path: Path) -> None:
    secret = "the launch code is 0000"
    s = Served(str(db_path))
    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            mid = c.post("/v1/memories", json={"user_id": "alice", "text": "tea"}).json()["results"][0]["id"]
            for method, path, body, field in (
                ("POST", "/v1/memories", {"user_id": "alice", "text": secret, "metadata": {"type": "user preference"}},
                 "metadata.type"),
                ("POST", "/v1/memories", {"user_id": "alice", "messages": [{"role": "user", "content": secret * 200}]},
                 "messages.0.content"),
                ("PATCH", f"/v1/memories/{mid}", {"user_id": "alice", "metadata": {"type": "user preference"}},
                 "metadata.type"),
                ("PATCH", f"/v1/memories/{mid}", {"user_id": "alice", "metadata": {"type": "t" * 513}}, "metadata.type"),
            ):
                r = c.request(method, path, json=body)
                assert r.status_code == 422, r.text
                assert r.json()["error"]["field"] == field and secret not in r.text
            assert c.get("/v1/memories", params={"user_id": "alice"}).json()["total"] == 1
    finally:
        s.proc.terminate()
        s.proc.wait(timeout=10)
        s.log.seek(0)
        log = s.log.read()  # read before stop() closes it
        s.stop()
    assert secret not in log and "Traceback" not in log


def test_filters_nested_thousands_deep_are_one_clear_error_before_any_read() -> None:
    """Whose memories a filter touches is read before it is validated: a pathological
    nesting is the same InvalidInput, never a RecursionError (found by the tool fuzzer)."""
    from trulymem import InvalidInput
    from trulymem.filters import names_other_user

    spec: dict[str, object] = {"user_id": "bob"}
    for _ in range(3000):
        spec = {"AND": [spec]}
    with pytest.raises(InvalidInput, match="nest deeper"):
        names_other_user(spec, "alice")
    assert names_other_user({"AND": [{"OR": [{"NOT": {"user_id": "bob"}}]}]}, "alice")  # a real nesting still reads
