"""What every command shares: the ``main`` click group, the common options and
their ``Ctx``, output (``out``/``err``, ``emit``) and errors as one line.

The command modules import this one and register on ``main``; this module
imports none of them (``trulymem.cli`` imports them after it)."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click
from pydantic import BaseModel
from rich.console import Console

from trulymem import __version__
from trulymem.config import Settings
from trulymem.errors import InvalidInput, TrulyMemError
from trulymem.graph import TrulyMem

out = Console(highlight=False, soft_wrap=True, markup=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trulymem")
def main() -> None:
    """trulymem: long-term graph memory for LLM agents.

    Memories are triplets (subject) -[relation]-> (object) in one SQLite file.
    Try `trulymem demo` for the idiom-chain walkthrough.
    """


class Ctx:
    def __init__(self, settings: Settings, session: str | None, as_json: bool) -> None:
        self.settings, self.as_json = settings, as_json
        self.session = session

    def mem(self) -> TrulyMem:
        s = self.settings
        return TrulyMem(s.db, user_id=s.user, agent_id=s.agent, app_id=s.app, session_id=self.session,
                        embedder=None if s.embedder == "none" else s.embedder)


def fail(exc: TrulyMemError, as_json: bool = False) -> NoReturn:
    """Print ``exc`` as one line (a JSON object with ``as_json``) and exit: 2 for bad input, else 1."""
    if as_json:
        click.echo(json.dumps({"error": exc.to_dict()}, ensure_ascii=False))
    else:
        err.print(f"Error: {exc}", markup=False)
    sys.exit(2 if isinstance(exc, InvalidInput) else 1)


def common(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Shared options; the wrapped command receives a ``Ctx`` as ``ctx`` and errors print as one line."""

    @click.option("--db", envvar="TRULYMEM_DB", help="Database file (default: config file, then the user data dir).")
    @click.option("--user", "user", envvar="TRULYMEM_USER", help="User id whose memory to use [default: default].")
    @click.option("--agent", envvar="TRULYMEM_AGENT", help="Agent id (scope).")
    @click.option("--app", envvar="TRULYMEM_APP", help="App/project id (scope).")
    @click.option("--session", envvar="TRULYMEM_SESSION", help="Session id recorded on every write (provenance).")
    @click.option("--embedder", envvar="TRULYMEM_EMBEDDER",
                  help="auto (default: best installed), hashing, use, openai:<model>, st:<path>, model2vec:<path>, none.")
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
    @functools.wraps(fn)
    def wrapper(db: str | None, user: str | None, agent: str | None, app: str | None, session: str | None,
                embedder: str | None, as_json: bool, **kwargs: Any) -> None:
        try:
            ctx = Ctx(Settings.load(db=db, user=user, agent=agent, app=app, embedder=embedder), session, as_json)
            fn(ctx=ctx, **kwargs)
        except TrulyMemError as exc:
            fail(exc, as_json)

    return wrapper


def emit(ctx: Ctx, result: BaseModel | dict[str, Any] | list[Any], human: Callable[[], None]) -> None:
    if ctx.as_json:
        data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
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
