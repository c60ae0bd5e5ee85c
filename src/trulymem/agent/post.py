"""Work done after the reply: the model summarizes recorded turns and extracts what the
user stated, in batches, on a background thread — never between the user and the
reply, never blocking the next turn's recall.

Nothing is lost on exit: a turn waiting for this work is marked ``post: pending``
in its record, ``close()`` finishes the queue, and an agent opened later on the
same memory picks up whatever a killed process left.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from trulymem.agent.extract import Statement, TurnText, extract_messages, parse_extraction
from trulymem.agent.record import turn_nodes, write_statements, writing
from trulymem.errors import TrulyMemError
from trulymem.graph import TrulyMem
from trulymem.llm.base import LLM
from trulymem.model import Node, NodeType
from trulymem.recall.chain import DESCRIPTION, TURN_KIND, is_turn
from trulymem.store.base import NodeQuery
from trulymem.text import name_key
from trulymem.tools.tasks import description_of

log = logging.getLogger(__name__)
Check = Callable[[str, Statement], Statement]  # (what the user said, item) -> item, marked if not stated
MAX_ATTEMPTS = 3


class PostTurn:
    """A queue of recorded turns and one worker thread that empties it through ``llm``."""

    def __init__(self, mem: TrulyMem, llm: LLM, check: Check, *, batch: int = 4, idle_seconds: float = 10.0,
                 resume_scan: int = 500) -> None:
        self.mem, self.llm, self.check = mem, llm, check
        self.batch, self.idle_seconds = max(1, batch), idle_seconds
        self.errors: list[str] = []
        self.calls = 0
        self._pending: list[str] = []
        self._busy = False
        self._flush = False
        self._stop = False
        self._last = time.monotonic()
        self._cond = threading.Condition()
        with mem.store.transaction(write=False):
            leftover = [n.name for n in reversed(turn_nodes(mem, resume_scan))
                        if is_turn(n) and n.metadata.get("post") == "pending"]
        self._pending += leftover
        self._thread = threading.Thread(target=self._run, name="trulymem-post-turn", daemon=True)
        self._thread.start()

    def submit(self, task_id: str) -> None:
        with self._cond:
            self._pending.append(task_id)
            self._last = time.monotonic()
            self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Process every queued turn now and wait; False if ``timeout`` ran out first."""
        with self._cond:
            self._flush = True
            self._cond.notify_all()
            return self._cond.wait_for(lambda: not self._pending and not self._busy, timeout)

    def close(self, timeout: float | None = None) -> None:
        """Finish the queue, then stop the thread (what is left stays pending in memory)."""
        self.flush(timeout)
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(timeout)

    # --- the worker ----------------------------------------------------------------
    def _due(self) -> bool:
        if self._stop or (self._flush and self._pending) or len(self._pending) >= self.batch:
            return True
        return bool(self._pending) and time.monotonic() - self._last >= self.idle_seconds

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(self._due, timeout=self.idle_seconds)
                if self._stop and not self._pending:
                    return
                if not self._due():
                    continue
                take, self._pending = self._pending[: self.batch], self._pending[self.batch:]
                self._busy = True
            try:
                failed = self._process(take)
            except Exception as exc:  # a worker thread must not die silently: keep the turns pending
                log.exception("post-turn work failed")
                self.errors.append(f"{type(exc).__name__}: {exc}")
                failed = True
            with self._cond:
                self._busy = False
                if not self._pending:
                    self._flush = False
                if failed and self._stop:
                    self._pending.clear()  # left pending in memory for the next agent
                self._cond.notify_all()

    def _process(self, task_ids: list[str]) -> bool:
        """One model call for the batch; returns True when it failed (turns stay pending)."""
        with self.mem.store.transaction(write=False):
            nodes = self._records(task_ids)
            turns = [self._turn_text(i, n) for i, n in enumerate(nodes)]
        if not turns:
            return False
        try:
            self.calls += 1
            reply = self.llm.complete(extract_messages(turns)).content
            parsed = parse_extraction(reply, turns)
        except (TrulyMemError, ValueError) as exc:
            self.errors.append(f"post-turn model call: {exc}")
            self._note_attempt(nodes)
            return True
        with writing(self.mem):
            for t, node in zip(turns, nodes):
                summary, facts = parsed.get(t.index, (None, []))
                meta = node.metadata
                write_statements(self.mem, [self.check(t.user, s) for s in facts], turn_id=str(meta.get("turn_id")),
                                 message_ids=[f"{meta.get('turn_id')}:user"], source="llm-extract",
                                 session=str(meta.get("session") or "chat"))
                topic = meta.get("topic")
                text = f"[{topic}] {summary}" if summary and topic else summary or description_of(node)
                self.mem.store.update_node(node.id, self.mem.clock(), summary=node.summary,
                                           metadata={**meta, DESCRIPTION: text, "post": "done"})
        return False

    def _records(self, task_ids: list[str]) -> list[Node]:
        ns = self.mem.scope.writable().namespace()
        found = self.mem.store.nodes(NodeQuery(scope=ns, keys=[name_key(t) for t in task_ids], types=[NodeType.TASK]))
        return sorted((n for n in found if n.metadata.get("kind") == TURN_KIND and n.metadata.get("post") == "pending"),
                      key=lambda n: n.created_at)

    def _turn_text(self, index: int, node: Node) -> TurnText:
        turn = node.metadata.get("turn_id")
        ns = self.mem.scope.writable().namespace()
        eps = {n.key: n for n in self.mem.store.nodes(NodeQuery(
            scope=ns, keys=[name_key(f"{turn}:user"), name_key(f"{turn}:AI")], types=[NodeType.EPISODE]))}

        def text(key: str) -> str:
            n = eps.get(name_key(key))
            return (n.summary or "").split(": ", 1)[-1] if n else ""
        return TurnText(index, text(f"{turn}:user"), text(f"{turn}:AI"))

    def _note_attempt(self, nodes: list[Node]) -> None:
        with self.mem.store.transaction():
            for node in nodes:
                tries = int(node.metadata.get("attempts", 0)) + 1
                post = "failed" if tries >= MAX_ATTEMPTS else "pending"
                self.mem.store.update_node(node.id, self.mem.clock(), summary=node.summary,
                                           metadata={**node.metadata, "attempts": tries, "post": post})
                if post == "pending":
                    with self._cond:
                        self._pending.append(node.name)
