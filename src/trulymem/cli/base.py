"""What every command shares: the ``main`` click group, the common options and
their ``Ctx``, output (``out``/``err``, ``emit``) and errors as one line.

The command modules import this one and register on ``main``; this module imports
none of them. ``main`` imports a command's module only when that command runs (see
``LazyGroup``), and this module imports nothing heavy (rich, pydantic, the store):
``trulymem --help`` and light commands start in a fraction of the time."""

from __future__ import annotations

import functools
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from trulymem import __version__
from trulymem.errors import InvalidInput, TrulyMemError

if TYPE_CHECKING:
    from rich.console import Console

    from trulymem.config import Settings
    from trulymem.graph import TrulyMem

# command -> (module under trulymem.cli that registers it, its summary for `trulymem --help`);
# tests/test_cli_start.py checks both against the real commands
COMMANDS: dict[str, tuple[str, str]] = {
    "bench": ("bench", "Benchmarks (figures, not tests)."),
    "chat": ("chat", "Chat with an agent that remembers through the graph only (no message history)."),
    "commit": ("memory", "Store a fact: SUBJECT RELATION OBJECT, all three (or many with --file and none)."),
    "config": ("dream", "Inspect trulymem's configuration."),
    "demo": ("demo", "Replay the idiom-chain example (为所欲为 → 为虎作伥) through the real tools."),
    "dream": ("dream", "Consolidate memories: merge near-duplicates, resolve contradictions, prune stale ones."),
    "export": ("database", "Write memories as JSON lines to FILE (default stdout)."),
    "history": ("memory", "Every version of SUBJECT's facts (optionally one RELATION), oldest first."),
    "import": ("database", "Read JSON lines written by `export` (all or nothing; identical rows are skipped)."),
    "keys": ("serve", "API keys for `trulymem serve` (stored hashed in the database)."),
    "migrate": ("migrate", "Copy a whole database to another backend, exactly (SQLite <-> PostgreSQL)."),
    "mcp": ("serve", "Serve the memory tools over MCP on stdio (for Claude Desktop, Cursor, Claude Code …)."),
    "persona": ("working", "The AI's persona."),
    "purge": ("memory", "Invalidate (soft), correct (supersede) or delete (hard) facts matching ALL criteria."),
    "recall": ("memory", "Recall memories for QUERY (comma/space separated intents; empty: persona and tasks)."),
    "reindex": ("database", "Give every node a vector of --embedder's model and search those from then on."),
    "serve": ("serve", "Serve the web app at /, the HTTP API (OpenAPI docs at /docs) and MCP over streamable HTTP at /mcp."),
    "stats": ("database", "Counts by node type, fact kind and validity."),
    "task": ("working", "The working-memory task chain."),
    "tools": ("serve", "Print the memory tools' JSON schemas for an LLM API."),
}


class LazyGroup(click.Group):
    """A group whose commands live in modules imported when the command runs. Its help
    lists them from ``COMMANDS``: importing every module to print one line each was
    most of the second `trulymem --help` took."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            importlib.import_module(f"trulymem.cli.{COMMANDS[cmd_name][0]}")
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            cmd = self.commands.get(name) or click.Command(name, help=COMMANDS[name][1])
            if not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trulymem")
def main() -> None:
    """trulymem: long-term graph memory for LLM agents.

    Memories are triplets (subject) -[relation]-> (object) in one SQLite file.
    Try `trulymem demo` for the idiom-chain walkthrough.
    """


class _Output:
    """stdout or stderr. Plain text goes out through click; rich (~60 ms to import) is
    loaded only for tables, styled text and progress bars (``.rich``)."""

    def __init__(self, stderr: bool) -> None:
        self.stderr = stderr
        self._rich: Console | None = None

    @property
    def rich(self) -> Console:
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(stderr=self.stderr, highlight=False, soft_wrap=True, markup=False)
        return self._rich

    def print(self, *objects: Any, markup: bool | None = None, style: str | None = None, **kwargs: Any) -> None:
        if style is None and not kwargs and all(isinstance(o, str) for o in objects):
            click.echo(" ".join(objects), err=self.stderr)
        else:
            self.rich.print(*objects, markup=markup, style=style, **kwargs)

    @property
    def is_terminal(self) -> bool:
        stream = sys.stderr if self.stderr else sys.stdout
        return bool(getattr(stream, "isatty", lambda: False)())


out = _Output(stderr=False)
err = _Output(stderr=True)

EMBEDDER_HELP = ("Embedder of recall vectors: auto (the model this database's vectors come from; hashing for a "
                 "new one), hashing, use, e5, openai:<model>, st:<path>, model2vec:<path>, or none (full text "
                 "only). A database searches one model: switch with `trulymem reindex --embedder NAME`.")


class Ctx:
    def __init__(self, settings: Settings, session: str | None, as_json: bool) -> None:
        self.settings, self.as_json = settings, as_json
        self.session = session

    def mem(self, *, register_default: bool = True, existing: bool = False) -> TrulyMem:
        """The memory of the chosen scope. The default user exists from the start: on a fresh
        install, reading it shows an empty memory, not an "unknown user" error (a user
        named on purpose that nobody has written for still is one: usually a typo).
        ``register_default=False`` for commands that must not add that user (an import
        brings its own user rows, a whole-database export must not grow one).
        ``existing``: a command that only reads never creates a database file: where none
        exists yet it reads an empty memory and says so (a mistyped --db leaves nothing behind)."""
        from trulymem.config import DEFAULT_USER
        from trulymem.graph import TrulyMem

        s = self.settings
        db: Any = s.db
        if existing and "://" not in db and db != ":memory:" and not Path(db).exists():
            if not self.as_json:
                err.print(f"(no database at {db} yet: an empty memory; a command that writes creates it)",
                          markup=False)
            from trulymem.store import open_store

            db = open_store(":memory:")  # a store, not ":memory:": a user named on purpose is still checked
        mem = TrulyMem(db, user_id=s.user, agent_id=s.agent, app_id=s.app, session_id=self.session,
                       embedder=None if s.embedder == "none" else s.embedder)
        try:
            if register_default and s.user == DEFAULT_USER and not mem.user_exists():
                mem.ensure_user()
        except BaseException:
            mem.close()
            raise
        return mem


def fail(exc: TrulyMemError, as_json: bool = False) -> NoReturn:
    """Print ``exc`` as one line and exit: 2 for bad input, else 1. With ``as_json`` the
    line is ``{"error": {...}}`` on stdout, where the command's JSON would have been."""
    if as_json:
        click.echo(json.dumps({"error": exc.to_dict()}, ensure_ascii=False))
    else:
        err.print(f"Error: {exc}")
    sys.exit(2 if isinstance(exc, InvalidInput) else 1)


def common(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Shared options; the wrapped command receives a ``Ctx`` as ``ctx`` and errors print as one line."""

    @click.option("--db", envvar="TRULYMEM_DB", help="Database file or postgresql:// URL "
              "(default: config file, then the user data dir).")
    @click.option("--user", "user", envvar="TRULYMEM_USER", help="User id whose memory to use [default: default].")
    @click.option("--agent", envvar="TRULYMEM_AGENT", help="Agent id (scope).")
    @click.option("--app", envvar="TRULYMEM_APP", help="App/project id (scope).")
    @click.option("--session", envvar="TRULYMEM_SESSION", help="Session id recorded on every write (provenance).")
    @click.option("--embedder", envvar="TRULYMEM_EMBEDDER", help=EMBEDDER_HELP)
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output (errors too).")
    @functools.wraps(fn)
    def wrapper(db: str | None, user: str | None, agent: str | None, app: str | None, session: str | None,
                embedder: str | None, as_json: bool, **kwargs: Any) -> None:
        from trulymem.config import Settings

        try:
            ctx = Ctx(Settings.load(db=db, user=user, agent=agent, app=app, embedder=embedder), session, as_json)
            fn(ctx=ctx, **kwargs)
        except TrulyMemError as exc:
            fail(exc, as_json)

    return wrapper


def emit(ctx: Ctx, result: Any, human: Callable[[], None]) -> None:
    """Print ``result`` (a pydantic model, dict or list) as JSON with ``--json``, else call ``human``."""
    if ctx.as_json:
        data = result.model_dump(mode="json") if hasattr(result, "model_dump") else result
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
    else:
        human()


def json_arg(value: str | None, name: str) -> dict[str, Any]:
    if not value:
        return {}
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"is not valid JSON: {exc.msg}", field=name) from None
    if not isinstance(data, dict):
        raise InvalidInput("must be a JSON object", field=name)
    return data


def read_text(file: Any) -> str:
    try:
        return str(file.read())
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"is not UTF-8 text ({exc.reason} at byte {exc.start})", field="file") from None
