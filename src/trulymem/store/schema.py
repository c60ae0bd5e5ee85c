"""Named, transactional schema migrations for the SQLite store, recorded in the database."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

from trulymem.errors import SchemaError
from trulymem.text.normalize import rekeyed

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"

# Facts point at nodes by integer rowid: index entries a third the size of text
# ids, so bulk commits dirty (and write) far fewer index pages.


def _rekey_units(conn: sqlite3.Connection) -> None:
    """Node keys keep a unit's case after a number (``10 MB`` / ``10 Mb``, text/normalize.py)."""
    rows = conn.execute("SELECT rid, name, key FROM nodes WHERE name GLOB '*[0-9]*'").fetchall()
    conn.executemany("UPDATE nodes SET key = ? WHERE rid = ?", rekeyed(rows))


MIGRATIONS: list[tuple[int, str, str | Callable[[sqlite3.Connection], None]]] = [
    (
        1,
        "graph core",
        f"""
        CREATE TABLE users(
            user_id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL
        );
        CREATE TABLE nodes(
            rid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL REFERENCES users(user_id),
            agent_id TEXT NOT NULL DEFAULT '',
            app_id TEXT NOT NULL DEFAULT '',
            name TEXT NOT NULL,
            key TEXT NOT NULL,
            type TEXT NOT NULL,
            summary TEXT,
            metadata TEXT NOT NULL DEFAULT '{{}}',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE(user_id, agent_id, app_id, key)
        );
        CREATE INDEX nodes_user_type ON nodes(user_id, type, created_at);
        CREATE INDEX nodes_user_key ON nodes(user_id, key);
        CREATE TABLE facts(
            rid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL REFERENCES users(user_id),
            agent_id TEXT NOT NULL DEFAULT '',
            app_id TEXT NOT NULL DEFAULT '',
            session_id TEXT NOT NULL DEFAULT '',
            subject_rid INTEGER NOT NULL REFERENCES nodes(rid),
            relation TEXT NOT NULL,
            relation_key TEXT NOT NULL,
            object_rid INTEGER NOT NULL REFERENCES nodes(rid),
            kind TEXT NOT NULL,
            confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
            speculation INTEGER NOT NULL DEFAULT 0,
            pinned INTEGER NOT NULL DEFAULT 0,
            type TEXT,
            source TEXT,
            metadata TEXT NOT NULL DEFAULT '{{}}',
            turn_id TEXT,
            message_ids TEXT NOT NULL DEFAULT '[]',
            mention_count INTEGER NOT NULL DEFAULT 1,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            valid_at TEXT NOT NULL,
            invalid_at TEXT,
            superseded_by TEXT REFERENCES facts(id) ON DELETE SET NULL
        );
        -- one valid fact per triple: committing it again reinforces it
        CREATE UNIQUE INDEX facts_active_triple ON facts(subject_rid, relation_key, object_rid)
            WHERE invalid_at IS NULL;
        CREATE INDEX facts_subject ON facts(subject_rid, pinned, updated_at);
        CREATE INDEX facts_object ON facts(object_rid, pinned, updated_at);
        CREATE INDEX facts_user_relation ON facts(user_id, relation_key);
        CREATE INDEX facts_user_kind ON facts(user_id, kind, created_at);
        CREATE INDEX facts_user_created ON facts(user_id, created_at);
        -- rarely-set columns: partial indexes cost nothing on most inserts
        CREATE INDEX facts_user_type ON facts(user_id, type) WHERE type IS NOT NULL;
        CREATE INDEX facts_user_source ON facts(user_id, source) WHERE source IS NOT NULL;
        CREATE INDEX facts_superseded_by ON facts(superseded_by) WHERE superseded_by IS NOT NULL;
        -- doc: a node's own name and summary, ctx: text around it (an episode's neighbouring
        -- messages), ranked at half weight
        CREATE VIRTUAL TABLE nodes_fts USING fts5(doc, ctx, tokenize='{FTS_TOKENIZER}');
        CREATE VIRTUAL TABLE facts_fts USING fts5(doc, tokenize='{FTS_TOKENIZER}');
        """,
    ),
    (
        2,
        "node vectors",
        """
        CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        -- one embedding per node, of the model named in settings('embedder')
        CREATE TABLE node_vectors(
            node_rid INTEGER PRIMARY KEY REFERENCES nodes(rid) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            vec BLOB NOT NULL
        );
        CREATE INDEX node_vectors_user ON node_vectors(user_id);
        """,
    ),
    (
        3,
        "journaled runs and locks",
        """
        -- a batch of changes made as one unit (a dream), with every touched row's prior
        -- state, so it can be undone exactly
        CREATE TABLE runs(
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            user_id TEXT NOT NULL,
            agent_id TEXT NOT NULL DEFAULT '',
            app_id TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            undone_at TEXT,
            summary TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX runs_scope ON runs(user_id, kind, created_at);
        CREATE TABLE run_changes(
            run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            record TEXT NOT NULL,
            item_id TEXT NOT NULL,
            action TEXT NOT NULL,
            before TEXT,
            after TEXT,
            PRIMARY KEY(run_id, seq)
        );
        -- advisory locks with an expiry: a crashed holder does not block forever
        CREATE TABLE locks(
            name TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            acquired_at TEXT NOT NULL,
            expires_at TEXT NOT NULL
        );
        """,
    ),
    (
        4,
        "text vector cache",
        """
        -- vectors of memory texts by model, kept so a pass over every memory (the dream)
        -- encodes only what is new. Derived data, dropped when its text is no longer stored.
        -- part: the agent/app namespace the pass read ("*" for all)
        CREATE TABLE text_vectors(
            user_id TEXT NOT NULL,
            part TEXT NOT NULL,
            model TEXT NOT NULL,
            digest BLOB NOT NULL,
            vec BLOB NOT NULL,
            PRIMARY KEY(user_id, part, model, digest)
        ) WITHOUT ROWID;
        """,
    ),
    (
        5,
        "one task chain",
        """
        -- Concurrent task_create could fork the NEXT_TASK chain (a task with two successors).
        -- Keep each task's first-written successor and predecessor link and invalidate (never
        -- delete) the later duplicates, so the indexes below can hold. No semicolons in comments:
        -- migrate() splits statements on them.
        UPDATE facts SET invalid_at = strftime('%Y-%m-%dT%H:%M:%f000+00:00', 'now')
            WHERE kind = 'NEXT_TASK' AND invalid_at IS NULL AND rid NOT IN (
                SELECT min(rid) FROM facts WHERE kind = 'NEXT_TASK' AND invalid_at IS NULL GROUP BY subject_rid);
        UPDATE facts SET invalid_at = strftime('%Y-%m-%dT%H:%M:%f000+00:00', 'now')
            WHERE kind = 'NEXT_TASK' AND invalid_at IS NULL AND rid NOT IN (
                SELECT min(rid) FROM facts WHERE kind = 'NEXT_TASK' AND invalid_at IS NULL GROUP BY object_rid);
        -- the chain is a line: at most one current successor and one current predecessor per task
        CREATE UNIQUE INDEX facts_one_next_task ON facts(subject_rid)
            WHERE kind = 'NEXT_TASK' AND invalid_at IS NULL;
        CREATE UNIQUE INDEX facts_one_previous_task ON facts(object_rid)
            WHERE kind = 'NEXT_TASK' AND invalid_at IS NULL;
        """,
    ),
    (
        6,
        "node vectors by model",
        """
        -- Vectors are kept per model, so a reindex writes the new model's vectors beside the
        -- old ones in small transactions and switches settings('embedder') in one statement:
        -- readers search only the vectors of the model that setting names
        CREATE TABLE node_vectors_by_model(
            node_rid INTEGER NOT NULL REFERENCES nodes(rid) ON DELETE CASCADE,
            model TEXT NOT NULL,
            user_id TEXT NOT NULL,
            vec BLOB NOT NULL,
            PRIMARY KEY(node_rid, model)
        );
        INSERT INTO node_vectors_by_model(node_rid, model, user_id, vec)
            SELECT v.node_rid, s.value, v.user_id, v.vec FROM node_vectors v
            JOIN settings s ON s.key = 'embedder';
        DROP TABLE node_vectors;
        ALTER TABLE node_vectors_by_model RENAME TO node_vectors;
        CREATE INDEX node_vectors_user_model ON node_vectors(user_id, model);
        CREATE INDEX node_vectors_model ON node_vectors(model)
        """,
    ),
    (
        7,
        "no relation index",
        """
        -- Only a dream's one detection query and a purge by relation filtered facts by relation
        -- alone (every other relation filter comes with a subject, object or node, whose indexes
        -- answer it), while every commit paid this index, ~10% of a commit's CPU at 100k facts.
        -- Those two now read the user's current facts once
        DROP INDEX IF EXISTS facts_user_relation
        """,
    ),
    (8, "unit case in node keys", _rekey_units),
]

LATEST = MIGRATIONS[-1][0]


def migrate(conn: sqlite3.Connection) -> list[int]:
    """Apply pending migrations, each in its own transaction; returns the versions applied.

    Each step re-reads what is applied under the write lock, so several processes
    opening one new file at once apply every migration exactly once."""
    applied: list[int] = []
    for version, name, sql in MIGRATIONS:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations("
                "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            done = dict(conn.execute("SELECT version, name FROM schema_migrations").fetchall())
            _check_known(done)
            if version not in done:
                if callable(sql):
                    sql(conn)
                else:
                    for statement in sql.split(";"):
                        if statement.strip():
                            conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)",
                    (version, name, datetime.now(UTC).isoformat(timespec="microseconds")),
                )
                applied.append(version)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    return applied


def _check_known(done: dict[int, str]) -> None:
    known = {v: n for v, n, _ in MIGRATIONS}
    for version, name in sorted(done.items()):
        if version not in known and version > LATEST:
            raise SchemaError(
                f"database schema version {version} ({name!r}) is newer than this trulymem's ({LATEST}); "
                "upgrade trulymem"
            )
        if known.get(version) != name:
            raise SchemaError(
                f"database schema {version} ({name!r}) was made by a development build of trulymem that "
                "no release understands; export its memories with that build and import them here"
            )
