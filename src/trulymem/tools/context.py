"""``context_rewrite``: validate an in-turn summary of tool calls.

The agent runtime replaces the turn's tool-call history with [user message,
summary] once this accepts the summary; the check lives here so every
interface validates the same way.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from pydantic import BaseModel, Field

from trulymem.errors import InvalidInput
from trulymem.text.tokenize import count_tokens
from trulymem.tools.base import Tool, ToolContext, ToolInput, register

MAX_SUMMARY = 8000
_EN = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
      "sixteen seventeen eighteen nineteen twenty".split()
_ZH = "零一二三四五六七八九十"
_JSON_KEY = re.compile(r'^[\[{]\s*[\[{]?\s*"[^"\n]{1,80}"\s*:')
_ZH_CALLS = r"\s*(?:次|回|(?:个|项)?\s*(?:工具)?调用)"  # 3次 / 3回 / 3个调用 / 3个工具调用


class ContextRewriteInput(ToolInput):
    summary: str = Field(min_length=1, max_length=MAX_SUMMARY,
                         description="Plain-language summary of this turn's tool calls and what they returned. "
                                     "It must name every tool called and say how many calls it summarizes.")
    tool_calls_summarized: int = Field(ge=1, le=1000, description="How many tool calls the summary covers.")


class ContextRewriteResult(BaseModel):
    accepted: bool
    summary: str
    tool_calls_summarized: int
    tools: dict[str, int]


def _number_words(n: int) -> tuple[list[str], list[str]]:
    """Ways to write ``n``: ASCII forms (digits, English words) and Chinese numerals."""
    ascii_forms = [str(n)] + ([_EN[n]] if n < len(_EN) else [])
    zh: list[str] = []
    if n <= 10:
        zh.append(_ZH[n])
    elif n < 20:
        zh.append("十" + _ZH[n - 10])
    if n == 2:
        zh += ["两", "俩"]
    return ascii_forms, zh


def _states_number(summary: str, n: int) -> bool:
    """True when the summary says "n calls" (or 调用了n次, n次调用, n个工具调用 …)."""
    text = summary.casefold()
    ascii_forms, zh = _number_words(n)
    for word in ascii_forms:
        # ASCII boundaries only, so "调用了2次" counts and "13 calls" does not count as 3.
        if re.search(rf"(?<![0-9a-z.]){re.escape(word)}\s+(?:[\w-]+\s+){{0,2}}(?:calls?|invocations?)\b", text):
            return True
        if re.search(rf"(?<![0-9a-z.]){re.escape(word)}{_ZH_CALLS}", text):
            return True
    return any(re.search(rf"(?<![一二三四五六七八九十两俩]){w}{_ZH_CALLS}", text) for w in zh)


def _is_json(summary: str) -> bool:
    """A JSON object or list (code fences tolerated) is a copy of tool output, not a summary."""
    body = summary.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    if not body or body[0] not in "{[":
        return False
    try:
        json.loads(body)
    except ValueError:  # truncated or sloppy JSON is still not prose
        return body[-1:] in "}]" or bool(_JSON_KEY.match(body))
    return True


def validate_rewrite(summary: str, tool_calls_summarized: int, turn_calls: list[str],
                     replaced_tokens: int | None = None) -> dict[str, int]:
    """Check the summary against this turn's real calls; returns the call counts by tool.

    ``replaced_tokens`` is the size of the calls and results the summary stands in for:
    a summary is refused unless it is shorter."""
    if _is_json(summary):
        raise InvalidInput("is JSON; write the summary in plain language, not a copy of the tool results",
                           field="summary")
    if replaced_tokens is not None and count_tokens(summary) >= replaced_tokens:
        raise InvalidInput(f"is {count_tokens(summary)} tokens, not shorter than the {replaced_tokens} tokens of tool "
                           "calls and results it replaces", field="summary")
    calls = [c for c in turn_calls if c != "context_rewrite"]
    counts = Counter(calls)
    if not calls:
        raise InvalidInput("there are no tool calls in this turn to summarize", field="tool_calls_summarized")
    if tool_calls_summarized != len(calls):
        listing = ", ".join(f"{name}×{n}" for name, n in counts.items())
        raise InvalidInput(
            f"says {tool_calls_summarized} but this turn made {len(calls)} tool calls ({listing})",
            field="tool_calls_summarized",
        )
    missing = [name for name in counts if name.casefold() not in summary.casefold()]
    if missing:
        raise InvalidInput(f"does not name the tools it summarizes: {', '.join(missing)}", field="summary")
    if not _states_number(summary, len(calls)):
        raise InvalidInput(f"must state how many calls it summarizes ({len(calls)})", field="summary")
    return dict(counts)


def _context_rewrite(ctx: ToolContext, inp: ContextRewriteInput) -> ContextRewriteResult:
    if ctx.turn_calls is None:
        raise InvalidInput("context_rewrite only works inside an agent turn (no tool calls recorded)",
                           field="tool_calls_summarized")
    tools = validate_rewrite(inp.summary, inp.tool_calls_summarized, ctx.turn_calls, ctx.turn_tokens)
    return ContextRewriteResult(accepted=True, summary=inp.summary.strip(),
                                tool_calls_summarized=inp.tool_calls_summarized, tools=tools)


context_rewrite = register(Tool(
    name="context_rewrite",
    description=(
        "Compress this turn's tool results into a short summary so the conversation keeps only "
        "[user message, summary]. Name every tool you called and how many calls you are summarizing."
    ),
    input_model=ContextRewriteInput,
    run=_context_rewrite,
    writes=False,
))
