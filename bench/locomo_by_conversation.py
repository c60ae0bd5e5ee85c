"""Each LoCoMo recall stage's gain conversation by conversation, from a ``--dump`` file.

    python bench/bench_locomo.py ../shared/bench/locomo/locomo-dev.json --split tune --limit 20 --dump /tmp/tune.jsonl
    python bench/locomo_by_conversation.py /tmp/tune.jsonl [--base hybrid+graph]

Prints markdown: R@10 per conversation for every variant, then each stage's gain per
conversation ("-X": what taking X out loses; "+X": what putting X in gains), how many
conversations it helps and hurts, and the leave-one-conversation-out gain (the stage kept
or dropped by its pooled gain on the other conversations, scored on the one left out).
"""

from __future__ import annotations

import argparse

from trulymem.bench.locomo_convs import BASE, load_dump, markdown

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dump")
    ap.add_argument("--base", default=BASE)
    args = ap.parse_args()
    print(markdown(load_dump(args.dump), args.base))
