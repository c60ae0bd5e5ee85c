"""What the command line imports to start: `trulymem --help` and light commands must not
load what they never use (numpy, rich, every tool's models). Times are measured by
bench/bench_cli_start.py, not asserted here."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from trulymem.cli import main
from trulymem.cli.base import COMMANDS
from trulymem.graph import TOOL_MODULES

PROBE = """
import json, sys
from trulymem.cli import main
try:
    main(sys.argv[1:], prog_name="trulymem")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def loaded(*args: str) -> set[str]:
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120)
    return set(json.loads(r.stderr.strip().splitlines()[-1]))


def heavy(modules: set[str], *roots: str) -> set[str]:
    return {m for m in modules if m.split(".")[0] in roots or any(m.startswith(r + ".") for r in roots)}


def test_help_imports_no_command_module_and_nothing_heavy() -> None:
    mods = loaded("--help")
    assert not heavy(mods, "numpy", "rich", "pydantic", "trulymem.graph", "trulymem.tools", "trulymem.config")
    assert not {m for m in mods if m.startswith("trulymem.cli.") and m != "trulymem.cli.base"}


def test_light_commands_load_only_their_own_tool(tmp_path: Path) -> None:
    db = ["--db", str(tmp_path / "m.db")]
    mods = loaded("stats", *db)
    assert not heavy(mods, "numpy", "rich", "trulymem.tools.mem0", "trulymem.mem0", "trulymem.dream", "trulymem.agent")
    assert "trulymem.tools.stats" in mods and "trulymem.tools.commit" not in mods
    mods = loaded("recall", "x", *db)
    assert not heavy(mods, "rich", "trulymem.mem0", "trulymem.dream", "trulymem.agent")


def test_the_command_table_matches_the_commands() -> None:
    ctx = click.Context(main)
    for name, (module, summary) in COMMANDS.items():
        importlib.import_module(f"trulymem.cli.{module}")
        cmd = main.commands[name]
        assert cmd.callback is not None and cmd.callback.__module__ == f"trulymem.cli.{module}", name
        stub = click.Command(name, help=summary)
        for limit in (40, 60, 80, 120):  # what `trulymem --help` shows, at any terminal width
            assert stub.get_short_help_str(limit) == cmd.get_short_help_str(limit), name
    assert set(main.commands) == set(COMMANDS) == set(main.list_commands(ctx))


@pytest.mark.parametrize(("tool", "module"), sorted(TOOL_MODULES.items()))
def test_each_tool_lives_where_the_facade_looks_for_it(tool: str, module: str) -> None:
    r = subprocess.run([sys.executable, "-c", f"import trulymem.tools.{module}; from trulymem.tools.base import "
                        f"REGISTRY; print({tool!r} in REGISTRY)"], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "True", r.stderr


def test_no_import_cycle_whichever_module_comes_first() -> None:
    for first in ("trulymem.mem0", "trulymem.tools.mem0", "trulymem.tools.base", "trulymem.graph", "trulymem.dream",
                  "trulymem.agent", "trulymem.reindex"):
        r = subprocess.run([sys.executable, "-c", f"import {first}; from trulymem import Memory, TrulyMem"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (first, r.stderr)
