"""Forgetting what was said: when facts are forgotten, the messages they came from go too.

Soft, like every forget: the episodes' facts are invalidated (kept in history, found by
``include_invalid`` and ``as_of``), so recall no longer shows the raw words; the text
their neighbours carried as searchable context, the turn records' summaries, which
quote them, and the stems speaker profiles keep of them are rewritten without it."""

from __future__ import annotations

from trulymem.enrich.profiles import STATED_IN, without_turns
from trulymem.graph import TrulyMem
from trulymem.model import EdgeKind, Node, NodeType
from trulymem.store.base import FactQuery, NodeQuery
from trulymem.text import name_key

FORGOTTEN = "(forgotten)"


def forget_messages(mem: TrulyMem, fact_ids: list[str]) -> int:
    """Forget the messages the facts ``fact_ids`` came from — their turns' user and AI
    messages and any message they cite. Runs in the caller's transaction; returns how
    many messages."""
    store, scope = mem.store, mem.scope.user_wide()
    facts = store.facts(FactQuery(scope=scope, ids=fact_ids, validity="all"))
    ids = {m for f in facts for m in f.message_ids}
    ids |= {f"{f.turn_id}:{who}" for f in facts if f.turn_id for who in ("user", "AI")}
    # a long message is stored as parts: "<id>.2", "<id>.3" …
    keys = [name_key(f"{m}{part}") for m in ids for part in ("", *(f".{i}" for i in range(2, 11)))]
    episodes = store.nodes(NodeQuery(scope=scope, keys=keys, types=[NodeType.EPISODE])) if keys else []
    if not episodes:
        return 0
    gone = {e.summary for e in episodes if e.summary}
    turns = {f.subject_id for f in store.facts(FactQuery(scope=scope, object_ids=[e.id for e in episodes],
                                                           kinds=[EdgeKind.CONTAINS_INFO]))}
    for turn in store.nodes(NodeQuery(scope=scope, ids=sorted(turns), types=[NodeType.TASK])) if turns else []:
        if turn.metadata.get("kind") == "turn":  # its summary quotes the messages
            store.update_node(turn.id, mem.clock(), summary=turn.summary,
                              metadata={**turn.metadata, "description": FORGOTTEN})
    _forget_in_profiles(mem, episodes)
    for ep in episodes:
        for side in ("subject", "object"):
            mem.purge({side: ep.name})
    for n in _neighbours(mem, [e.id for e in episodes]):
        context = text = str(n.metadata.get("context", ""))
        for summary in gone:
            text = text.replace(summary, "")
        if text != context:
            text = "\n".join(line for line in text.split("\n") if line.strip())
            store.update_node(n.id, mem.clock(), summary=n.summary, metadata={**n.metadata, "context": text})
    return len(episodes)


def _forget_in_profiles(mem: TrulyMem, episodes: list[Node]) -> None:
    """Speaker profiles keep the stems of each turn they link (enrich/profiles.py): drop the
    forgotten turns' stems so their words are not found through the profile."""
    store, scope = mem.store, mem.scope.user_wide()
    ids = {e.id for e in episodes}
    links = store.facts(FactQuery(scope=scope, object_ids=sorted(ids), relation_keys=[STATED_IN], validity="all"))
    owners = sorted({f.subject_id for f in links})
    for profile in store.nodes(NodeQuery(scope=scope, ids=owners, types=[NodeType.INFO])) if owners else []:
        if (rewritten := without_turns(profile.name, profile.metadata, ids)) is not None:
            summary, metadata = rewritten
            store.update_node(profile.id, mem.clock(), summary=summary, metadata=metadata)


def _neighbours(mem: TrulyMem, episode_ids: list[str], hops: int = 2) -> list[Node]:
    """Messages up to ``hops`` before and after these (their text is in each other's context)."""
    store, scope = mem.store, mem.scope.user_wide()
    seen, frontier = set(episode_ids), list(episode_ids)
    for _ in range(hops):
        links = store.facts(FactQuery(scope=scope, node_ids=frontier, relation_keys=["next_message"], validity="all"))
        frontier = [n for f in links for n in (f.subject_id, f.object_id) if n not in seen]
        seen.update(frontier)
    near = [n for n in seen if n not in episode_ids]
    return store.nodes(NodeQuery(scope=scope, ids=near, types=[NodeType.EPISODE])) if near else []
