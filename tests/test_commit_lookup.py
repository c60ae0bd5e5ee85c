"""The SQLite store's existing-triple lookup asks a pair with several relation keys (a
supersession's opposite preferences) in one probe per key: it finds exactly what asking
triple by triple finds, on a fresh and on a reopened (planner statistics) database."""

from __future__ import annotations

from pathlib import Path

from trulymem import SQLiteStore, TrulyMem
from trulymem.model import Scope
from trulymem.store.base import NodeQuery
from trulymem.text import name_key


def _ids(store: SQLiteStore, *names: str) -> list[str]:
    nodes = store.nodes(NodeQuery(scope=Scope(user_id="u"), keys=[name_key(n) for n in names]))
    by_key = {n.key: n.id for n in nodes}
    return [by_key[name_key(n)] for n in names]


def test_a_pair_asked_with_many_keys_finds_what_one_by_one_finds(db_path: Path) -> None:
    mem = TrulyMem(db_path, user_id="u")
    mem.commit([{"subject": "ada", "relation": r, "object": o} for r, o in
                [("dislikes", "rock"), ("hates", "rock"), ("likes", "jazz"), ("knows", "ben"), ("knows", "rock")]])
    mem.close()
    for _ in range(2):  # fresh statistics-free file, then reopened after PRAGMA optimize
        store = SQLiteStore(db_path)
        ada, rock, jazz, ben = _ids(store, "ada", "rock", "jazz", "ben")
        asked = [(ada, k, rock) for k in ("dislikes", "hates", "detests", "dislike")]
        asked += [(ada, k, jazz) for k in ("likes", "loves")] + [(ada, "knows", ben), (ben, "knows", ada)]
        asked.append((ada, "dislikes", rock))  # asked twice
        with store.transaction(write=False):
            together = store.active_facts_for(asked)
            alone = {t: f for t in asked for t, f in store.active_facts_for([t]).items()}
        assert set(together) == set(alone) == {(ada, "dislikes", rock), (ada, "hates", rock), (ada, "likes", jazz),
                                               (ada, "knows", ben)}
        assert {t: f.id for t, f in together.items()} == {t: f.id for t, f in alone.items()}
        assert together[(ada, "hates", rock)].object == "rock"
        store.close()
