"""``POST /v1/dream`` apply against a real ``trulymem serve`` on a loopback port: it applies
exactly the plan the dry run showed (the dream's own embedder, not recall's), a person's
choices per item, and refuses a stale plan or a bad choice without changing anything."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.dream_seed import CONFLICT, MERGES, REVIEWS, STALE, seed_dream
from tests.helpers import Served

pytest.importorskip("fastapi")
ALICE = {"user_id": "alice"}


@pytest.fixture
def client(db_path: Path) -> Iterator[httpx.Client]:
    seed_dream(db_path, "alice")
    srv = Served(str(db_path), "--no-mcp")
    try:
        with httpx.Client(base_url=srv.url, timeout=60) as c:
            yield c
    finally:
        srv.stop()


def ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


def review(c: httpx.Client) -> dict[str, Any]:
    out: dict[str, Any] = ok(c.post("/v1/dream", json={**ALICE, "mode": "dry_run"}))["analysis"]
    return out


def memories(c: httpx.Client) -> dict[str, str]:
    got = ok(c.get("/v1/memories", params={**ALICE, "page_size": 100}))
    return {m["id"]: m["memory"] for m in got["results"]}


def runs(c: httpx.Client) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = ok(c.get("/v1/graph/dream/runs", params=ALICE))
    return out


def apply(c: httpx.Client, body: dict[str, Any]) -> httpx.Response:
    return c.post("/v1/dream", json={**ALICE, "mode": "apply", **body})


def shown(a: dict[str, Any]) -> dict[str, Any]:
    """The plan's items by their texts: merges, pairs to review, the conflict, prunes."""
    return {"merges": {tuple(m["texts"]): m for m in a["merges"]},
            "review": {(r["a_text"], r["b_text"]): r for r in a["review"]},
            "conflicts": {(x["a_text"], x["b_text"]): x for x in a["conflicts"]},
            "prunes": {p["text"]: p for p in a["prunes"]}}


def test_apply_makes_exactly_the_reviewed_plan_with_the_choices(client: httpx.Client) -> None:
    a = review(client)
    s = shown(a)
    assert set(s["merges"]) == set(MERGES) and set(s["review"]) == set(REVIEWS)
    assert set(s["conflicts"]) == {CONFLICT} and set(s["prunes"]) == set(STALE)
    standup, linter = (s["merges"][p] for p in MERGES)
    postgres, meetings = (s["review"][p] for p in REVIEWS)
    deploy, (login, ci) = s["conflicts"][CONFLICT], (s["prunes"][t] for t in STALE)
    before = memories(client)

    # "Keep meetings brief" is alike only to the dream's sentence encoder: an apply that
    # analysed with recall's hashing embedder had no such pair (422) and another plan (409).
    done = ok(apply(client, {"plan_id": a["plan_id"], "choices": {f"{deploy['a']}:{deploy['b']}": "B"},
                             "review": {f"{postgres['a']}:{postgres['b']}": "merge",
                                        f"{meetings['b']}:{meetings['a']}": "keep"},
                             "skip_merges": [linter["ids"][0]], "skip_prunes": [ci["id"]]}))
    assert done["status"] == "applied" and done["analysis"]["plan_id"] == a["plan_id"]
    got = done["applied"]
    assert (got["merged"], got["reviewed"], got["resolved"], got["pruned"], got["skipped"]) == (2, 1, 1, 1, 2)
    assert got["kept"] == [sorted([meetings["a"], meetings["b"]])]
    assert done["output"].startswith("Dream complete — merged: 2, pruned: 1, conflicts resolved: 1, skipped: 2")
    # exactly what was shown and chosen, by id
    retired = {*standup["ids"], postgres["a"], postgres["b"], deploy["a"], login["id"]}
    assert set(got["retired"]) == retired
    after = memories(client)
    assert set(before) - set(after) == retired
    assert sorted(after[i] for i in set(after) - set(before)) == sorted([standup["merged"], postgres["merged"]])
    assert {*linter["ids"], meetings["a"], meetings["b"], ci["id"], deploy["b"]} <= set(after)

    again = shown(review(client))  # the pair kept apart is not asked again; what was skipped is
    assert set(again["review"]) == set() and set(again["conflicts"]) == set()
    assert set(again["merges"]) == {MERGES[1]} and set(again["prunes"]) == {STALE[1]}
    listed = runs(client)
    assert [r["run_id"] for r in listed] == [got["run_id"]]
    assert listed[0] | {"created_at": None} == {
        "run_id": got["run_id"], "created_at": None, "undone_at": None, "agent_id": None, "app_id": None,
        "state": "done", "auto": False, "merged": 2, "pruned": 1, "resolved": 1, "skipped": 2, "reviewed": 1,
        "kept": 1}

    undone = ok(client.post("/v1/graph/dream/undo", params=ALICE, json={"run_id": got["run_id"]}))
    assert undone["run_id"] == got["run_id"] and undone["undone_at"]
    assert memories(client) == before
    assert shown(review(client))["review"].keys() == set(REVIEWS)  # undone: the kept pair is asked again
    assert ok(client.post("/v1/graph/dream/undo", params=ALICE, json={"run_id": got["run_id"]}),
              409)["error"]["field"] == "run_id"


def test_a_stale_plan_is_refused_and_changes_nothing(client: httpx.Client) -> None:
    a = review(client)
    ok(client.post("/v1/memories", json={**ALICE, "text": "Standup is at 2:00 UTC", "metadata": {"type": "process"}}))
    before = memories(client)
    r = apply(client, {"plan_id": a["plan_id"]})
    err = ok(r, 409)["error"]
    assert err["field"] == "plan_id" and "review the dream again" in err["message"]
    assert memories(client) == before and runs(client) == []
    fresh = review(client)
    assert fresh["plan_id"] != a["plan_id"]
    assert ok(apply(client, {"plan_id": fresh["plan_id"]}))["applied"]["merged"] == 2  # reviewed again: applied


def test_bad_choices_are_refused_naming_the_field(client: httpx.Client) -> None:
    a = review(client)
    s = shown(a)
    deploy, postgres = s["conflicts"][CONFLICT], s["review"][REVIEWS[0]]
    conflict, pair = f"{deploy['a']}:{deploy['b']}", f"{postgres['a']}:{postgres['b']}"
    before = memories(client)
    for body, field in (({"choices": {"nope:nope": "A"}}, "choices.nope:nope"),
                        ({"choices": {conflict: "C"}}, f"choices.{conflict}"),
                        ({"choices": ["A"]}, "choices"),
                        ({"review": {pair: "maybe"}}, f"review.{pair}"),
                        ({"review": {"7": "merge"}}, "review.7"),
                        ({"choices": {"0": "A"}}, "choices.0"),  # numbers count from 1, as the report's
                        ({"choices": {f"{deploy['b']}:{deploy['a']}": "A"}},  # A is the plan's first: never reversed
                         f"choices.{deploy['b']}:{deploy['a']}"),
                        ({"review": {conflict: "keep"}}, f"review.{conflict}"),  # a conflict is not a pair to review
                        ({"skip_merges": ["not-an-id"]}, "skip_merges.not-an-id"),
                        ({"skip_prunes": "all"}, "skip_prunes"),
                        ({"skip_prunes": [deploy["a"]]}, f"skip_prunes.{deploy['a']}"),
                        ({"plan_id": 5}, "plan_id"),
                        ({"branch": ["main"]}, "branch"),
                        ({"app_id": ""}, "app_id")):
        r = apply(client, {"plan_id": a["plan_id"], **body})
        assert r.status_code == 422, (body, r.text)
        assert r.json()["error"]["field"] == field, (body, r.text)
    assert memories(client) == before and runs(client) == []


def test_the_user_may_be_named_in_the_query_as_on_every_route(client: httpx.Client) -> None:
    a = ok(client.post("/v1/dream", params=ALICE, json={"mode": "dry_run"}))["analysis"]
    assert a["plan_id"] == review(client)["plan_id"]
    r = client.post("/v1/dream", params={"user_id": "bob"}, json={**ALICE, "mode": "apply"})
    assert ok(r, 422)["error"]["field"] == "user_id"
    done = ok(client.post("/v1/dream", params=ALICE, json={"mode": "apply", "plan_id": a["plan_id"]}))
    assert done["applied"]["merged"] == 2 and done["applied"]["skipped"] == 3  # a conflict and two pairs left
