"""LoCoMo answer accuracy: recall feeds a (scripted) answer model over real HTTP, a
(scripted) judge grades against the gold answer, and the J figures add up."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from trulymem import InvalidInput
from trulymem.bench.locomo_answer import run_locomo_answers
from trulymem.bench.locomo_data import load_locomo
from trulymem.bench.locomo_prompts import JUDGE_SYSTEM, NOT_MENTIONED, parse_answer, parse_judge
from trulymem.cli import main
from trulymem.embed import HashingEmbedder
from trulymem.llm.openai_chat import OpenAIChat
from trulymem.llm.scripted import Step
from trulymem.llm.scripted_server import ScriptedServer

KEY = "sk-test"
SAMPLE = {"sample_id": "c1", "conversation": {
    "speaker_a": "Alice", "speaker_b": "Bob",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [{"speaker": "Alice", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit last week."},
                  {"speaker": "Bob", "dia_id": "D1:2", "text": "Lovely! My sister just moved to Lisbon for work."},
                  {"speaker": "Alice", "dia_id": "D1:3", "text": "How is she finding the weather there?"}],
    "session_2_date_time": "10:00 am on 9 June, 2023",
    "session_2": [{"speaker": "Bob", "dia_id": "D2:1", "text": "We went kayaking on the Tagus yesterday."},
                  {"speaker": "Alice", "dia_id": "D2:2", "text": "Biscuit chewed my favourite shoes."}]},
    "qa": [{"question": "What is the name of Alice's puppy?", "answer": "Biscuit", "evidence": ["D1:1"], "category": 4},
           {"question": "Where did Bob's sister move?", "answer": "Lisbon", "evidence": ["D1:2"], "category": 1},
           {"question": "What is Bob's favourite food?", "answer": "Pizza", "evidence": [], "category": 3},
           {"question": "What did Bob's sister adopt?", "adversarial_answer": "a puppy", "evidence": ["D1:2"],
            "category": 5}]}
_STOP = {"what", "where", "when", "did", "the", "is", "of", "name"}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower())) - _STOP


def answerer(messages: list[dict[str, Any]]) -> str:
    """Quotes the shown memory line sharing most words with the question: right only if recall showed it."""
    prompt = messages[-1]["content"]
    memories, question = re.match(r"Memories:\n(.*)\n\nQuestion: (.*)\nAnswer:$", prompt, re.S).groups()  # type: ignore[union-attr]
    lines = [x.split("] ", 1)[1] for x in memories.splitlines() if "] " in x]
    best = max(lines, key=lambda x: len(_words(x) & _words(question)), default="")
    return best if _words(best) & _words(question) else "Not mentioned"


def judge(messages: list[dict[str, Any]]) -> str:
    """CORRECT when the gold answer appears in the generated one; fenced JSON, as models often send."""
    gold = re.search(r"Gold answer: (.*)", messages[-1]["content"]).group(1)  # type: ignore[union-attr]
    answer = re.search(r"Generated answer: (.*)", messages[-1]["content"]).group(1)  # type: ignore[union-attr]
    label = "CORRECT" if gold.lower() in answer.lower() else "WRONG"
    return f'```json\n{{"reason": "compared", "label": "{label}"}}\n```'


def either(messages: list[dict[str, Any]]) -> str:
    return judge(messages) if messages[0]["content"] == JUDGE_SYSTEM else answerer(messages)


class TwoModels(ScriptedServer):
    """One endpoint serving the answer model and the judge model, recording which was asked."""

    def __init__(self, steps: list[Step], names: tuple[str, str]) -> None:
        super().__init__(steps, model=names[0], api_key=KEY)
        self.names = names
        self.asked: list[str | None] = []

    def answer(self, body: dict[str, Any], auth: str | None) -> tuple[int, Any]:
        self.asked.append(body.get("model"))
        return super().answer({**body, "model": self.model} if body.get("model") in self.names else body, auth)


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    p = tmp_path / "locomo.json"
    p.write_text(json.dumps([SAMPLE]))
    return p


def _run(path: Path, answer_steps: list[Step], judge_steps: list[Step], **kw: Any) -> tuple[dict[str, Any], ScriptedServer]:
    with ScriptedServer(answer_steps, model="answerer", api_key=KEY) as a, \
            ScriptedServer(judge_steps, model="judge", api_key=KEY) as j:
        answers = OpenAIChat("answerer", base_url=a.base_url, api_key=KEY, max_retries=0)
        judges = OpenAIChat("judge", base_url=j.base_url, api_key=KEY, max_retries=0)
        with answers.client, judges.client:
            report = run_locomo_answers(path, answerer=answers, judge=judges, embedder=HashingEmbedder(), **kw)
    return report, a


def test_prompts_parse_what_models_send() -> None:
    assert parse_judge('{"label": "CORRECT"}') is True
    assert parse_judge('```json\n{"reason": "same date", "label": "wrong"}\n```') is False
    assert parse_judge('Same person, so:\n```JSON\n{"label": "Correct"}\n```') is True
    for garbage in (None, "", "CORRECT", '{"label": "maybe"}', '{"verdict": "CORRECT"}', "[1, 2]", "{not json}"):
        assert parse_judge(garbage) is None, garbage
    assert parse_answer("Answer: Biscuit\n") == "Biscuit" and parse_answer(None) == ""


def test_gold_answers_are_kept_numbers_as_text(tmp_path: Path) -> None:
    qa = [{"question": "When?", "answer": 2022, "evidence": [], "category": 2}]
    p = tmp_path / "x.json"
    p.write_text(json.dumps([{**SAMPLE, "qa": qa}]))
    assert load_locomo(p)[0].questions[0].answer == "2022"
    p.write_text(json.dumps([{**SAMPLE, "qa": [{**qa[0], "answer": ["a"]}]}]))
    with pytest.raises(InvalidInput, match=r"qa\[0\]\.answer must be"):
        load_locomo(p)


def test_recall_feeds_the_answerer_and_the_judge_grades(locomo_file: Path) -> None:
    report, answers = _run(locomo_file, [answerer] * 3, [judge] * 3)
    assert (report["questions"], report["correct"], report["wrong"], report["judge_errors"]) == (3, 2, 1, 0)
    assert report["j_score"] == 66.7
    assert report["by_category"] == {
        "1 multi-hop": {"questions": 1, "correct": 1, "j_score": 100.0},
        "3 open-domain": {"questions": 1, "correct": 0, "j_score": 0.0},
        "4 single-hop": {"questions": 1, "correct": 1, "j_score": 100.0}}
    assert report["skipped"] == {"adversarial": 1, "no_gold_answer": 0, "over_limit": 0}
    assert [r["answer"] for r in report["results"]][:2] == ["Alice: I adopted a puppy named Biscuit last week.",
                                                            "Bob: Lovely! My sister just moved to Lisbon for work."]
    # turns reach the answerer with their id, date and speaker
    assert "[D1:1 · 2023-05-08 13:56] Alice: I adopted a puppy named Biscuit" in answers.requests[0]["messages"][1]["content"]
    assert report["memory"]["evidence_shown"] == 100.0 and report["recall"] == "hybrid+graph"
    for calls in (report["answer"], report["judge"]):  # usage as the server reported it
        assert calls["calls"] == 3 and calls["prompt_tokens"] > 0 and calls["completion_tokens"] > 0
        assert not calls["tokens_estimated"] and calls["latency_ms"]["p95"] >= calls["latency_ms"]["p50"] > 0
    assert (report["answer_model"], report["judge_model"]) == ("answerer", "judge")


def test_the_budget_decides_what_the_answerer_sees(locomo_file: Path) -> None:
    report, answers = _run(locomo_file, [answerer] * 3, [judge] * 3, memory_tokens=1)
    assert report["j_score"] == 0.0 and report["memory"]["turns_mean"] == 0.0
    assert "Memories:\n(none found)" in answers.requests[0]["messages"][1]["content"]
    # room for one turn: right only where recall ranks the evidence first
    report, answers = _run(locomo_file, [answerer] * 3, [judge] * 3, memory_tokens=40)
    assert (report["j_score"], report["memory"]["turns_mean"], report["memory"]["evidence_shown"]) == (66.7, 1.0, 100.0)
    assert answers.requests[1]["messages"][1]["content"] == (
        "Memories:\n[D1:2 · 2023-05-08 13:56] Bob: Lovely! My sister just moved to Lisbon for work.\n\n"
        "Question: Where did Bob's sister move?\nAnswer:")


def test_an_unparseable_judge_reply_is_wrong_and_counted(locomo_file: Path) -> None:
    report, _ = _run(locomo_file, [answerer] * 3, [judge, "Looks right to me!", judge])
    assert (report["correct"], report["judge_errors"], report["j_score"]) == (1, 1, 33.3)
    assert [r["label"] for r in report["results"]] == ["CORRECT", "UNPARSEABLE", "WRONG"]


def test_adversarial_on_request_and_the_question_cap(locomo_file: Path) -> None:
    report, _ = _run(locomo_file, [answerer] * 4, [judge] * 4, adversarial=True)
    assert report["questions"] == 4 and report["j_score"] == 50.0
    assert report["results"][3]["gold"] == NOT_MENTIONED and report["by_category"]["5 adversarial"]["j_score"] == 0.0
    report, _ = _run(locomo_file, [answerer] * 2, [judge] * 2, questions=2)
    assert (report["questions"], report["j_score"]) == (2, 100.0)
    assert report["skipped"] == {"adversarial": 1, "no_gold_answer": 0, "over_limit": 1}


def test_cli_json_and_table(locomo_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with TwoModels([either] * 12, ("answerer", "judge")) as srv:
        monkeypatch.setenv("TRULYMEM_LLM_API_KEY", KEY)
        args = ["bench", "locomo", str(locomo_file), "--answer", "--base-url", srv.base_url]
        r = CliRunner().invoke(main, [*args, "--answer-model", "answerer", "--judge-model", "judge", "--json"])
        assert r.exit_code == 0, r.output
        data = json.loads(r.stdout)
        assert {"answer_model", "judge_model", "questions", "j_score", "correct", "wrong", "judge_errors", "by_category",
                "skipped", "memory", "answer", "judge", "recall_latency_ms", "results"} <= set(data)
        assert (data["answer_model"], data["judge_model"], data["j_score"]) == ("answerer", "judge", 66.7)
        assert srv.asked == ["answerer", "judge"] * 3
        # the configured chat model answers and, unless told otherwise, judges
        monkeypatch.setenv("TRULYMEM_LLM_MODEL", "answerer")
        r = CliRunner().invoke(main, [*args, "--questions", "2"])
        assert r.exit_code == 0, r.output
        assert "answer model answerer, judge model answerer" in r.stdout and "J 100.0: 2 correct, 0 wrong" in r.stdout
        assert "4 single-hop" in r.stdout and "judge" in r.stdout and srv.asked[6:] == ["answerer"] * 4


def test_cli_refuses_clearly(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")  # never read: the missing model is reported first
    r = CliRunner().invoke(main, ["bench", "locomo", str(bad), "--answer"])
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == ["Error: --answer needs a model: pass --answer-model (and --judge-model), "
                                             "or set TRULYMEM_LLM_MODEL (llm_model in the config file)"]
    r = CliRunner().invoke(main, ["bench", "locomo", str(bad), "--questions", "3", "--judge-model", "j"])
    assert r.exit_code == 2 and r.output.strip() == "Error: --judge-model, --questions are only used with --answer"
    r = CliRunner().invoke(main, ["bench", "locomo", str(bad), "--answer", "--answer-model", "m", "--limit", "20"])
    assert r.exit_code == 2 and r.output.strip() == "Error: --limit is not used with --answer"
