"""The two prompts of LoCoMo answer accuracy, each a pure function returning chat
messages and paired with the parser of the model's reply.

- answer: the question and the memories recalled for it -> a brief answer;
- judge: question, gold answer, generated answer -> ``{"label": "CORRECT" | "WRONG"}``,
  graded generously on wording and date formats, in the spirit of the judge
  prompt of the Mem0 paper (Chhikara et al., 2025).
"""

from __future__ import annotations

import json
import re

from trulymem.llm.base import Message, json_reply

NOT_MENTIONED = "Not mentioned in the conversation"  # the gold answer of an adversarial question

ANSWER_SYSTEM = """\
You answer questions about a long conversation between two people, using memories \
retrieved from that conversation. Each memory is one message: \
[turn id · date time] speaker: text.

- Use only the memories. If they do not hold the answer, reply "Not mentioned".
- Answer briefly: a name, a few words, a date or a short list. No explanation.
- A message's date is when it was said. Turn relative times into dates or periods: \
"last week" in a message of 9 June 2023 is "the week before 9 June 2023"; "last year" \
in it is 2022.
- "I", "me" and "my" in a message mean its speaker.
- When memories disagree, the most recent one wins."""

JUDGE_SYSTEM = """\
You grade answers to questions about a long conversation between two people. You get \
the question, the gold answer (the reference, usually short) and a generated answer, \
and label the generated answer CORRECT or WRONG.

Be generous:
- CORRECT when it says what the gold answer says, in any words, or contains it among \
other details (extra details are fine unless they contradict the gold answer).
- Dates and times: CORRECT when it names the same day, month, year or period in any \
format ("7 May 2023", "May 7th", "2023-05-07"), or a relative time that comes to the \
same day or period ("the week before 9 June 2023" for "2 June 2023").
- WRONG when it misses the point of the gold answer, names another thing, person, \
date or place, says it does not know while the gold answer gives the answer, or \
hedges between candidates.
- When the gold answer says the conversation does not mention it, CORRECT only when \
the generated answer says so too.

Reply with JSON only: {"reason": "<one short sentence>", "label": "CORRECT"} \
or the same with "WRONG"."""


def answer_messages(question: str, memories: str) -> list[Message]:
    """Ask for a brief answer to ``question`` from ``memories`` (one rendered turn a line)."""
    return [{"role": "system", "content": ANSWER_SYSTEM},
            {"role": "user", "content": f"Memories:\n{memories or '(none found)'}\n\nQuestion: {question}\nAnswer:"}]


def parse_answer(text: str | None) -> str:
    """The answer text, without an echoed ``Answer:`` label; ``""`` when the model said nothing."""
    body = (text or "").strip()
    return re.sub(r"^answer\s*:\s*", "", body, flags=re.IGNORECASE).strip()


def judge_messages(question: str, gold: str, answer: str) -> list[Message]:
    """Ask the judge to label ``answer`` against ``gold``."""
    return [{"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": f"Question: {question}\nGold answer: {gold}\n"
                                        f"Generated answer: {answer or '(no answer)'}"}]


def parse_judge(text: str | None) -> bool | None:
    """``True`` for CORRECT, ``False`` for WRONG, ``None`` when the reply holds no such label.

    Code fences and prose around the JSON are tolerated; a bare word is not, since
    a judge that ignores the format may not have graded either."""
    try:
        data = json_reply(text)
    except ValueError:
        data = None
        for found in reversed(re.findall(r"\{[^{}]*\}", text or "")):  # the last object is the verdict
            try:
                data = json.loads(found)
                break
            except ValueError:
                continue
    label = data.get("label") if isinstance(data, dict) else None
    if not isinstance(label, str):
        return None
    return {"CORRECT": True, "WRONG": False}.get(label.strip().upper())
