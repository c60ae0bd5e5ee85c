"""Does a recall stage's gain generalise? Each stage's gain conversation by conversation,
read from a ``bench locomo --dump`` file (issue 16: tune gains did not carry to heldout).

A variant named ``-X`` takes stage X out of the base variant, so the stage's gain on a
conversation is base minus variant; ``+X`` adds a stage that is off, so its gain is variant
minus base. Leave one conversation out: for each conversation, the stage is judged on the
others pooled (kept when it gains there), and the decision is scored on the one left out —
what tuning on the other conversations would have earned on it.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trulymem.bench.locomo_data import CATEGORIES
from trulymem.errors import InvalidInput

BASE = "hybrid+graph"
ALL = "all"


@dataclass(frozen=True)
class StageGain:
    variant: str
    stage: str                            # what the variant takes out (or puts in)
    gains: dict[str, float]               # conversation -> the stage's R@10 gain in points
    category_gains: dict[str, float]      # category -> gain in points over every conversation
    loco: float                           # points earned on held-out conversations by deciding on the rest
    helps: int                            # conversations where it gains more than ``margin``
    hurts: int                            # ... where it loses more than ``margin``


def read_dump(lines: Iterable[str]) -> dict[str, dict[str, dict[str, list[float]]]]:
    """variant -> conversation -> category name (and ``all``) -> per-question R@10, from dump lines."""
    out: dict[str, dict[str, dict[str, list[float]]]] = {}
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row: dict[str, Any] = json.loads(line)
            variant, conv, value = str(row["variant"]), str(row["conversation"]), float(row["recall_at_10"])
            category = str(row.get("category_name") or CATEGORIES.get(int(row["category"]), "?"))
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"dump line {no} is not a LoCoMo dump row ({exc})", field="dump") from exc
        by = out.setdefault(variant, {}).setdefault(conv, {})
        by.setdefault(category, []).append(value)
        by.setdefault(ALL, []).append(value)
    return out


def load_dump(path: str | Path) -> dict[str, dict[str, dict[str, list[float]]]]:
    with Path(path).open(encoding="utf-8") as f:
        return read_dump(f)


def _mean(values: list[float]) -> float:
    return 100 * statistics.fmean(values) if values else 0.0


def recall_table(data: dict[str, dict[str, dict[str, list[float]]]], category: str = ALL) -> dict[str, dict[str, float]]:
    """variant -> conversation -> R@10 (points) of ``category`` (``all``: every question)."""
    return {v: {c: round(_mean(cats.get(category, [])), 1) for c, cats in convs.items()} for v, convs in data.items()}


def _pooled(convs: dict[str, dict[str, list[float]]], which: Iterable[str], category: str = ALL) -> list[float]:
    return [x for c in which for x in convs.get(c, {}).get(category, [])]


def stage_gains(data: dict[str, dict[str, dict[str, list[float]]]], base: str = BASE,
                margin: float = 0.0) -> list[StageGain]:
    """The gain of every ``-X`` / ``+X`` variant's stage against ``base``, per conversation."""
    if base not in data:
        raise InvalidInput(f"the dump has no {base!r} variant (has {sorted(data)})", field="base")
    ref = data[base]
    convs = sorted(ref)
    out = []
    for variant, got in data.items():
        if variant[:1] not in "+-" or variant == base:
            continue
        sign = -1.0 if variant.startswith("-") else 1.0  # "-X": the stage is what base has and X lacks

        def gain(which: list[str], category: str = ALL, got: dict[str, dict[str, list[float]]] = got,
                 sign: float = sign) -> float:
            a, b = _pooled(got, which, category), _pooled(ref, which, category)
            return sign * (_mean(a) - _mean(b)) + 0.0 if a and b else 0.0  # + 0.0: no "-0.0"

        gains = {c: round(gain([c]), 1) for c in convs}
        cats = sorted({k for c in convs for k in ref[c] if k != ALL})
        loco = []
        for c in convs:
            rest = [o for o in convs if o != c]
            keep = gain(rest) > 0  # what tuning on the other conversations decides
            loco.append(gains[c] if keep else 0.0)
        out.append(StageGain(variant, variant[1:].strip(), gains,
                             {k: round(gain(convs, k), 1) for k in cats},
                             round(statistics.fmean(loco), 2) if loco else 0.0,
                             sum(1 for g in gains.values() if g > margin),
                             sum(1 for g in gains.values() if g < -margin)))
    return out


def markdown(data: dict[str, dict[str, dict[str, list[float]]]], base: str = BASE) -> str:
    """Two tables: R@10 per conversation for every variant, and each stage's gain per
    conversation with its category gains and the leave-one-out figure."""
    convs = sorted(data[base]) if base in data else []
    counts = {c: len(data[base][c][ALL]) for c in convs}
    lines = ["| variant | " + " | ".join(f"{c} ({counts[c]})" for c in convs) + " | all |",
             "|---|" + "---|" * (len(convs) + 1)]
    for variant, got in data.items():
        every = _pooled(got, convs)
        lines.append(f"| {variant} | " + " | ".join(f"{_mean(got.get(c, {}).get(ALL, [])):.1f}" for c in convs)
                     + f" | {_mean(every):.1f} |")
    gains = stage_gains(data, base)
    cats = sorted({k for g in gains for k in g.category_gains})
    lines += ["", "| stage (variant) | " + " | ".join(convs) + " | helps/hurts | leave-one-out | "
              + " | ".join(cats) + " |", "|---|" + "---|" * (len(convs) + 2 + len(cats))]
    for g in gains:
        lines.append(f"| {g.stage} (`{g.variant}`) | " + " | ".join(f"{g.gains[c]:+.1f}" for c in convs)
                     + f" | {g.helps}/{g.hurts} | {g.loco:+.2f} | "
                     + " | ".join(f"{g.category_gains.get(k, 0.0):+.1f}" for k in cats) + " |")
    return "\n".join(lines)
