"""Named, transactional schema migrations for the PostgreSQL store, recorded in the database.

Every table carries ``user_id`` in its primary key and in every foreign key, so each one can
be distributed by user (Citus ``create_distributed_table(…, 'user_id')``, docs/adr-postgres.md):
a user's rows live together and every join stays on one shard. The few tables that are not
per user (settings, locks, schema_migrations) are small reference tables.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trulymem.errors import SchemaError
from trulymem.text.normalize import rekeyed

if TYPE_CHECKING:
    import psycopg

# Text columns hold what the SQLite store holds (JSON as text, so exports are byte-identical);
# times are timestamptz. ``seq`` is storage order (exports, cursors), as SQLite's rowid.
# ``tsv`` is the pre-tokenised, stemmed text as a 'simple' tsvector (store/postgres/text.py).


def _rekey_units(conn: psycopg.Connection[Any]) -> None:
    """Node keys keep a unit's case after a number (``10 MB`` / ``10 Mb``, text/normalize.py)."""
    rows = conn.execute("SELECT user_id, id, name, key FROM nodes WHERE name ~ '[0-9]'").fetchall()
    new = rekeyed(((user, node), name, key) for user, node, name, key in rows)
    with conn.cursor() as cur:  # by primary key: each update stays on its user's shard
        cur.executemany("UPDATE nodes SET key = %s WHERE user_id = %s AND id = %s", [(k, *pk) for k, pk in new])


MIGRATIONS: list[tuple[int, str, str | Callable[[psycopg.Connection[Any]], None]]] = [
    (
        1,
        "graph core",
        """
        CREATE TABLE users(
            user_id text PRIMARY KEY,
            created_at timestamptz NOT NULL
        );
        CREATE TABLE nodes(
            user_id text NOT NULL REFERENCES users(user_id),
            id text NOT NULL,
            seq bigserial NOT NULL,
            agent_id text NOT NULL DEFAULT '',
            app_id text NOT NULL DEFAULT '',
            name text NOT NULL,
            key text NOT NULL,
            type text NOT NULL,
            summary text,
            metadata text NOT NULL DEFAULT '{}',
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            tsv tsvector NOT NULL DEFAULT ''::tsvector,
            PRIMARY KEY (user_id, id),
            UNIQUE (user_id, agent_id, app_id, key)
        );
        CREATE INDEX nodes_id ON nodes(id);
        CREATE INDEX nodes_seq ON nodes(seq);
        CREATE INDEX nodes_user_type ON nodes(user_id, type, created_at);
        CREATE INDEX nodes_user_created ON nodes(user_id, created_at);
        -- fastupdate off: a pending list makes every search scan what the last bulk commits added
        CREATE INDEX nodes_tsv ON nodes USING gin(tsv) WITH (fastupdate = off);
        CREATE TABLE facts(
            user_id text NOT NULL,
            id text NOT NULL,
            seq bigserial NOT NULL,
            agent_id text NOT NULL DEFAULT '',
            app_id text NOT NULL DEFAULT '',
            session_id text NOT NULL DEFAULT '',
            subject_id text NOT NULL,
            relation text NOT NULL,
            relation_key text NOT NULL,
            object_id text NOT NULL,
            kind text NOT NULL,
            confidence double precision NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
            speculation boolean NOT NULL DEFAULT false,
            pinned boolean NOT NULL DEFAULT false,
            type text,
            source text,
            metadata text NOT NULL DEFAULT '{}',
            turn_id text,
            message_ids text NOT NULL DEFAULT '[]',
            mention_count integer NOT NULL DEFAULT 1,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            valid_at timestamptz NOT NULL,
            invalid_at timestamptz,
            superseded_by text,
            tsv tsvector NOT NULL DEFAULT ''::tsvector,
            PRIMARY KEY (user_id, id),
            FOREIGN KEY (user_id, subject_id) REFERENCES nodes(user_id, id),
            FOREIGN KEY (user_id, object_id) REFERENCES nodes(user_id, id),
            FOREIGN KEY (user_id, superseded_by) REFERENCES facts(user_id, id) ON DELETE SET NULL (superseded_by)
        );
        -- one valid fact per triple: committing it again reinforces it
        CREATE UNIQUE INDEX facts_active_triple ON facts(user_id, subject_id, relation_key, object_id)
            WHERE invalid_at IS NULL;
        -- the task chain is a line: one current successor and one current predecessor per task
        CREATE UNIQUE INDEX facts_one_next_task ON facts(user_id, subject_id)
            WHERE kind = 'NEXT_TASK' AND invalid_at IS NULL;
        CREATE UNIQUE INDEX facts_one_previous_task ON facts(user_id, object_id)
            WHERE kind = 'NEXT_TASK' AND invalid_at IS NULL;
        CREATE INDEX facts_id ON facts(id);
        CREATE INDEX facts_seq ON facts(seq);
        CREATE INDEX facts_subject ON facts(user_id, subject_id, pinned, updated_at);
        CREATE INDEX facts_object ON facts(user_id, object_id, pinned, updated_at);
        CREATE INDEX facts_user_relation ON facts(user_id, relation_key);
        CREATE INDEX facts_user_kind ON facts(user_id, kind, created_at);
        CREATE INDEX facts_user_created ON facts(user_id, created_at);
        CREATE INDEX facts_user_type ON facts(user_id, type) WHERE type IS NOT NULL;
        CREATE INDEX facts_user_source ON facts(user_id, source) WHERE source IS NOT NULL;
        CREATE INDEX facts_user_session ON facts(user_id, session_id) WHERE session_id <> '';
        CREATE INDEX facts_superseded_by ON facts(user_id, superseded_by) WHERE superseded_by IS NOT NULL;
        CREATE INDEX facts_tsv ON facts USING gin(tsv) WITH (fastupdate = off);
        CREATE TABLE settings(key text PRIMARY KEY, value text NOT NULL);
        -- one vector per node and model; 'embedder' in settings names the searched model
        CREATE TABLE node_vectors(
            user_id text NOT NULL,
            node_id text NOT NULL,
            model text NOT NULL,
            seq bigserial NOT NULL,
            vec bytea NOT NULL,
            PRIMARY KEY (user_id, node_id, model),
            FOREIGN KEY (user_id, node_id) REFERENCES nodes(user_id, id) ON DELETE CASCADE
        );
        CREATE INDEX node_vectors_model ON node_vectors(model);
        -- bumped with every vector write, so a process's cached matrix knows when it is stale
        CREATE TABLE vector_epochs(
            user_id text NOT NULL PRIMARY KEY,
            epoch bigint NOT NULL DEFAULT 0
        );
        CREATE TABLE runs(
            user_id text NOT NULL,
            id text NOT NULL,
            kind text NOT NULL,
            agent_id text NOT NULL DEFAULT '',
            app_id text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL,
            undone_at timestamptz,
            summary text NOT NULL DEFAULT '{}',
            PRIMARY KEY (user_id, id)
        );
        CREATE INDEX runs_id ON runs(id);
        CREATE INDEX runs_scope ON runs(user_id, kind, created_at);
        CREATE TABLE run_changes(
            user_id text NOT NULL,
            run_id text NOT NULL,
            seq integer NOT NULL,
            record text NOT NULL,
            item_id text NOT NULL,
            action text NOT NULL,
            before text,
            after text,
            PRIMARY KEY (user_id, run_id, seq),
            FOREIGN KEY (user_id, run_id) REFERENCES runs(user_id, id) ON DELETE CASCADE
        );
        CREATE TABLE locks(
            name text PRIMARY KEY,
            owner text NOT NULL,
            acquired_at timestamptz NOT NULL,
            expires_at timestamptz NOT NULL
        );
        CREATE TABLE text_vectors(
            user_id text NOT NULL,
            part text NOT NULL,
            model text NOT NULL,
            digest bytea NOT NULL,
            vec bytea NOT NULL,
            PRIMARY KEY (user_id, part, model, digest)
        );
        """,
    ),
    (
        2,
        "no relation index",
        """
        -- Only a dream's one detection query and a purge by relation filtered facts by relation
        -- alone (every other relation filter comes with a subject, object or node, whose indexes
        -- answer it), while every commit paid this index. Those two now read the user's facts once.
        DROP INDEX IF EXISTS facts_user_relation;
        """,
    ),
    (
        3,
        "nodes by key",
        """
        -- Recall resolves the names in a question to nodes by key without an agent or app: the
        -- unique (user_id, agent_id, app_id, key) index cannot answer that, so every recall read
        -- all of the user's nodes (2-4 ms at 10k nodes, growing with them).
        CREATE INDEX IF NOT EXISTS nodes_user_key ON nodes(user_id, key);
        """,
    ),
    (
        4,
        "facts text pending list",
        """
        -- Each fact's few words (its relation, type, kind) are in thousands of other facts: with
        -- fastupdate off every insert walks those words' posting trees (~20 us of a fact's ~110 us
        -- on the server); a pending list merges them in bulk. A small one (256 kB, not 4 MB) keeps
        -- what a search must also scan short; the common-word fact search walks facts, not GIN.
        ALTER INDEX facts_tsv SET (fastupdate = on, gin_pending_list_limit = 256);
        """,
    ),
    (
        5,
        "facts by user in storage order",
        """
        -- The common-word fact search walks one user's facts back from the newest (a keyset on
        -- (user_id, seq), store/postgres/search.py); by facts_seq it stepped over every newer
        -- fact of every other user (14.8 ms against 4.0 for collecting the matches).
        CREATE INDEX IF NOT EXISTS facts_user_seq ON facts(user_id, seq);
        -- Listings by kind look for a structural kind (persona, task chain, states); plain facts,
        -- nearly all of them, are listed by facts_user_created, so they no longer pay this index.
        -- A new name, built before the old index goes: the DROP's exclusive lock (it blocks
        -- reads too) is then held only for the commit, and an operator can build both ahead
        -- CONCURRENTLY and drop the old one CONCURRENTLY (docs/adr-postgres.md).
        CREATE INDEX IF NOT EXISTS facts_user_structural ON facts(user_id, kind, created_at) WHERE kind <> 'FACT';
        DROP INDEX IF EXISTS facts_user_kind;
        """,
    ),
    (6, "unit case in node keys", _rekey_units),
]

LATEST = MIGRATIONS[-1][0]
_LOCK = 7_362_001  # advisory lock: one process migrates at a time


def migrate(conn: psycopg.Connection[Any]) -> list[int]:
    """Apply pending migrations, each in its own transaction; returns the versions applied.

    A transaction-scoped advisory lock serialises processes opening one new database. An
    up-to-date one is one read (every open of a store, every HTTP worker, pays it), not a
    locked transaction per migration."""
    done = _applied(conn)
    if done is not None:
        _check_known(done)
        if all(version in done for version, _, _ in MIGRATIONS):
            return []
    applied: list[int] = []
    for version, name, sql in MIGRATIONS:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
            conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations("
                         "version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)")
            done = {int(v): str(n) for v, n in conn.execute("SELECT version, name FROM schema_migrations").fetchall()}
            _check_known(done)
            if version not in done:
                if callable(sql):
                    sql(conn)
                else:
                    conn.execute(sql.encode())
                conn.execute("INSERT INTO schema_migrations(version, name, applied_at) VALUES (%s, %s, now())",
                             (version, name))
                applied.append(version)
    return applied


def _applied(conn: psycopg.Connection[Any]) -> dict[int, str] | None:
    """The recorded migrations, or None when nothing is recorded yet (a new database)."""
    import psycopg

    try:
        with conn.transaction():  # a failed read rolls back to here, whatever the connection's mode
            rows = conn.execute("SELECT version, name FROM schema_migrations").fetchall()
    except psycopg.errors.UndefinedTable:
        return None
    return {int(v): str(n) for v, n in rows}


def _check_known(done: dict[int, str]) -> None:
    known = {v: n for v, n, _ in MIGRATIONS}
    for version, name in sorted(done.items()):
        if version not in known and version > LATEST:
            raise SchemaError(f"database schema version {version} ({name!r}) is newer than this trulymem's "
                              f"({LATEST}); upgrade trulymem")
        if known.get(version) != name:
            raise SchemaError(f"database schema {version} ({name!r}) was made by a development build of "
                              "trulymem that no release understands")
