"""Memory for other programs: ``trulymem serve`` (HTTP API + MCP over streamable
HTTP), ``trulymem mcp`` (stdio), ``trulymem keys`` and ``trulymem tools`` (the tool
schemas for an LLM API)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import click

from trulymem.cli.base import Ctx, common, err, fail, main, out
from trulymem.cli.model import DEMO_SAID, llm_settings, model_options
from trulymem.config import LLMSettings, ServerSettings
from trulymem.errors import ConfigError
from trulymem.extras import needs
from trulymem.keys import any_active, create_key, list_keys, revoke_key
from trulymem.llm.demo import wanted
from trulymem.server.gcpolicy import DEFAULT_POLICY, ENV, apply_policy, parse_policy
from trulymem.store import Store, open_store, shown
from trulymem.tools import anthropic_tools, openai_tools


def _embedder(ctx: Ctx) -> Any:
    from trulymem.embed import get_embedder

    return None if ctx.settings.embedder == "none" else get_embedder(ctx.settings.embedder)


def _llm(settings: LLMSettings) -> Any:
    from trulymem.llm import get_llm

    return get_llm(settings) if settings.model else None


def _model_line(settings: LLMSettings) -> str:
    """What the Chat tab and add_memory infer will talk to, said once at start-up."""
    if wanted(settings):
        return f"chat model: {settings.model}, {DEMO_SAID} (--model NAME for a real one)"
    if settings.model:
        return f"chat model: {settings.model}" + (f" at {settings.base_url}" if settings.base_url else "")
    return ("no chat model: the web app's Chat tab and add_memory infer are off; --model scripted for the demo "
            "model (no API key) or --model NAME with TRULYMEM_LLM_API_KEY / --base-url for a real one")


def _limit_options(fn: Any) -> Any:
    """The server limits as options; each one unset falls back to TRULYMEM_<NAME>, the config file, the default."""
    d = ServerSettings()
    for flag, kind, text in reversed((
        ("--max-body", click.IntRange(1024), f"Largest request body in bytes [default: {d.max_body}]."),
        ("--header-timeout", click.FloatRange(0.1, 3600), "Seconds for a request's line and headers to arrive "
         f"[default: {d.header_timeout:g}]."),
        ("--idle-timeout", click.FloatRange(0.1, 3600), "Seconds a connection may sit silent, between requests "
         f"or inside a body [default: {d.idle_timeout:g}]."),
        ("--max-connections", click.IntRange(1), "Open connections at most (lowered to what the open-file limit "
         f"allows); the longest-waiting idle ones make room [default: {d.max_connections}]."),
        ("--request-budget", click.FloatRange(0, 86400), "Seconds of wall clock per request; 0 for none "
         f"[default: {d.request_budget:g}]."),
        ("--rate-limit", click.FloatRange(0), "Requests per second per API key (per client address without "
         "one); 0 for no limit [default: 0]."),
        ("--rate-burst", click.FloatRange(0), "Requests at once over the rate limit [default: twice the rate]."),
    )):
        fn = click.option(flag, type=kind, default=None, help=text)(fn)
    return fn


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="TCP port.")
@click.option("--require-keys", is_flag=True, help="Refuse requests without an API key even before any exists.")
@model_options
@_limit_options
@click.option("--no-mcp", is_flag=True, help="Do not serve MCP at /mcp.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes on the one port and database (for PostgreSQL; see docs/guides/serving.md).")
@click.option("--gc", "gc_policy", envvar=ENV, default=DEFAULT_POLICY, show_default=True,
              help="Garbage collection in the served process: 'python' (unchanged) or 'freeze' what start-up "
                   "made; ':T0,T1,T2' sets thresholds (see docs/guides/serving.md).")
@common
def serve(ctx: Ctx, host: str, port: int, require_keys: bool, no_mcp: bool, workers: int, gc_policy: str,
          model: str | None, base_url: str | None, api_key: str | None, **given: float | None) -> None:
    """Serve the web app at /, the HTTP API (OpenAPI docs at /docs) and MCP over streamable HTTP at /mcp.

    Without API keys, requests that name no user read and write --user (the default user).
    The chat model (--model) answers the web app's Chat tab and add_memory with infer."""
    try:
        from trulymem.server.connections import bind, connection_limit, run
        from trulymem.server.http import LOCAL_HOSTS, create_app
    except ImportError as exc:
        raise ConfigError(needs("the server", "server", exc.name)) from exc
    policy = parse_policy(gc_policy)  # refused before anything starts
    overrides: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    limits = replace(ctx.settings.server, **overrides)
    llm_config = llm_settings(ctx.settings.llm, model, base_url, api_key)
    llm = _llm(llm_config)  # a bad model setting is refused before anything starts
    with open_store(ctx.settings.db) as store:
        keyed = any_active(store)
        if host not in LOCAL_HOSTS and not keyed:
            raise ConfigError(f"refusing to listen on {host} without an API key: anyone on the network could read "
                              "every memory. Create one first (trulymem keys create --user ID or --admin), or "
                              "listen on 127.0.0.1", field="host")
        if not (keyed or require_keys):  # the user a keyless server writes for: an empty memory, not an error
            from trulymem.model import utcnow

            with store.transaction():
                store.ensure_user(ctx.settings.user, utcnow())
    if workers > 1:
        _serve_workers(ctx, workers, host, port, limits, require_keys or keyed, not no_mcp, gc_policy, llm_config)
        return
    try:
        bound = bind(host, port, limits)  # a taken port is said before anything claims to listen
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", field="port") from None
    app = create_app(ctx.settings.db, embedder=_embedder(ctx), llm=llm, require_keys=require_keys or keyed,
                     limits=limits, mcp=not no_mcp, default_user=ctx.settings.user)
    err.print(f"trulymem {shown(ctx.settings.db)} on http://{host}:{port} ({_served(not no_mcp)}"
              f"{_access(require_keys or keyed, ctx.settings.user)}"
              f"; at most {connection_limit(limits.max_connections)} connections)", markup=False)
    err.print(_model_line(llm_config), markup=False)
    if said := apply_policy(policy):
        err.print(said, markup=False)
    run(app, host, port, limits, bound)


def _served(mcp: bool) -> str:
    return "web app /, docs /docs" + (", MCP /mcp" if mcp else ", no MCP")


def _access(keyed: bool, user: str) -> str:
    return ", API keys required" if keyed else f", no API keys: local use only, user {user}"


def _serve_workers(ctx: Ctx, workers: int, host: str, port: int, limits: ServerSettings, keyed: bool,
                   mcp: bool, gc_policy: str, llm: LLMSettings) -> None:
    from trulymem.server.workers import run_workers

    err.print(f"trulymem {shown(ctx.settings.db)} on http://{host}:{port} with {workers} worker processes"
              f" ({_served(mcp)}{_access(keyed, ctx.settings.user)})", markup=False)
    err.print(_model_line(llm), markup=False)
    try:
        run_workers(workers, host, port, db=ctx.settings.db, embedder=ctx.settings.embedder, llm=llm,
                    limits=limits, require_keys=keyed, mcp=mcp, default_user=ctx.settings.user, gc_policy=gc_policy)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", field="port") from None


@main.command("mcp")
@common
def mcp_command(ctx: Ctx) -> None:
    """Serve the memory tools over MCP on stdio (for Claude Desktop, Cursor, Claude Code …)."""
    try:
        import anyio

        from trulymem.server.mcp import serve_stdio
    except ImportError as exc:
        raise ConfigError(needs("MCP", "mcp", exc.name)) from exc
    from trulymem.model import utcnow
    from trulymem.tools import ToolContext

    with ctx.mem() as mem:
        if not mem.user_exists():  # the user this server serves exists from the first call (a fresh database)
            mem.ensure_user()
        llm = _llm(ctx.settings.llm)

        def make_ctx(_: Any) -> ToolContext:
            return ToolContext(store=mem.store, scope=mem.scope, now=utcnow(), embedder=mem.embedder, llm=llm)

        anyio.run(serve_stdio, make_ctx)


@main.group()
def keys() -> None:
    """API keys for `trulymem serve` (stored hashed in the database)."""


@keys.command("create")
@click.option("--user", "user_id", help="The one user this key can reach.")
@click.option("--admin", is_flag=True, help="A key for every user.")
@click.option("--label", help="A note to recognise the key by.")
@click.option("--db", envvar="TRULYMEM_DB", help="Database file or postgresql:// URL.")
@click.option("--json", "as_json", is_flag=True)
def keys_create(user_id: str | None, admin: bool, label: str | None, db: str | None, as_json: bool) -> None:
    """Create a key; the token is printed once."""
    _keys(db, lambda store: _create(store, user_id, admin, label, as_json))


def _create(store: Store, user_id: str | None, admin: bool, label: str | None, as_json: bool) -> None:
    key, token = create_key(store, user_id=user_id, admin=admin, label=label)
    if as_json:
        click.echo(json.dumps({**key.public(), "token": token}))
    else:
        out.print(token)
        err.print(f"key {key.id} for {'every user (admin)' if admin else user_id}; shown once — store it now",
                  markup=False)


@keys.command("list")
@click.option("--db", envvar="TRULYMEM_DB", help="Database file or postgresql:// URL.")
@click.option("--json", "as_json", is_flag=True)
def keys_list(db: str | None, as_json: bool) -> None:
    """List keys (never their tokens)."""
    def show(store: Store) -> None:
        rows = [k.public() for k in list_keys(store)]
        if as_json:
            click.echo(json.dumps(rows))
            return
        for r in rows:
            state = f"revoked {r['revoked_at']}" if r["revoked_at"] else "active"
            out.print(f"{r['id']}  {r['role']:5}  {r['user_id'] or '*'}  {r['label'] or ''}  {state}")
        if not rows:
            out.print("No API keys.")

    _keys(db, show)


@keys.command("revoke")
@click.argument("key_id")
@click.option("--db", envvar="TRULYMEM_DB", help="Database file or postgresql:// URL.")
def keys_revoke(key_id: str, db: str | None) -> None:
    """Revoke a key at once."""
    _keys(db, lambda store: out.print(f"revoked {revoke_key(store, key_id).id}"))


def _keys(db: str | None, action: Any) -> None:
    from trulymem.config import Settings
    from trulymem.errors import TrulyMemError

    try:
        with open_store(Settings.load(db=db).db) as store:
            action(store)
    except TrulyMemError as exc:
        fail(exc)


@main.command()
@click.option("--format", "fmt", type=click.Choice(["openai", "anthropic"]), default="openai", show_default=True)
@click.option("--strict", is_flag=True, help="OpenAI strict mode on (\"strict\": true); the openai schemas are "
              "valid for it either way: free-form objects as JSON text, optional fields nullable.")
def tools(fmt: str, strict: bool) -> None:
    """Print the memory tools' JSON schemas for an LLM API."""
    if strict and fmt != "openai":
        raise click.UsageError("--strict is for --format openai")
    schemas = openai_tools(strict=strict) if fmt == "openai" else anthropic_tools()
    click.echo(json.dumps(schemas, ensure_ascii=False, indent=2))
