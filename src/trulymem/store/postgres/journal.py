"""Journaled runs (what a dream changed, so it can be undone) and named locks in the PostgreSQL store."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from trulymem.store.base import Change, Run
from trulymem.store.postgres.connection import PostgresBase
from trulymem.store.postgres.rows import dump_json, load_json, opt, utc, utc_opt


class JournalMixin(PostgresBase):
    """Runs with their changes (``save_run``, ``runs``, ``run_changes``, ``mark_run_undone``) and locks."""

    def save_run(self, run: Run, changes: Sequence[Change], first_seq: int = 0) -> None:
        self._lock_users([run.user_id])
        self._q("INSERT INTO runs(user_id, id, kind, agent_id, app_id, created_at, undone_at, summary) "
                "VALUES (%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (user_id, id) DO UPDATE SET summary = excluded.summary",
                (run.user_id, run.id, run.kind, run.agent_id or "", run.app_id or "", run.created_at, run.undone_at,
                 dump_json(run.summary)))
        self._many("INSERT INTO run_changes(user_id, run_id, seq, record, item_id, action, before, after) "
                   "VALUES (%s,%s,%s,%s,%s,%s,%s,%s)",
                   [(run.user_id, run.id, i, c.record, c.item_id, c.action,
                     None if c.before is None else dump_json(c.before), None if c.after is None else dump_json(c.after))
                    for i, c in enumerate(changes, first_seq)])

    def runs(self, user_id: str, kind: str, limit: int = 20) -> list[Run]:
        rows = self._q("SELECT id, kind, user_id, agent_id, app_id, created_at, undone_at, summary FROM runs "
                       "WHERE user_id = %s AND kind = %s ORDER BY created_at DESC, id DESC LIMIT %s",
                       (user_id, kind, limit))
        return [Run(id=r[0], kind=r[1], user_id=r[2], agent_id=opt(r[3]), app_id=opt(r[4]), created_at=utc(r[5]),
                    undone_at=utc_opt(r[6]), summary=load_json(r[7])) for r in rows]

    def run_changes(self, run_id: str) -> list[Change]:
        rows = self._q("SELECT record, item_id, action, before, after FROM run_changes WHERE "
                       "(user_id, run_id) IN (SELECT user_id, id FROM runs WHERE id = %s) ORDER BY seq", (run_id,))
        return [Change(record=r[0], item_id=r[1], action=r[2], before=load_json(r[3]) if r[3] else None,
                       after=load_json(r[4]) if r[4] else None) for r in rows]

    def mark_run_undone(self, run_id: str, at: datetime) -> None:
        self._q("UPDATE runs SET undone_at = %s WHERE id = %s", (at, run_id))

    def try_lock(self, name: str, owner: str, now: datetime, ttl_s: float) -> str | None:
        with self.transaction():
            # the row lock (FOR UPDATE, or the insert's) makes the check and the take one step
            self._q("INSERT INTO locks(name, owner, acquired_at, expires_at) VALUES (%s, '', %s, %s) "
                    "ON CONFLICT (name) DO NOTHING", (name, now, now))
            holder, expires = self._q("SELECT owner, expires_at FROM locks WHERE name = %s FOR UPDATE", (name,))[0]
            if holder and holder != owner and expires > now:
                return str(holder)
            self._q("UPDATE locks SET owner = %s, acquired_at = %s, expires_at = %s WHERE name = %s",
                    (owner, now, now + timedelta(seconds=ttl_s), name))
            return None

    def unlock(self, name: str, owner: str) -> None:
        with self.transaction():
            self._q("DELETE FROM locks WHERE name = %s AND owner = %s", (name, owner))
