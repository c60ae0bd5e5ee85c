from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.helpers import snapshot, triplet
from trulymem import Conflict, InvalidInput, TrulyMem
from trulymem.demo import run_demo


def export(mem: TrulyMem, **kw: bool) -> str:
    buf = io.StringIO()
    mem.export_jsonl(buf, **kw)
    return buf.getvalue()


@pytest.fixture
def rich_mem(mem: TrulyMem) -> TrulyMem:
    run_demo(mem)
    mem.commit([triplet("user", "likes", "rock", metadata={"k": [1, "二"]}, speculation=True, confidence=0.4,
                        type="preference", valid_at="2025-01-01T00:00:00Z")], turn_id="t9", message_ids=["m1"])
    mem.with_scope(user_id="bob", agent_id="ag").commit([triplet("bob", "likes", "jazz")])
    return mem


def test_export_import_round_trip_is_exact(rich_mem: TrulyMem, tmp_path: Path) -> None:
    dump = export(rich_mem, all_users=True)
    fresh = TrulyMem(tmp_path / "copy.db", user_id="alice")
    with pytest.raises(InvalidInput, match="needs all_users"):  # the dump holds bob's memories too
        fresh.import_jsonl(dump.splitlines())
    counts = fresh.import_jsonl(dump.splitlines(), all_users=True)
    assert counts["facts"] == sum(1 for line in dump.splitlines() if '"record": "fact"' in line)
    assert export(fresh, all_users=True) == dump
    # the imported graph works: recall, history and superseded links survived
    assert "为虎作伥" in fresh.recall("idiom_chain_current").text
    versions = fresh.history("idiom_chain_current", "content")
    assert versions[0].superseded_by == versions[1].id
    # importing again is a no-op, not a duplicate
    again = fresh.import_jsonl(dump.splitlines(), all_users=True)
    assert again["facts"] == 0 and again["skipped"] > 0
    assert export(fresh, all_users=True) == dump


def test_export_one_user_only(rich_mem: TrulyMem) -> None:
    rows = [json.loads(line) for line in export(rich_mem).splitlines()]
    assert {r["user_id"] for r in rows} == {"alice"}


def test_import_refuses_rows_trulymem_could_not_have_written(rich_mem: TrulyMem, tmp_path: Path) -> None:
    rows = [json.loads(line) for line in export(rich_mem, all_users=True).splitlines()]
    target = TrulyMem(tmp_path / "t.db", user_id="alice")
    target.import_jsonl([json.dumps(r) for r in rows], all_users=True)
    before = snapshot(target)
    alice_node = next(r for r in rows if r["record"] == "node" and r["user_id"] == "alice")
    fact = next(r for r in rows if r["record"] == "fact" and r["user_id"] == "bob")
    forged = {**fact, "id": "f" * 32, "subject_id": alice_node["id"]}
    bad_key = {**alice_node, "id": "a" * 32, "name": "Zed", "key": "Zed"}
    twin = {**alice_node, "id": "b" * 32}
    cases = [
        ([forged], "another user"),
        ([bad_key], "does not match"),
        ([{"record": "user", "user_id": "", "created_at": "2026-01-01T00:00:00"}], "user_id"),
        ([{"record": "user", "user_id": "x", "created_at": "whenever"}], "user"),
        ([{**fact, "id": "c" * 32, "object_id": "nowhere"}], "neither in the file"),
    ]
    cases += [
        ([{**fact, "id": "d" * 32, "superseded_by": "e" * 32}], "superseded by"),
        ([{**fact, "id": "d" * 32}], "repeats the valid fact"),
        ([{**fact, "id": "d" * 32, "mention_count": -5}], "at least 1"),
        ([{**fact, "id": ""}], "id"),
        ([{**alice_node, "id": "9" * 32, "name": "x" * 5000, "key": "x" * 5000}], "visible characters"),
        ([{**fact, "id": "d" * 32, "agent_id": "a2"}], "namespace"),
    ]
    for bad, needle in cases:
        with pytest.raises(InvalidInput, match=needle):
            target.import_jsonl([json.dumps(r) for r in bad], all_users=True)
    with pytest.raises(Conflict, match="already has a node"):
        target.import_jsonl([json.dumps(twin)], all_users=True)
    assert snapshot(target) == before


def test_bad_import_changes_nothing(rich_mem: TrulyMem, tmp_path: Path) -> None:
    dump = export(rich_mem, all_users=True).splitlines()
    target = TrulyMem(tmp_path / "t.db", user_id="alice")
    target.commit([triplet("x", "y", "z")])
    before = snapshot(target)
    with pytest.raises(InvalidInput, match="line 3"):
        target.import_jsonl(dump[:2] + ["{not json"] + dump[2:], all_users=True)
    with pytest.raises(InvalidInput):
        target.import_jsonl(['{"record": "spaceship"}'])
    with pytest.raises(InvalidInput, match="row 2"):
        target.import_jsonl([dump[0], '{"record": "fact", "id": "x", "user_id": "alice"}'])
    assert snapshot(target) == before
    changed = [json.loads(line) for line in dump]
    fact = next(r for r in changed if r["record"] == "fact")
    target.import_jsonl(dump, all_users=True)
    before = snapshot(target)
    fact["relation"] = "tampered"
    with pytest.raises(Conflict):
        target.import_jsonl([json.dumps(r) for r in changed], all_users=True)
    assert snapshot(target) == before
