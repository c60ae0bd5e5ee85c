"""The chat model as the judge of the pairs the rules cannot decide: batched, cached."""

from __future__ import annotations

from trulymem.errors import TrulyMemError
from trulymem.llm.base import LLM, json_reply

JUDGE_PROMPT = (
    "Each line below is a numbered pair of memories (A | B) stored for the same user and project. For each pair, "
    "decide: \"duplicate\" (they say the same thing, possibly in different words or languages), \"contradiction\" "
    "(they cannot both be true now: a different value for the same thing, or one denies the other), or "
    "\"distinct\" (both can be true: different things, or another value of something that has many). Reply with a "
    "JSON list of objects {{\"pair\": <number>, \"verdict\": ...}} and nothing else.\n\n{pairs}")


def judge_with_llm(pairs: list[tuple[str, str]], llm: LLM, cache: dict[tuple[str, str], str],
                   batch: int = 20) -> tuple[list[str | None], list[str]]:
    """The model's verdict on each pair (``None`` where it gave none), in batches, with
    ``cache`` holding earlier answers; returns the verdicts and warnings."""
    out: list[str | None] = [cache.get(p) for p in pairs]
    todo = [k for k, v in enumerate(out) if v is None]
    warnings: list[str] = []
    for start in range(0, len(todo), batch):
        chunk = todo[start:start + batch]
        listing = "\n".join(f"{n}. A: {pairs[k][0]} | B: {pairs[k][1]}" for n, k in enumerate(chunk))
        try:
            reply = llm.complete([{"role": "user", "content": JUDGE_PROMPT.format(pairs=listing)}]).content
            items = json_reply(reply)
        except (TrulyMemError, ValueError) as exc:
            warnings.append(f"the model could not judge {len(chunk)} pairs ({exc}); they are left unmerged")
            continue
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and isinstance(item.get("pair"), int) and 0 <= item["pair"] < len(chunk) \
                    and item.get("verdict") in ("duplicate", "contradiction", "distinct"):
                k = chunk[item["pair"]]
                out[k] = cache[pairs[k]] = str(item["verdict"])
    return out, warnings
