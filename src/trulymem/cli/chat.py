"""``trulymem chat``: talk to an agent whose only memory is the graph."""

from __future__ import annotations

import json
import shlex
import sys
from datetime import UTC, datetime

import click

from trulymem.agent import Agent, TurnTrace
from trulymem.agent.forget import forget_messages
from trulymem.cli.base import Ctx, common, err, json_arg, main, out
from trulymem.cli.model import llm_settings, model_options
from trulymem.config import LLMSettings
from trulymem.errors import InvalidInput, TrulyMemError
from trulymem.graph import TrulyMem
from trulymem.llm import get_llm
from trulymem.llm.demo import wanted
from trulymem.tools.base import embedded_writes

HELP = """Commands:
  /recall [QUERY]            what memory returns for QUERY (default: the task chain)
  /persona                   the stored persona
  /tasks                     the tasks with their states
  /turns                     the recent turns (recorded in the chain, listed apart from tasks)
  /forget SUBJECT [RELATION] forget facts and the messages they came from (shown first, asked;
                             kept in history)
  /help                      this list
  /quit                      leave (also Ctrl-D)"""


def describe(trace: TurnTrace) -> str:
    """One compact line of what memory did this turn."""
    r = trace.recalled
    bits = [f"recalled persona({len(r.get('persona') or {})}) chain({len(r.get('tasks') or [])})"]
    if r.get("memories"):
        bits[0] += f" memories({len(str(r['memories']).splitlines())} lines)"
    if r.get("history_reference"):
        bits[0] += f" deep:{r['history_reference']!r}"
    calls = [t.name + ("" if t.ok else "✗") for t in trace.tools]
    if calls:
        bits.append("tools " + ", ".join(calls))
    w = trace.written
    wrote = [f"{len(w['facts'])} facts"] if w["facts"] else []
    wrote += [f"task {t}" for t in w["tasks"]] + w["states"]
    if wrote:
        bits.append("wrote " + "; ".join(wrote))
    if trace.extracted:
        bits.append("stored what you said: " + "; ".join(trace.extracted))
    bits.append(f"turn → {trace.record_task}" + (f" (topic {trace.task})" if trace.task else ""))
    bits.append(f"{trace.llm_calls} LLM call{'s' if trace.llm_calls != 1 else ''}, "
                f"{trace.tokens_in}→{trace.tokens_out} tokens, memory {trace.latency_ms.get('memory', 0):.0f} ms")
    return "  ⋯ " + " · ".join(bits) + "".join(f"\n  ! {x}" for x in trace.warnings)


@main.command()
@click.option("-m", "--message", help="Send one message, print the reply and exit.")
@model_options
@click.option("--persona", help='Default persona as JSON, e.g. \'{"role": "catgirl"}\' (a stored one wins).')
@click.option("--no-stream", is_flag=True, help="Print replies whole instead of as they arrive.")
@click.option("--quiet", is_flag=True, help="Do not show memory operations.")
@click.option("--extract", type=click.Choice(["auto", "model", "rules", "off"]), default="auto", show_default=True,
              envvar="TRULYMEM_EXTRACT", help="How stated facts the model did not commit are stored: rules at once, "
                                              "plus the model after each reply (auto/model), rules only, or off.")
@common
def chat(ctx: Ctx, message: str | None, model: str | None, base_url: str | None, api_key: str | None,
         persona: str | None, no_stream: bool, quiet: bool, extract: str) -> None:
    """Chat with an agent that remembers through the graph only (no message history).

    Each turn recalls the persona and the task chain in code, lets the model use
    the memory tools, and records the turn in the chain. With --json every reply and
    every error is one JSON object on stdout."""
    settings = llm_settings(ctx.settings.llm, model, base_url, api_key)
    if not settings.model:
        raise InvalidInput(LLMSettings.HELP + " Or try `trulymem chat --model scripted` (no key).", field="model")
    if wanted(settings):  # the demo model cannot extract facts: the rules store what the user states
        extract = "rules" if extract in ("auto", "model") else extract
    llm = get_llm(settings)
    attrs = json_arg(persona, "persona") or None
    session = ctx.session or "chat-" + datetime.now(UTC).strftime("%Y%m%d")
    # Closing the agent finishes the work after the last reply (summaries, extraction).
    with ctx.mem() as mem, Agent(mem, llm, persona=attrs, session_id=session, extract=extract) as agent:  # type: ignore[arg-type]
        if message is not None:
            _one_turn(ctx, agent, message, stream=not no_stream and not ctx.as_json, quiet=quiet)
            return
        # with --json, stdout holds only the JSON answers: the banner and prompts go to stderr
        (err if ctx.as_json else out).print(f"trulymem chat · model {llm.model} · user {mem.scope.user_id} · "
                                            "/help for commands", markup=False)
        pending: str | None = None  # a line read as an answer that was a message after all
        while True:
            try:
                text = pending if pending is not None else \
                    click.prompt("you", prompt_suffix="> ", default="", show_default=False, err=ctx.as_json)
            except (EOFError, click.Abort):
                (err if ctx.as_json else out).print("")
                return
            pending = None
            if not text.strip():
                continue
            try:
                if text.startswith("/"):
                    quit_, pending = _command(agent, text, _Say(ctx.as_json))
                    if quit_:
                        return
                    continue
                _one_turn(ctx, agent, text, stream=not no_stream, quiet=quiet)
            except TrulyMemError as exc:  # a failed turn or command is reported; the session goes on
                _report(ctx, exc)


def _one_turn(ctx: Ctx, agent: Agent, text: str, *, stream: bool, quiet: bool) -> None:
    if ctx.as_json:
        res = agent.turn(text)
        click.echo(json.dumps({"reply": res.reply, "trace": res.trace.model_dump(mode="json")},
                              ensure_ascii=False, indent=2))
        return
    if stream:
        sys.stdout.write("AI> ")
        res = agent.turn(text, on_text=_write)
        sys.stdout.write("\n")
    else:
        res = agent.turn(text)
        out.print(f"AI> {res.reply}")
    if not quiet:
        err.print(describe(res.trace), markup=False, style="dim")


def _report(ctx: Ctx, exc: TrulyMemError) -> None:
    """An error inside the session, shaped as the command's other errors (JSON with --json)."""
    if ctx.as_json:
        click.echo(json.dumps({"error": exc.to_dict()}, ensure_ascii=False))
    else:
        err.print(f"Error: {exc}")


def _write(piece: str) -> None:
    sys.stdout.write(piece)
    sys.stdout.flush()


class _Say:
    """A slash command's answer: text for a person, or with --json one JSON object on stdout
    (``{"command": …, …}``), so a script reading stdout never meets a line of prose."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def __call__(self, command: str, shown: str, **data: object) -> None:
        if self.as_json:
            click.echo(json.dumps({"command": command, **data}, ensure_ascii=False, default=str))
        else:
            out.print(shown, markup=False)

    def note(self, text: str) -> None:
        """What is said on the way (a preview, a question): stderr with --json."""
        (err if self.as_json else out).print(text, markup=False)


def _command(agent: Agent, line: str, say: _Say) -> tuple[bool, str | None]:
    """Run a slash command: whether to quit, and a line it read that is the next message."""
    try:
        parts = shlex.split(line[1:])
    except ValueError as exc:
        raise InvalidInput(str(exc), field="command") from None
    name, args = (parts[0].lower(), parts[1:]) if parts else ("help", [])
    mem: TrulyMem = agent.memory
    if name in ("quit", "exit", "q"):
        return True, None
    if name == "recall":
        res = mem.recall(" ".join(args) or "TaskNode,working_memory,task_chain", depth=2)
        say(name, res.text, text=res.text)
    elif name == "persona":
        attrs = mem.persona_get().attributes
        say(name, "\n".join(f"{k}: {v}" for k, v in attrs.items()) or "(no persona stored)", attributes=attrs)
    elif name in ("tasks", "turns"):
        tasks = mem.task_list(limit=10 if name == "turns" else 20, kind=name[:-1]).tasks
        say(name, "\n".join(f"{t.task_id} [{t.state}] {t.description or ''}" for t in tasks) or f"(no {name})",
            **{name: [t.model_dump(mode="json") for t in tasks]})
    elif name == "forget":
        return False, _forget(mem, args, say)
    else:
        say("help", HELP, help=HELP, **({"unknown": name} if name != "help" else {}))
    return False, None


def _forget(mem: TrulyMem, args: list[str], say: _Say) -> str | None:
    """Forget after a yes; an answer that is neither yes nor no is the next message (piped
    input: never read a message as "no", never lose it)."""
    if not args or len(args) > 2:
        raise InvalidInput("usage: /forget SUBJECT [RELATION]", field="forget")
    criteria = {"subject": args[0], **({"relation": args[1]} if len(args) > 1 else {})}
    preview = mem.purge(criteria, dry_run=True)
    if not preview.matched:
        say("forget", "Nothing matches.", forgotten=0, messages=0)
        return None
    for f in preview.matched:
        say.note(f"  {f.text}")
    try:
        answer = click.prompt(f"Forget these {len(preview.matched)} facts and the messages they came from? "
                              "(they stay in history) [y/N]", default="", show_default=False, err=say.as_json)
    except (EOFError, click.Abort):
        answer = ""
    if answer.strip().casefold() not in ("y", "yes"):
        say("forget", "Not forgotten.", forgotten=0, messages=0)
        return None if answer.strip().casefold() in ("", "n", "no") else answer
    with embedded_writes(mem.store, mem.embedder):  # the facts and their messages, or nothing
        done = mem.purge(criteria)
        messages = forget_messages(mem, [f.id for f in done.matched])
    say("forget", f"Forgot {len(done.matched)} facts" + (f" and {messages} messages." if messages else "."),
        forgotten=len(done.matched), messages=messages, facts=[f.text for f in done.matched])
    return None
