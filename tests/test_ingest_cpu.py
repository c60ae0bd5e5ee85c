"""The ingest's CPU cuts change no result: tokens shared within an ingest, the fast paths of
``tokens`` and ``name_key``, the hashing embedder's typed arrays and ids' steps read in bulk
give what the general code gives."""

from __future__ import annotations

import random
import re
import unicodedata
import zlib

import numpy as np
import pytest

from trulymem.embed.hashing import HashingEmbedder
from trulymem.text import tokens
from trulymem.text.normalize import folded_key
from trulymem.text.tokenize import _CJK, joined, shared_tokens

_TOKEN = re.compile(rf"([{_CJK}]+)|([^\W_]+)", re.UNICODE)
_ALPHABET = [chr(i) for i in range(128)] + list("éüßÅΣσςİı’“”…—\u200b\u00a0\u3000ｕＳＥＲ①ﬁ猫娘成语かなカナ한국\u0301\u0338")


def _general_tokens(text: str) -> list[str]:
    """``tokens`` as it was written before its fast paths."""
    text = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for cjk, word in _TOKEN.findall(text):
        if cjk:
            out.extend([cjk] if len(cjk) == 1 else [cjk[i : i + 2] for i in range(len(cjk) - 1)])
        else:
            out.append(word)
    return out


def _general_key(name: str) -> str:
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    visible = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")
    return re.sub(r"\s+", " ", visible).strip()


def _texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    ascii_only = [chr(i) for i in range(128)]
    out = []
    for i in range(n):
        chars = ascii_only if i % 2 else _ALPHABET
        out.append("".join(rng.choice(chars) for _ in range(rng.randint(0, 40))))
    return out + ["I went kayaking with Max!", "snake_case words", "猫娘 likes 成语", "Ｈｅｌｌｏ ＷＯＲＬＤ", "naïve café"]


def test_tokens_fast_paths_and_the_shared_block_give_the_general_tokens() -> None:
    texts = _texts(4000, 1)
    want = [_general_tokens(t) for t in texts]
    assert [tokens(t) for t in texts] == want
    with shared_tokens():
        assert [tokens(t) for t in texts] == want
        assert [tokens(t) for t in texts] == want  # from the memo
        got = tokens("I went kayaking")
        got.append("changed")  # a caller's list is its own
        with shared_tokens():  # nested: the outer block's memo
            assert tokens("I went kayaking") == ["i", "went", "kayaking"]


def test_a_joined_text_has_the_tokens_of_the_whole_text() -> None:
    """Parts whose tokens are joined (ASCII, no token across a boundary) and parts that are not."""
    rng = random.Random(4)
    pieces = [*_texts(300, 5), ": ", "", "a", "1", "_", "-", "é", "猫"]
    with shared_tokens():
        for _ in range(3000):
            parts = [rng.choice(pieces) for _ in range(rng.randint(1, 4))]
            for p in parts:
                tokens(p)  # tokenised first, as an ingest's speaker and message are
            text = joined(*parts)
            assert text == "".join(parts)
            assert tokens(text) == _general_tokens(text), repr(parts)


def test_name_key_ascii_fast_path_gives_the_general_key() -> None:
    for text in _texts(4000, 2):
        assert folded_key(text) == _general_key(text), repr(text)


def _reference_vector(text: str, dim: int = 512) -> np.ndarray:
    """The hashing embedder's sums computed feature by feature, in the order the embedder adds them."""
    sums = np.zeros(dim, dtype=np.float64)
    for tok in _general_tokens(text):
        feats = ["w:" + tok]
        if len(tok) > 3 and tok.isascii():
            padded = f"<{tok}>"
            feats += ["g:" + padded[i : i + n] for n in (3, 4, 5) for i in range(len(padded) - n + 1)]
        for feat in feats:
            h = zlib.crc32(feat.encode("utf-8"))
            weight = 1.0 if feat[0] == "w" else 0.3
            sums[h % dim] += weight if (h >> 31) & 1 else -weight
    return sums.astype(np.float32)


def test_hashing_vectors_are_the_feature_by_feature_sums() -> None:
    texts = _texts(300, 3) + ["", "!!", "Caroline: I went to the LGBTQ support group yesterday."]
    got = HashingEmbedder()._embed(texts, "passage")  # before normalising: the sums themselves
    for text, row in zip(texts, got):
        assert np.array_equal(row, _reference_vector(text)), repr(text)


def _reference_ids(n: int, state: list[int], noise: bytes, fresh: list[bytes], ms: int) -> list[str]:
    """``new_ids`` as written before its steps were read in bulk (one ``int.from_bytes`` each)."""
    from trulymem.model import _LOW_62, _RAND_BITS, _VARIANT

    out: list[str] = []
    head = ""
    last_ms, rand = state
    for i in range(n):
        if ms > last_ms:
            rand = int.from_bytes(fresh.pop(0), "big") >> (80 - _RAND_BITS + 1)
        else:
            ms, rand = last_ms, rand + 1 + int.from_bytes(noise[3 * i : 3 * i + 3], "big")
            if rand >> _RAND_BITS:
                ms, rand = ms + 1, int.from_bytes(fresh.pop(0), "big") >> (80 - _RAND_BITS + 1)
        if ms != last_ms or not out:
            head = f"{ms:012x}"
            head = f"{head[:8]}-{head[8:]}-7"
        last_ms = ms
        low = f"{_VARIANT | (rand & _LOW_62):016x}"
        out.append(f"{head}{rand >> 62:03x}-{low[:4]}-{low[4:]}")
    return out


def test_ids_are_the_ones_the_byte_by_byte_steps_made(monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import time

    import trulymem.model as model

    rng = random.Random(6)
    for trial in range(60):
        n = rng.randint(1, 400)
        ms = 1_700_000_000_000 + trial
        # the same millisecond (steps), a later one (fresh bits), a counter near its end (borrows)
        last = [ms - rng.randint(0, 1), rng.choice([rng.getrandbits(70), (1 << 74) - rng.getrandbits(30)])]
        stream = rng.randbytes(3 * n + 10 * (n + 1))
        noise, fresh = stream[: 3 * n], [stream[3 * n + 10 * i : 3 * n + 10 * (i + 1)] for i in range(n + 1)]
        want = _reference_ids(n, list(last), noise, list(fresh), ms)
        served = [noise, *fresh]
        monkeypatch.setattr(os, "urandom", lambda k, served=served: served.pop(0))
        monkeypatch.setattr(time, "time_ns", lambda ms=ms: ms * 1_000_000)
        monkeypatch.setattr(model, "_last_id", list(last))
        assert model.new_ids(n) == want


def test_the_name_pattern_matches_where_its_boundary_form_did() -> None:
    from trulymem.tools.ingest import _NAME

    boundary_form = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of|de|van|von|the)?\s*[A-Z][\w'’-]*)*")
    rng = random.Random(7)
    alphabet = list("aAbBZz'’-_. \t\nofdevanthe1éÉÜ猫")
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert [m.span() for m in _NAME.finditer(text)] == [m.span() for m in boundary_form.finditer(text)], text
