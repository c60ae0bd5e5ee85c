"""Reading a LoCoMo file (Maharana et al., ACL 2024) into checked, plain data."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trulymem.errors import InvalidInput

_DIA = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
_SESSION = re.compile(r"session_(\d+)")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

# The dev file split by conversation, fixed before any tuning (issue 16): retrieval is tuned
# on "tune" only; "heldout" is run to report, never studied question by question.
SPLITS: dict[str, tuple[str, ...] | None] = {
    "tune": ("conv-26", "conv-30", "conv-41", "conv-42"),
    "heldout": ("conv-43", "conv-44"),
    "all": None,
}


def in_split(convs: list[Conversation], split: str) -> list[Conversation]:
    """The conversations of ``split`` (``tune``, ``heldout`` or ``all``), in file order."""
    if split not in SPLITS:
        raise InvalidInput(f"unknown split {split!r}; use {', '.join(SPLITS)}", field="split")
    wanted = SPLITS[split]
    return [c for c in convs if wanted is None or c.id in wanted]


def dia_ids(text: str) -> list[str]:
    """Normalise evidence like ``"D8:6; D9:17"``, ``"D:11:26"`` or ``"D30:05"`` to ``D<s>:<t>`` ids."""
    return [f"D{int(s)}:{int(t)}" for s, t in _DIA.findall(text)]


def session_of(dia_id: str) -> int:
    return int(dia_id[1:].split(":")[0])


def parse_time(text: str) -> datetime | None:
    """``"1:56 pm on 8 May, 2023"`` -> datetime (UTC); ``None`` when it does not parse."""
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: str
    time: datetime | None


@dataclass
class Question:
    text: str
    evidence: list[str]
    category: int
    answer: str | None = None  # the gold answer; category 5 (adversarial) has none


@dataclass
class Conversation:
    id: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def _need(value: Any, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InvalidInput(f"{where} must be {names}, got {type(value).__name__}", field="locomo")
    return value


def load_locomo(path: str | Path) -> list[Conversation]:
    """Read and check a LoCoMo-format file; a malformed one is one error naming the place."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"cannot read {path}: {exc}", field="locomo") from None
    out: list[Conversation] = []
    for i, sample in enumerate(_need(data, list, "the file")):
        where = f"sample {i}"
        _need(sample, dict, where)
        conv = Conversation(id=str(sample.get("sample_id", f"conv-{i}")))
        where = f"sample {i} ({conv.id})"
        c = _need(sample.get("conversation"), dict, f"{where}: conversation")
        for key in sorted((k for k in c if _SESSION.fullmatch(k)), key=lambda k: int(k.split("_")[1])):
            when = c.get(f"{key}_date_time")
            time = parse_time(when) if isinstance(when, str) else None
            for j, turn in enumerate(_need(c[key], list, f"{where}: {key}")):
                tw = f"{where}: {key}[{j}]"
                _need(turn, dict, tw)
                for name in ("speaker", "dia_id", "text"):
                    _need(turn.get(name), str, f"{tw}.{name}")
                ids = dia_ids(turn["dia_id"])
                if len(ids) != 1:
                    raise InvalidInput(f"{tw}.dia_id {turn['dia_id']!r} is not one D<session>:<turn> id",
                                       field="locomo")
                text = turn["text"]
                if isinstance(turn.get("blip_caption"), str) and turn["blip_caption"]:
                    text += f" [shares a photo: {turn['blip_caption']}]"
                conv.turns.append(Turn(ids[0], turn["speaker"], text, key, time))
        if not conv.turns:
            raise InvalidInput(f"{where}: the conversation has no session_N turns", field="locomo")
        for j, qa in enumerate(_need(sample.get("qa", []), list, f"{where}: qa")):
            qw = f"{where}: qa[{j}]"
            _need(qa, dict, qw)
            question = _need(qa.get("question"), str, f"{qw}.question")
            evidence = [d for e in _need(qa.get("evidence", []), list, f"{qw}.evidence")
                        for d in dia_ids(_need(e, str, f"{qw}.evidence item"))]
            category = _need(qa.get("category"), int, f"{qw}.category")
            answer = qa.get("answer")
            if answer is not None:  # a few answers are numbers (a year, a count)
                answer = str(_need(answer, (str, int, float), f"{qw}.answer"))
            conv.questions.append(Question(question, list(dict.fromkeys(evidence)), category, answer))
        out.append(conv)
    return out
