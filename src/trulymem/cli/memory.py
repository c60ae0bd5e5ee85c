"""Memory commands: ``commit``, ``recall``, ``purge`` and ``history``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

import click

from trulymem.cli.base import Ctx, common, emit, json_arg, main, out
from trulymem.errors import InvalidInput

if TYPE_CHECKING:
    from trulymem.graph import TrulyMem

BATCH = 5000  # triplets per memory_commit call (the tool's cap); a file is any number of batches
SHOWN = 100  # facts listed one per line; more are summed up


@main.command()
@click.argument("subject", required=False)
@click.argument("relation", required=False)
@click.argument("object_", metavar="[OBJECT]", required=False)
@click.option("--file", "file_", type=click.File("r", encoding="utf-8"),
              help="JSON lines (or a JSON list) of triplets, any number, committed in one transaction "
                   f"({BATCH:,} per tool call); '-' for stdin.")
@click.option("--confidence", type=float, help="0 to 1 [default: 1].")
@click.option("--speculation", is_flag=True, help="Mark as inferred, not stated.")
@click.option("--type", "type_", help="Category label, e.g. preference or session_state.")
@click.option("--pinned", is_flag=True, help="Pin the fact.")
@click.option("--subject-type", help="Node type of the subject (default EntityNode).")
@click.option("--object-type", help="Node type of the object (default EntityNode).")
@click.option("--metadata", help="JSON object of metadata.")
@common
def commit(ctx: Ctx, subject: str | None, relation: str | None, object_: str | None, file_: Any,
           confidence: float | None, speculation: bool, type_: str | None, pinned: bool,
           subject_type: str | None, object_type: str | None, metadata: str | None) -> None:
    """Store a fact: SUBJECT RELATION OBJECT, all three (or many with --file and none)."""
    if file_ is not None:
        if subject or relation or object_:
            raise InvalidInput("give either SUBJECT RELATION OBJECT or --file, not both", field="file")
        with ctx.mem() as mem:
            res = _commit_file(mem, file_)
    else:
        if not (subject and relation and object_):
            raise InvalidInput("needs SUBJECT RELATION OBJECT (or --file)", field="triplet")
        t: dict[str, Any] = {"subject": subject, "relation": relation, "object": object_,
                             "speculation": speculation, "pinned": pinned}
        for k, v in (("confidence", confidence), ("type", type_), ("subject_type", subject_type),
                     ("object_type", object_type)):
            if v is not None:
                t[k] = v
        if metadata:
            t["metadata"] = json_arg(metadata, "metadata")
        with ctx.mem() as mem:
            res = mem.commit([t]).model_dump(mode="json")

    def human() -> None:
        facts = res["facts"]
        for f in facts[:SHOWN] if len(facts) <= SHOWN else []:
            out.print(f"{f['status']:>10}  {f['text']}  ({f['id']})")
        if len(facts) > SHOWN:
            out.print(f"created {len(res['created'])}, reinforced {len(res['reinforced'])}"
                      + (f", superseded {len(res['superseded'])}" if res["superseded"] else "") + " facts")
    emit(ctx, res, human)


def _commit_file(mem: TrulyMem, file: Any) -> dict[str, Any]:
    """Commit every triplet of ``file``, read and committed ``BATCH`` at a time inside one
    transaction: all of them or, at the first bad one (named by its line), none."""
    merged: dict[str, Any] = {"created": [], "reinforced": [], "facts": [], "superseded": []}
    done = 0
    with mem.store.transaction():
        for batch in _batches(file):
            try:
                res = mem.commit([t for _, t in batch]).model_dump(mode="json")
            except InvalidInput as exc:
                raise _where(exc, batch, done) from None
            done += len(batch)
            for key, items in merged.items():
                items.extend(res[key])
    if not merged["facts"]:
        raise InvalidInput("holds no triplets", field="file")
    return merged


def _batches(file: Any) -> Iterator[list[tuple[str, Any]]]:
    """``(where, triplet)`` pairs of a JSON-lines file (``line 7``), ``BATCH`` at a time, read
    as they are committed; a JSON list (first character ``[``) is read whole (``item 7``)."""
    try:
        first, lineno = "", 0
        while not first.strip():
            first, lineno = file.readline(), lineno + 1
            if not first:
                return
        if first.lstrip().startswith("["):
            try:
                data = json.loads(first + file.read())
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"is not valid JSON: {exc.msg}", field="file") from None
            rows = data if isinstance(data, list) else [data]
            for i in range(0, len(rows), BATCH):
                yield [(f"item {j}", r) for j, r in enumerate(rows[i:i + BATCH], i + 1)]
            return
        batch: list[tuple[str, Any]] = []
        line = first
        while line:
            if line.strip():
                try:
                    batch.append((f"line {lineno}", json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise InvalidInput(f"line {lineno} is not valid JSON: {exc.msg}", field="file") from None
                if len(batch) == BATCH:
                    yield batch
                    batch = []
            line, lineno = file.readline(), lineno + 1
        if batch:
            yield batch
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"is not UTF-8 text ({exc.reason} at byte {exc.start})", field="file") from None


_TRIPLET_FIELD = re.compile(r"^triplets\.(\d+)(.*)$")


def _where(exc: InvalidInput, batch: list[tuple[str, Any]], offset: int) -> InvalidInput:
    """``exc`` of one batch, naming the file's line and the triplet's place in the whole file."""
    m = _TRIPLET_FIELD.match(exc.field or "")
    if m is None or int(m.group(1)) >= len(batch):
        return exc
    i = int(m.group(1))
    return InvalidInput(f"{batch[i][0]}: {exc.message}", field=f"triplets.{offset + i}{m.group(2)}")


def _when(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{value!r} is not an ISO date/time (e.g. 2026-05-01 or 2026-05-01T12:00)", field=name) from None


@main.command()
@click.argument("query", required=False, default="")
@click.option("--depth", type=int, default=2, show_default=True, help="Graph hops (0-3).")
@click.option("--limit", type=int, default=20, show_default=True, help="Most facts to return.")
@click.option("--seed", "seeds", multiple=True, help="Start from this node name (repeatable).")
@click.option("--as-of", help="What was valid at this ISO time.")
@click.option("--from", "from_", help="Only facts whose event time is at or after this ISO time.")
@click.option("--to", help="Only facts whose event time is at or before this ISO time.")
@click.option("--include-invalid", is_flag=True, help="Also show corrected/forgotten facts.")
@click.option("--preset", type=click.Choice(["fast", "balanced", "deep"]), default="balanced", show_default=True)
@click.option("--max-tokens", type=int, help="Cut the result to fit this many tokens, best first.")
@common
def recall(ctx: Ctx, query: str, depth: int, limit: int, seeds: tuple[str, ...], as_of: str | None,
           from_: str | None, to: str | None, include_invalid: bool, preset: str, max_tokens: int | None) -> None:
    """Recall memories for QUERY (comma/space separated intents; empty: persona and tasks)."""
    time_range = None
    if from_ or to:
        time_range = {"start": _when(from_, "from"), "end": _when(to, "to")}
    with ctx.mem(existing=True) as mem:
        res = mem.recall(query, depth=depth, limit=limit, seed_entities=list(seeds) or None,
                         as_of=_when(as_of, "as_of"), include_invalid=include_invalid, time_range=time_range,
                         preset=preset, max_tokens=max_tokens)
    emit(ctx, res, lambda: out.print(res.text))


@main.command()
@click.option("--id", "ids", multiple=True, help="Exact fact id (repeatable).")
@click.option("--subject", help="Exact subject name.")
@click.option("--relation", help="Exact relation.")
@click.option("--object", "object_", help="Exact object name.")
@click.option("--subject-contains", help="Substring of the subject.")
@click.option("--relation-contains", help="Substring of the relation.")
@click.option("--object-contains", help="Substring of the object.")
@click.option("--kind", help="Edge kind, e.g. FACT or HAS_STATE.")
@click.option("--type", "type_", help="Category label.")
@click.option("--source", help="Source label.")
@click.option("--in-session", help="Only facts written in this session.")
@click.option("--include-invalid", is_flag=True, help="Also match already-invalid facts (hard mode).")
@click.option("--mode", type=click.Choice(["soft", "supersede", "hard"]), default="soft", show_default=True)
@click.option("--replace-object", help="supersede: the corrected object.")
@click.option("--replace-subject", help="supersede: subject of the replacement (default: the matched one).")
@click.option("--replace-relation", help="supersede: relation of the replacement (default: the matched one).")
@click.option("--confirm", is_flag=True, help="Required for --mode hard: rows are deleted for good.")
@click.option("--dry-run", is_flag=True, help="Only show what would be affected.")
@common
def purge(ctx: Ctx, ids: tuple[str, ...], subject: str | None, relation: str | None, object_: str | None,
          subject_contains: str | None, relation_contains: str | None, object_contains: str | None,
          kind: str | None, type_: str | None, source: str | None, in_session: str | None,
          include_invalid: bool, mode: str,
          replace_object: str | None, replace_subject: str | None, replace_relation: str | None,
          confirm: bool, dry_run: bool) -> None:
    """Invalidate (soft), correct (supersede) or delete (hard) facts matching ALL criteria."""
    criteria: dict[str, Any] = {k: v for k, v in dict(
        ids=list(ids) or None, subject=subject, relation=relation, object=object_,
        subject_contains=subject_contains, relation_contains=relation_contains, object_contains=object_contains,
        kind=kind, type=type_, source=source, session_id=in_session).items() if v is not None}
    if include_invalid:
        criteria["include_invalid"] = True
    replacement = None
    if any(v is not None for v in (replace_object, replace_subject, replace_relation)):
        replacement = {k: v for k, v in dict(object=replace_object, subject=replace_subject,
                                            relation=replace_relation).items() if v is not None}
    with ctx.mem() as mem:
        res = mem.purge(criteria, mode=mode, replacement=replacement, confirm=confirm, dry_run=dry_run)

    def human() -> None:
        verb = {"soft": "invalidate", "supersede": "supersede", "hard": "delete"}[res.mode]
        head = f"would {verb}" if res.dry_run else {"soft": "invalidated", "supersede": "superseded",
                                                      "hard": "deleted"}[res.mode]
        out.print(f"{head} {len(res.matched)} fact(s)")
        for f in res.matched:
            out.print(f"  {f.text}  ({f.id})")
        if res.replacement_id:
            out.print(f"replacement: {res.replacement_id}")
    emit(ctx, res, human)


@main.command()
@click.argument("subject")
@click.argument("relation", required=False)
@common
def history(ctx: Ctx, subject: str, relation: str | None) -> None:
    """Every version of SUBJECT's facts (optionally one RELATION), oldest first."""
    for name, value in (("subject", subject), ("relation", relation)):
        if value is not None and not value.strip():
            raise InvalidInput("must not be empty", field=name)
    from trulymem.model import to_json
    from trulymem.recall.results import fact_text, shown_messages

    with ctx.mem(existing=True) as mem:
        facts = mem.history(subject, relation)
        with mem.store.transaction(write=False):
            shown = shown_messages(mem.store, mem.scope, facts)  # a message by its words, not its id
    data = [to_json(f) for f in facts]

    def human() -> None:
        if not facts:
            out.print(f"(no facts about {subject!r}" + (f" with relation {relation!r})" if relation else ")"),
                      markup=False)
        for f in facts:
            status = "valid" if f.is_valid else f"invalid since {f.invalid_at:%Y-%m-%d %H:%M:%S}"
            out.print(f"{f.created_at:%Y-%m-%d %H:%M:%S}  {fact_text(f, shown)}  ({status})")
    emit(ctx, data, human)
