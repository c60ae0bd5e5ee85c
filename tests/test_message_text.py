"""Messages shown by their words and time, never by their id, wherever a fact touching one
is shown: mem0-style memories (list, search, get), memory_purge's matches, the CLI's
``history`` and the web app's graph and node payloads over a real ``trulymem serve``.
Real SQLite file; re-run on PostgreSQL by tests/contract/test_message_text_pg.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Served
from trulymem import TrulyMem

WORDS = "“The kiln reached cone six at last” (2024-02-11 18:05)"
ID = "pottery:7"


def _seed(db: str) -> None:
    with TrulyMem(db, user_id="noor") as mem:
        res = mem.call("memory_ingest", {"messages": [
            {"speaker": "Noor", "text": "The kiln reached cone six at last", "id": ID,
             "timestamp": "2024-02-11T18:05:00Z"},
            {"speaker": "Ravi", "text": "Congrats, how did the glaze turn out?", "id": "pottery:8",
             "timestamp": "2024-02-11T18:06:00Z"}]})
        assert res.ok, res.error
        # a model links a plain fact to the message by its id: that fact is a memory
        res = mem.call("memory_commit", {"triplets": [{"subject": "Noor", "relation": "celebrated_in", "object": ID}]})
        assert res.ok, res.error


def _ok(res: Any) -> dict[str, Any]:
    assert res.ok, res.error
    out: dict[str, Any] = res.result
    return out


def test_memories_search_get_and_purge_show_the_words(db_path: Path) -> None:
    _seed(str(db_path))
    with TrulyMem(db_path, user_id="noor") as mem:
        listed = _ok(mem.call("get_memories", {}))["results"]
        assert [m["memory"] for m in listed] == [f"Noor celebrated_in {WORDS}"]
        assert listed[0]["object"] == ID  # the stored name stays, for filters and edits
        found = _ok(mem.call("search_memories", {"query": "Noor celebrated"}))["results"]
        assert [m["memory"] for m in found] == [f"Noor celebrated_in {WORDS}"]
        assert _ok(mem.call("get_memory", {"memory_id": listed[0]["id"]}))["memory"] == f"Noor celebrated_in {WORDS}"
        matched = _ok(mem.call("memory_purge", {"criteria": {"subject": "Noor"}, "dry_run": True}))["matched"]
        assert sorted(m["text"] for m in matched) == sorted([f"Noor said {WORDS}", f"Noor celebrated_in {WORDS}"])
        assert not any(ID in m["text"] for m in matched)


def test_cli_history_shows_the_words(db_path: Path) -> None:
    _seed(str(db_path))
    out = subprocess.run([sys.executable, "-m", "trulymem", "history", "Noor", "--db", str(db_path), "--user", "noor"],
                         capture_output=True, text=True, check=True).stdout
    assert f"Noor said {WORDS}" in out and f"Noor celebrated_in {WORDS}" in out, out
    assert ID not in out


def test_web_graph_and_node_payloads_show_the_words(db_path: Path) -> None:
    pytest.importorskip("fastapi")
    _seed(str(db_path))
    s = Served(str(db_path), "--user", "noor")
    try:
        with httpx.Client(base_url=s.url, timeout=30) as c:
            graph = c.get("/v1/graph").json()
            episode = next(n for n in graph["nodes"] if n["name"] == ID)
            assert episode["label"] == WORDS
            assert "label" not in next(n for n in graph["nodes"] if n["name"] == "Noor")  # names are their own label
            noor = next(n for n in graph["nodes"] if n["name"] == "Noor")
            view = c.get(f"/v1/graph/nodes/{noor['id']}").json()
            texts = {f["text"] for f in view["facts"]}
            assert {f"Noor said {WORDS}", f"Noor celebrated_in {WORDS}"} <= texts
            assert {f["object_label"] for f in view["facts"]} == {WORDS}
            # provenance names the message a fact came from by its words and time
            said = next(f for f in c.get(f"/v1/graph/nodes/{episode['id']}").json()["facts"]
                        if f["relation"] == "in_session")
            assert [m["text"] for m in said["provenance"]["messages"]] == [WORDS]
            hits = c.post("/v1/graph/search", json={"query_intent": "kiln cone"}).json()["facts"]
            assert any(f["text"] == f"Noor said {WORDS}" for f in hits), [f["text"] for f in hits]
    finally:
        s.stop()
