"""``trulymem demo``: the idiom-chain walkthrough through the real tools."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import click

from trulymem.cli.base import Ctx, common, main, out
from trulymem.config import DEFAULT_USER
from trulymem.errors import Conflict


@main.command()
@common
def demo(ctx: Ctx) -> None:
    """Replay the idiom-chain example (为所欲为 → 为虎作伥) through the real tools.

    Uses a fresh database file, removed at the end, unless --db is given on the command
    line: that file is kept to look around in, and must not yet hold memories for the
    user (the demo never mixes into real ones)."""
    if _explicit_db():
        _run(ctx, ctx.settings.db, keep=True)
        return
    with tempfile.TemporaryDirectory(prefix="trulymem-demo-") as tmp:
        _run(ctx, str(Path(tmp) / "demo.db"), keep=False)


def _run(ctx: Ctx, db: str, keep: bool) -> None:
    from trulymem.demo import run_demo
    from trulymem.graph import TrulyMem

    with TrulyMem(db, user_id=ctx.settings.user) as mem:
        if mem.user_exists():
            raise Conflict(f"{db} already holds memories for user {ctx.settings.user!r}; the demo needs an empty "
                           "one (leave out --db for a fresh file, or pass another --user)", field="db")
        turns = run_demo(mem, emit=(lambda _: None) if ctx.as_json else out.print)
        chain = mem.task_list(kind="all")  # the whole chain: tasks and the turns between them
    if ctx.as_json:
        click.echo(json.dumps({"db": db if keep else None, "turns": [
            {"user": t.user, "reply": t.reply, "steps": [{"tool": s.tool, "args": s.args, "result": s.result}
                                                          for s in t.steps]} for t in turns],
            "chain": chain.model_dump(mode="json")}, ensure_ascii=False, indent=2))
        return
    out.print("")
    out.print(f"Task chain now: {' → '.join(t.task_id + ' [' + (t.state or '?') + ']' for t in reversed(chain.tasks))}")
    if not keep:
        out.print("The demo's database is removed now; run `trulymem demo --db demo.db` to keep it and look around.")
        return
    out.print(f"Database: {db}")
    user = "" if ctx.settings.user == DEFAULT_USER else f" --user {ctx.settings.user}"
    out.print(f"Look around:  trulymem recall idiom_chain_current --db {db}{user}")
    out.print(f"              trulymem history idiom_chain_current --db {db}{user}")


def _explicit_db() -> bool:
    ctx = click.get_current_context()
    src = ctx.get_parameter_source("db")
    return src is not None and src.name == "COMMANDLINE"
