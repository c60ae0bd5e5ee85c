"""Optional: merged texts written by the configured chat model instead of the
deterministic merge. A failure keeps the deterministic text (and says so)."""

from __future__ import annotations

from trulymem.dream.analyze import Analysis
from trulymem.errors import TrulyMemError
from trulymem.llm.base import LLM
from trulymem.memories import MEMORY_RELATION
from trulymem.text import relation_key

PROMPT = ("These memories say the same thing in different words. Write ONE memory that keeps every detail "
          "of all of them, as short as possible, in the language they are written in. Reply with the memory "
          "text only.\n\n{items}")
MAX_CHARS = 2000


def merge_with_llm(analysis: Analysis, llm: LLM) -> list[str]:
    """Rewrite each merge's text with the model; returns warnings."""
    warnings: list[str] = []
    for g in analysis.merges:
        items = "\n".join(f"- {m.object if relation_key(m.relation) == MEMORY_RELATION else m.memory}"
                          for m in g.items)
        try:
            reply = llm.complete([{"role": "user", "content": PROMPT.format(items=items)}]).content or ""
        except TrulyMemError as exc:
            warnings.append(f"LLM merge failed ({exc}); kept the deterministic merge")
            return warnings
        text = " ".join(reply.strip().strip('"').split())
        if not text or len(text) > MAX_CHARS:
            warnings.append(f"LLM merge of {[m.id for m in g.items]} was empty or too long; kept the deterministic one")
            continue
        free = relation_key(g.relation) == MEMORY_RELATION
        g.object = text if free else text.removeprefix(f"{g.subject} {g.relation} ").strip() or text
        g.merged = g.object if free else f"{g.subject} {g.relation} {g.object}"
    return warnings
