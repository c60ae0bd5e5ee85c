"""Ingest writes each episode once: what it stores is what writing it message by message stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trulymem import TrulyMem

NAMES = ["Caroline", "Melanie", "Paris", "Berlin", "the Beatles", "Jon"]


def messages(n: int) -> list[dict[str, Any]]:
    return [{"speaker": "AB"[i % 2], "id": f"D{i % 3}:{i}", "session": f"s{i % 3}",
             "text": f"message {i}: {NAMES[i % 6]} met {NAMES[(i * 5) % 6]} about topic{i} running runners",
             "timestamp": f"2023-01-0{1 + i % 3}T10:{i:02d}:00"} for i in range(n)]


def stored(mem: TrulyMem) -> dict[str, Any]:
    rows = mem.store._q(  # type: ignore[attr-defined]
        "SELECT n.name, n.type, n.summary, n.metadata, f.doc, f.ctx, v.vec FROM nodes n "
        "JOIN nodes_fts f ON f.rowid = n.rid LEFT JOIN node_vectors v ON v.node_rid = n.rid WHERE n.user_id = ?",
        (mem.scope.user_id,))
    return {r[0]: r[1:] for r in rows}


def test_one_call_stores_what_one_call_per_message_stored(db_path: Path) -> None:
    msgs = messages(30)
    whole = TrulyMem(db_path, user_id="whole", embedder="hashing")
    whole.run("memory_ingest", {"messages": msgs})
    split = TrulyMem(db_path, user_id="split", embedder="hashing")
    for m in msgs:  # each call writes its episode and its neighbours' context at once, as before
        split.run("memory_ingest", {"messages": [m]})
    a, b = stored(whole), stored(split)
    assert a.keys() == b.keys() and len(a) > 30
    for name in a:
        assert a[name] == b[name], name
    # Recall ranks alike. The one call writes a session's rows in one batch, in another
    # storage order than message by message, and full-text search breaks rank ties by
    # storage order: scores move in the third decimal and ties at the cut fall either way.
    r1, r2 = whole.recall("topic7 running", depth=1), split.recall("topic7 running", depth=1)
    cut = max(min(n.score for n in r1.nodes), min(n.score for n in r2.nodes))
    above = [[n.name for n in r.nodes if n.score > cut] for r in (r1, r2)]
    assert above[0] == above[1] and len(above[0]) >= 20
    assert all(abs(a.score - b.score) < 0.005 for a, b in zip(r1.nodes, r2.nodes) if a.score > cut)
    whole.close()
    split.close()


def test_each_episode_is_written_once(db_path: Path) -> None:
    mem = TrulyMem(db_path, user_id="u", embedder="hashing")
    writes: list[str] = []
    mem.store._conn.set_trace_callback(writes.append)  # type: ignore[attr-defined]
    mem.run("memory_ingest", {"messages": messages(12)})
    mem.store._conn.set_trace_callback(None)  # type: ignore[attr-defined]
    assert sum(w.startswith("UPDATE nodes SET summary") for w in writes) == 12
    mem.close()


def test_cached_hashing_features_give_the_uncached_vectors() -> None:
    import zlib

    import numpy as np

    from trulymem.embed.hashing import HashingEmbedder
    from trulymem.text.tokenize import tokens

    texts = ["Caroline went running with the runners", "北京 咖啡 猫娘 和 朋友", "", "a b c d e",
             "Melanie's kids: pottery, painting; running runner ran"] * 3
    emb = HashingEmbedder()
    want = np.zeros((len(texts), emb.dim))
    for row, text in enumerate(texts):
        for tok in tokens(text):
            feats = ["w:" + tok]  # the word, and an ASCII word's 3-5-grams of "<token>"
            if len(tok) > 3 and tok.isascii():
                feats += ["g:" + f"<{tok}>"[i : i + n] for n in (3, 4, 5) for i in range(len(tok) + 3 - n)]
            for feat in feats:
                h = zlib.crc32(feat.encode("utf-8"))
                weight = 1.0 if feat[0] == "w" else 0.3
                want[row, h % emb.dim] += weight if (h >> 31) & 1 else -weight
    norms = np.linalg.norm(want, axis=1, keepdims=True)
    want = (want / np.where(norms == 0, 1, norms)).astype(np.float32)
    for _ in range(2):  # cold, then from the cache
        assert np.allclose(emb.embed_batch(texts), want, atol=1e-6)
