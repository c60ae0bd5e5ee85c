"""``trulymem migrate --from SOURCE --to DESTINATION``: move a whole database between
backends (a SQLite file and a PostgreSQL URL, either way), exactly.

The destination must hold no memories. Every user, node and fact goes over in one
transaction through the same export/import rows ``trulymem export``/``import`` use (so
ids, times and storage order are kept); then the settings (API keys), the journal of
dream and edit runs (so they can still be undone) and the node vectors, re-encoded
with the source's model. Last, the destination's export is compared with the source's:
the command fails unless they are equal row for row."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from trulymem.cli.base import Ctx, common, emit, err, main, out
from trulymem.cli.progress import progress
from trulymem.errors import Conflict, InvalidInput, StoreError
from trulymem.model import Scope
from trulymem.store.base import Change, Run, Store
from trulymem.store.nul import nul_path

RUN_KINDS = ("dream", "web")  # the journaled run kinds (dream/run.py, web/edits.py)
_NOT_COPIED = ("embedder", "reindex.")  # the destination's own vector state


def migrate_database(src: Store, dst: Store, *, embedder: str | None = "auto",
                     progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Copy everything in ``src`` into the empty ``dst`` and check that both export the same."""
    from trulymem.transfer import check_rows

    everyone = Scope.everyone()
    with src.transaction(write=False):
        rows = list(src.export_rows(everyone))
        settings = {k: v for k, v in src.settings("").items() if not k.startswith(_NOT_COPIED)}
        users = [r["user_id"] for r in rows if r["record"] == "user"]
        runs = [(run, src.run_changes(run.id)) for u in users for kind in RUN_KINDS for run in src.runs(u, kind, 10**9)]
        model = src.embedding_model()
    _refuse_nul(rows, settings, runs)  # before anything is written: the destination stays empty
    step = progress or (lambda done, total: None)
    with dst.transaction():
        if dst.stats(everyone).users or any(True for _ in dst.export_rows(everyone)):
            raise Conflict("the destination already holds memories: migrate into an empty database", field="to")
        check_rows(dst, rows, everyone)
        counts = dst.import_rows(rows, progress=lambda done: step(done, len(rows)))
        for key, value in settings.items():
            dst.put_setting(key, value)
        for run, changes in reversed(runs):  # oldest first, as they were written
            dst.save_run(run, changes)
    counts["settings"], counts["runs"] = len(settings), len(runs)
    counts["embedded"] = _embed(dst, model, embedder)
    with dst.transaction(write=False):
        again = list(dst.export_rows(everyone))
    if again != rows:
        first = next((i for i, (a, b) in enumerate(zip(rows, again)) if a != b), min(len(rows), len(again)))
        raise StoreError(f"the copy differs from the source at row {first + 1} of {len(rows)}; "
                         "the destination is left for inspection")
    counts["rows"] = len(rows)
    return counts


def _refuse_nul(rows: list[dict[str, Any]], settings: dict[str, str],
                runs: list[tuple[Run, list[Change]]]) -> None:
    """``InvalidInput`` naming the first source record holding a NUL character (written before
    trulymem refused them, or by hand): PostgreSQL cannot store one, and trulymem refuses them
    on every backend now (``trulymem.store.nul``)."""
    fix = ("nothing was copied. Remove the character in the source — `trulymem export` it, delete the NUL "
           "(\\u0000 in the JSON line) or the record, `trulymem import` into a fresh database — and migrate that")
    for i, row in enumerate(rows, 1):
        where = nul_path(row)
        if where is not None:
            what = f"{row.get('record')} {row.get('id') or row.get('user_id')!r} of user {row.get('user_id')!r}"
            raise InvalidInput(f"row {i} of {len(rows)} ({what}) has a NUL character (U+0000) in {where}, which "
                               f"trulymem no longer stores (PostgreSQL cannot); {fix}", field="from")
    where = nul_path(settings)
    if where is not None:
        raise InvalidInput(f"setting {where!r} has a NUL character (U+0000); {fix}", field="from")
    for run, changes in runs:
        for c in changes:
            where = nul_path([c.before, c.after])
            if where is not None:
                raise InvalidInput(f"the journal of {run.kind} run {run.id} (user {run.user_id!r}) has a NUL "
                                   f"character (U+0000) in its change to {c.record} {c.item_id!r}; {fix}",
                                   field="from")


def _embed(dst: Store, model: str | None, choice: str | None) -> int:
    """Vectors for the copied nodes: the source's model unless told otherwise (none: none)."""
    from trulymem.embed import get_embedder
    from trulymem.embed.names import cli_name
    from trulymem.reindex import embed_missing

    if choice in (None, "none") or (choice == "auto" and model is None):
        return 0
    name = (cli_name(model) or model) if choice == "auto" and model is not None else choice
    return embed_missing(dst, get_embedder(name or "hashing"))


@main.command("migrate")
@click.option("--from", "source", required=True, help="The database to copy: a SQLite file or postgresql:// URL.")
@click.option("--to", "destination", required=True, help="An empty database to copy into (created if need be).")
@common
def migrate_cmd(ctx: Ctx, source: str, destination: str) -> None:
    """Copy a whole database to another backend, exactly (SQLite <-> PostgreSQL).

    Users, nodes, facts, API keys and the dream journal go over unchanged and the copy is
    checked against the source (their exports must be equal); node vectors are encoded
    again with the source's model (--embedder picks another, none skips them)."""
    from trulymem.store import is_url, open_store

    if source == destination:
        raise InvalidInput("--from and --to name the same database", field="to")
    if not is_url(source) and source != ":memory:":
        from pathlib import Path

        if not Path(source).expanduser().exists():
            raise InvalidInput(f"no database at {source}", field="from")
    with open_store(source) as src, open_store(destination) as dst, progress("migrating") as bar:
        counts = migrate_database(src, dst, embedder=ctx.settings.embedder, progress=bar)

    def human() -> None:
        out.print(f"copied {counts['users']} users, {counts['nodes']} nodes, {counts['facts']} facts, "
                  f"{counts['settings']} settings, {counts['runs']} runs; embedded {counts['embedded']} nodes")
        err.print("verified: the destination exports exactly what the source does")
    emit(ctx, counts, human)
