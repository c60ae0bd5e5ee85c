"""The LoCoMo harness: strict loading, and a recall floor on one conversation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trulymem import InvalidInput
from trulymem.bench.locomo import run_locomo
from trulymem.bench.locomo_data import dia_ids, load_locomo, parse_time
from trulymem.embed import HashingEmbedder

DEV = Path(__file__).parents[2] / "shared" / "bench" / "locomo" / "locomo-dev.json"


def test_evidence_ids_are_normalised() -> None:
    assert dia_ids("D8:6; D9:17") == ["D8:6", "D9:17"]
    assert dia_ids("D:11:26") == ["D11:26"]
    assert dia_ids("D30:05") == ["D30:5"]
    assert dia_ids("nonsense") == []
    assert parse_time("1:56 pm on 8 May, 2023").isoformat() == "2023-05-08T13:56:00+00:00"  # type: ignore[union-attr]
    assert parse_time("sometime") is None


def _write(tmp_path: Path, data: object) -> Path:
    p = tmp_path / "locomo.json"
    p.write_text(json.dumps(data))
    return p


GOOD = {"sample_id": "c1", "conversation": {
    "speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit."},
                  {"speaker": "B", "dia_id": "D1:2", "text": "Cute!", "blip_caption": "a photo of a dog"}]},
    "qa": [{"question": "What is the puppy called?", "answer": "Biscuit", "evidence": ["D1:1"], "category": 4}]}


@pytest.mark.parametrize(("data", "needle"), [
    ({"not": "a list"}, "the file must be list"),
    ([{"sample_id": "c1", "qa": []}], "conversation must be dict"),
    ([{**GOOD, "conversation": {"session_1": [{"speaker": "A", "dia_id": "D1:1"}]}}], "text must be str"),
    ([{**GOOD, "conversation": {"session_1": [{"speaker": "A", "dia_id": "D8:6; D9:17", "text": "x"}]}}],
     "is not one D<session>:<turn> id"),
    ([{**GOOD, "qa": [{"question": "q", "evidence": "D1:1", "category": 1}]}], "evidence must be list"),
    ([{**GOOD, "qa": [{"question": "q", "evidence": [], "category": "one"}]}], "category must be int"),
    ([{**GOOD, "conversation": {"speaker_a": "A"}}], "no session_N turns"),
])
def test_malformed_files_are_one_clear_error(tmp_path: Path, data: object, needle: str) -> None:
    with pytest.raises(InvalidInput, match=needle):
        load_locomo(_write(tmp_path, data))


def test_a_small_file_end_to_end(tmp_path: Path) -> None:
    convs = load_locomo(_write(tmp_path, [GOOD]))
    assert convs[0].turns[1].text.endswith("[shares a photo: a photo of a dog]")
    report = run_locomo(_write(tmp_path, [GOOD]), embedder=HashingEmbedder())
    assert report["questions"] == 1 and report["ingest"]["messages"] == 2
    for name, v in report["variants"].items():
        assert v["recall_at"][1] == 100.0, name
        assert v["recall_at_10_by_conversation"] == {"c1": 100.0}, name


@pytest.mark.skipif(not DEV.exists(), reason="needs ../shared/bench/locomo beside the project")
def test_recall_floor_on_one_conversation() -> None:
    """Pins today's quality on conv-26 (one of six): a retrieval regression fails here."""
    report = run_locomo(DEV, embedder=HashingEmbedder(), conversations=1,
                        only=("bm25", "bm25+graph", "hybrid+graph"))  # the ablations are the bench's job
    v = report["variants"]
    assert set(v) == {"bm25", "bm25+graph", "hybrid+graph"}
    assert report["questions"] >= 150
    # measured 77.1 / 77.1 / 77.1 / 89.8 with the hashing embedder; floors leave ~2 points
    assert v["bm25"]["recall_at"][10] >= 75.0
    assert v["bm25+graph"]["recall_at"][10] >= 75.0
    assert v["hybrid+graph"]["recall_at"][10] >= 75.0
    assert v["hybrid+graph"]["recall_at"][50] >= 87.5


def test_splits_and_dump(tmp_path: Path) -> None:
    from trulymem.bench.locomo_data import SPLITS, in_split

    two = [GOOD, {**GOOD, "sample_id": "conv-43"}]
    convs = load_locomo(_write(tmp_path, two))
    assert [c.id for c in in_split(convs, "heldout")] == ["conv-43"] and len(in_split(convs, "all")) == 2
    assert set(SPLITS["tune"] or ()).isdisjoint(SPLITS["heldout"] or ())
    with pytest.raises(InvalidInput, match="unknown split"):
        in_split(convs, "dev")
    with pytest.raises(InvalidInput, match="unknown LoCoMo variant"):
        run_locomo(_write(tmp_path, two), embedder=None, only=("bm25", "hybird"))
    dump = tmp_path / "dump.jsonl"
    report = run_locomo(_write(tmp_path, two), embedder=None, split="heldout", dump=dump)
    assert report["conversation_ids"] == ["conv-43"] and report["ingest"]["cpu_seconds"] >= 0
    rows = [json.loads(line) for line in dump.read_text().splitlines()]
    assert {r["variant"] for r in rows} == set(report["variants"]) and "-topics" in report["variants"]
    # the enrichment ablations search databases ingested without it, each ingest timed on its own
    assert {"-profiles", "-enrichment"} <= set(report["variants"])
    assert report["ingest"]["topics=False profiles=False"]["cpu_seconds"] >= 0
    first = rows[0]
    assert first["evidence"] == ["D1:1"] and first["recall_at_10"] == 1.0 and first["top10"][0]["hit"]
    assert first["top10"][0]["speaker"] == "A"


def test_recall_limit_bounds_what_is_measured(tmp_path: Path) -> None:
    """``limit`` is the nodes each recall returns: R@k past it is not reported, and an
    out-of-range limit is refused before anything is ingested."""
    path = _write(tmp_path, [GOOD])
    report = run_locomo(path, embedder=None, only=("bm25",), limit=5)
    assert report["limit"] == 5
    v = report["variants"]["bm25"]
    assert v["recall_at"][1] == v["recall_at"][5] == 100.0
    assert v["recall_at"][10] is None and v["recall_at"][50] is None and v["session_recall_at"][25] is None
    assert set(v["recall_at_10_by_category"].values()) == {None}
    assert run_locomo(path, embedder=None, only=("bm25",))["limit"] == 100
    for bad in (0, 201):
        with pytest.raises(InvalidInput, match="limit must be between 1 and 200"):
            run_locomo(path, embedder=None, limit=bad)
