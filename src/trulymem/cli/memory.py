"""Memory commands: ``commit``, ``recall``, ``purge`` and ``history``."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import click

from trulymem.cli.base import Ctx, common, emit, json_arg, main, out, read_text
from trulymem.errors import InvalidInput
from trulymem.model import to_json
from trulymem.transfer import read_jsonl


@main.command()
@click.argument("subject", required=False)
@click.argument("relation", required=False)
@click.argument("object_", metavar="OBJECT", required=False)
@click.option("--file", "file_", type=click.File("r", encoding="utf-8"),
              help="JSON lines (or a JSON list) of triplets to commit in one transaction; '-' for stdin.")
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
    """Store a fact: SUBJECT RELATION OBJECT (or many with --file)."""
    if file_ is not None:
        if subject or relation or object_:
            raise InvalidInput("give either SUBJECT RELATION OBJECT or --file, not both", field="file")
        triplets = _read_triplets(read_text(file_))
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
        triplets = [t]
    with ctx.mem() as mem:
        res = mem.commit(triplets)
    def human() -> None:
        for f in res.facts:
            out.print(f"{f.status:>10}  {f.text}  ({f.id})")
    emit(ctx, res, human)


def _read_triplets(text: str) -> list[dict[str, Any]]:
    text = text.strip()
    if text.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"is not valid JSON: {exc.msg}", field="file") from None
        return data if isinstance(data, list) else [data]
    return [row for _, row in read_jsonl(text.splitlines(), "file")]


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
    with ctx.mem() as mem:
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
    with ctx.mem() as mem:
        facts = mem.history(subject, relation)
    data = [to_json(f) for f in facts]

    def human() -> None:
        for f in facts:
            status = "valid" if f.is_valid else f"invalid since {f.invalid_at:%Y-%m-%d %H:%M:%S}"
            out.print(f"{f.created_at:%Y-%m-%d %H:%M:%S}  {f.render()}  ({status})")
    emit(ctx, data, human)
