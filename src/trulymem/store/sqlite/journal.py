"""Journaled runs (what a dream changed, so it can be undone) and named locks in the SQLite store."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from trulymem.store.base import Change, Run
from trulymem.store.sqlite.connection import SQLiteBase
from trulymem.store.sqlite.rows import dt, dump_json, load_json, opt, ts


class JournalMixin(SQLiteBase):
    """Runs with their changes (``save_run``, ``runs``, ``run_changes``, ``mark_run_undone``) and locks."""

    def save_run(self, run: Run, changes: Sequence[Change], first_seq: int = 0) -> None:
        self._q("INSERT INTO runs(id, kind, user_id, agent_id, app_id, created_at, undone_at, summary) "
                "VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET summary = excluded.summary",
                (run.id, run.kind, run.user_id, run.agent_id or "", run.app_id or "", ts(run.created_at),
                 ts(run.undone_at) if run.undone_at else None, dump_json(run.summary)))
        self._many("INSERT INTO run_changes(run_id, seq, record, item_id, action, before, after) "
                   "VALUES (?,?,?,?,?,?,?)",
                   [(run.id, i, c.record, c.item_id, c.action, None if c.before is None else dump_json(c.before),
                     None if c.after is None else dump_json(c.after)) for i, c in enumerate(changes, first_seq)])

    def runs(self, user_id: str, kind: str, limit: int = 20) -> list[Run]:
        rows = self._q("SELECT id, kind, user_id, agent_id, app_id, created_at, undone_at, summary FROM runs "
                       "WHERE user_id = ? AND kind = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                       (user_id, kind, limit))
        return [Run(id=r[0], kind=r[1], user_id=r[2], agent_id=opt(r[3]), app_id=opt(r[4]), created_at=dt(r[5]),
                    undone_at=dt(r[6]) if r[6] else None, summary=load_json(r[7])) for r in rows]

    def run_changes(self, run_id: str) -> list[Change]:
        rows = self._q("SELECT record, item_id, action, before, after FROM run_changes WHERE run_id = ? ORDER BY seq",
                       (run_id,))
        return [Change(record=r[0], item_id=r[1], action=r[2], before=load_json(r[3]) if r[3] else None,
                       after=load_json(r[4]) if r[4] else None) for r in rows]

    def mark_run_undone(self, run_id: str, at: datetime) -> None:
        self._q("UPDATE runs SET undone_at = ? WHERE id = ?", (ts(at), run_id))

    def try_lock(self, name: str, owner: str, now: datetime, ttl_s: float) -> str | None:
        with self.transaction():
            row = self._q("SELECT owner, expires_at FROM locks WHERE name = ?", (name,))
            if row and row[0][0] != owner and row[0][1] > ts(now):
                return str(row[0][0])
            self._q("INSERT OR REPLACE INTO locks(name, owner, acquired_at, expires_at) VALUES (?, ?, ?, ?)",
                    (name, owner, ts(now), ts(now + timedelta(seconds=ttl_s))))
            return None

    def unlock(self, name: str, owner: str) -> None:
        with self.transaction():
            self._q("DELETE FROM locks WHERE name = ? AND owner = ?", (name, owner))
