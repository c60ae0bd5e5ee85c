"""mkdocs hook: register every ``trulymem`` command before mkdocs-click reads the group.

The CLI imports a command's module only when that command runs (``LazyGroup``), so the
reference page would otherwise list whichever commands happened to be imported."""

from __future__ import annotations

import importlib
from typing import Any


def on_config(config: Any) -> Any:
    from trulymem.cli.base import COMMANDS

    for module in sorted({m for m, _ in COMMANDS.values()}):
        importlib.import_module(f"trulymem.cli.{module}")
    return config


def on_page_content(html: str, **_: Any) -> str:
    # click 8.2 marks "no default" with a sentinel that mkdocs-click prints as is
    return html.replace("<code>Sentinel.UNSET</code>", "none")
