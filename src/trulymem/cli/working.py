"""Working memory: ``task`` (the task chain) and ``persona`` (the AI's persona)."""

from __future__ import annotations

from typing import Any

import click
from rich.table import Table

from trulymem.cli.base import Ctx, common, emit, main, out
from trulymem.errors import InvalidInput


@main.group()
def task() -> None:
    """The working-memory task chain."""


@task.command("create")
@click.argument("task_id")
@click.argument("description")
@click.option("--info", "info", multiple=True, help="Related memory node (repeatable).")
@common
def task_create(ctx: Ctx, task_id: str, description: str, info: tuple[str, ...]) -> None:
    """Add TASK_ID to the chain, in state in_progress."""
    with ctx.mem() as mem:
        res = mem.task_create(task_id, description, list(info) or None)
    emit(ctx, res, lambda: out.print(
        f"created {res.task_id} [{res.state}]" + (f" after {res.previous_task}" if res.previous_task else "")))


@task.command("state")
@click.argument("task_id")
@click.argument("state")
@common
def task_state(ctx: Ctx, task_id: str, state: str) -> None:
    """Set TASK_ID's STATE (in_progress, paused, completed, cancelled, archived)."""
    with ctx.mem() as mem:
        res = mem.task_set_state(task_id, state)
    emit(ctx, res, lambda: out.print(f"{res.task_id}: {res.previous_state} → {res.state}"
                                     + ("" if res.changed else " (unchanged)")))


@task.command("list")
@click.option("--limit", type=int, default=20, show_default=True)
@click.option("--state", help="Only tasks in this state.")
@click.option("--kind", type=click.Choice(["task", "turn", "all"]), default="task", show_default=True,
              help="Tasks, the records of conversation turns, or the whole chain.")
@common
def task_list(ctx: Ctx, limit: int, state: str | None, kind: str) -> None:
    """The task chain, newest first (turn records apart: --kind turn)."""
    with ctx.mem(existing=True) as mem:
        res = mem.task_list(limit=limit, state=state, kind=kind)

    def human() -> None:
        if not res.tasks:
            out.print("no tasks")
            return
        table = Table("task", "state", "description", "info", "after")
        for t in res.tasks:
            table.add_row(t.task_id, t.state or "?", t.description or "", ", ".join(t.info_nodes), t.previous_task or "")
        out.print(table)
    emit(ctx, res, human)


@main.group()
def persona() -> None:
    """The AI's persona."""


@persona.command("set")
@click.argument("pairs", nargs=-1, required=True, metavar="KEY=VALUE...")
@click.option("--replace", is_flag=True, help="The given attributes become the whole persona.")
@common
def persona_set(ctx: Ctx, pairs: tuple[str, ...], replace: bool) -> None:
    """Set persona attributes; repeat a KEY for a list (catchphrases=nya~ catchphrases=喵)."""
    attrs: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise InvalidInput(f"{pair!r} is not KEY=VALUE", field="attributes")
        if key in attrs:
            attrs[key] = (attrs[key] if isinstance(attrs[key], list) else [attrs[key]]) + [value]
        else:
            attrs[key] = value
    with ctx.mem() as mem:
        res = mem.persona_set(attrs, mode="replace" if replace else "merge")
    emit(ctx, res, lambda: _print_persona(res.attributes))


@persona.command("show")
@common
def persona_show(ctx: Ctx) -> None:
    """Show the current persona."""
    with ctx.mem(existing=True) as mem:
        res = mem.persona_get()
    emit(ctx, res, lambda: _print_persona(res.attributes))


def _print_persona(attrs: dict[str, Any]) -> None:
    if not attrs:
        out.print("no persona set")
    for k, v in attrs.items():
        out.print(f"{k}: {', '.join(v) if isinstance(v, list) else v}")
