"""``import_jsonl`` writes in batches of one record type (``record_batches``); what the
row-at-a-time import decided row by row still holds inside a batch and across batches:
a row repeated in the file is skipped when identical and a ``Conflict`` when not, and two
nodes of one name in one namespace are refused whether the other is stored or earlier in
the file. Every refusal changes nothing. The sizes are ``bench/bench_import.py``'s."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import snapshot
from trulymem import Conflict, TrulyMem
from trulymem.store.sql import IMPORT_BATCH

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from bench_import import USER, export_lines  # noqa: E402


def rows(n: int) -> list[dict[str, object]]:
    return [json.loads(line) for line in export_lines(n)]


def normal(lines: list[str]) -> list[str]:
    return sorted(json.dumps(json.loads(line), sort_keys=True) for line in lines)


def test_an_import_over_several_batches_is_whole(db_path: Path) -> None:
    n = IMPORT_BATCH + IMPORT_BATCH // 2  # nodes and facts each span two batches
    lines = [json.dumps(r) for r in rows(n)]
    with TrulyMem(str(db_path), user_id=USER, embedder=None) as mem:
        counts = mem.import_jsonl(lines)
        assert (counts["nodes"], counts["facts"], counts["skipped"]) == (n + 201, n, 0)
        assert normal(snapshot(mem)) == normal(lines)  # every row as in the file: supersession links too
        again = mem.import_jsonl(lines)  # identical rows: all skipped, nothing written
        assert (again["nodes"], again["facts"], again["skipped"]) == (0, 0, len(lines))


def test_repeats_and_twins_inside_the_file(db_path: Path) -> None:
    good = rows(5)
    user, nodes, facts = good[0], [r for r in good if r["record"] == "node"], [r for r in good if r["record"] == "fact"]
    with TrulyMem(str(db_path), user_id=USER, embedder=None) as mem:
        before = snapshot(mem)
        changed = {**nodes[-1], "summary": "another text"}
        with pytest.raises(Conflict, match="different content"):
            mem.import_jsonl([json.dumps(r) for r in [user, *nodes, changed]])
        twin = {**nodes[-1], "id": "f" * 32}
        with pytest.raises(Conflict, match="already has a node"):
            mem.import_jsonl([json.dumps(r) for r in [user, *nodes, twin]])
        with pytest.raises(Conflict, match="different content"):
            mem.import_jsonl([json.dumps(r) for r in [user, *nodes, *facts, {**facts[0], "confidence": 0.5}]])
        assert snapshot(mem) == before
        # the same node twice, identical: stored once
        counts = mem.import_jsonl([json.dumps(r) for r in [user, *nodes, nodes[-1], *facts]])
        assert counts["nodes"] == len(nodes) and counts["skipped"] == 1
