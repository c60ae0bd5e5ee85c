"""The README and the docs site: the quick start stays true, the site builds with
``mkdocs build --strict`` (how CI checks it: CI runs only the test command), and no
page points at a file the repository does not hold."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# a path with a directory and a file extension, as docs write them
PATH = re.compile(r"(?<![\w.:~/-])((?:\.{1,2}/|/)?[\w.-]+(?:/[\w.-]+)+\.(?:py|md|json|jsonl|toml|js|css|html|yml|yaml|txt))\b")
# where a page's relative path may start: the repo, the package, the web app, tests, bench
BASES = [ROOT, ROOT / "src", ROOT / "src/trulymem", ROOT / "src/trulymem/web", ROOT / "tests", ROOT / "bench"]
# files of other programs named as such (an MCP client's config), and scratch outputs a command writes
NOT_OURS = {".cursor/mcp.json"}


def test_readme_is_short_and_its_quick_start_is_the_one_that_works() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert 'pip install . && trulymem demo\npip install -e ".[test]" && python -m pytest\n' in text
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=3.11" and "Python ≥ 3.11" in text
    for path in ("Claude Desktop", "Cursor", "Claude Code", "absolute path", "from trulymem import Memory",
                 "trulymem chat --model scripted"):
        assert path in text, path


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_pages_name_only_files_in_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = []
    for m in PATH.finditer(text):
        ref = m.group(1)
        if ref in NOT_OURS or ref.startswith("/tmp/"):
            continue
        outside = ref.startswith("/") or (page.parent / ref).resolve().is_relative_to(ROOT) is False
        if outside or not ((page.parent / ref).exists() or any((b / ref).exists() for b in BASES)):
            missing.append(ref)
    assert not missing, f"{page.name} names files not in the repository: {missing}"
    # the documents the protocol and the dream were first described in are not shipped
    assert "mem0-dream-skill" not in text and "trulymem-memory-mechanism" not in text


def test_readme_python_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's in-process snippets run as written (the client one needs a server: tests/test_platform_client.py)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "MemoryClient" not in b]
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRULYMEM_EMBEDDER", "hashing")
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})  # noqa: S102
    assert (tmp_path / "memory.db").exists()


def test_site_builds_strict(tmp_path: Path) -> None:
    # mkdocs and its plugins are in the test extra: a missing one fails here, it does not skip
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                          "-d", str(tmp_path / "site")], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=300)
    assert run.returncode == 0, run.stderr[-4000:]
    cli = (tmp_path / "site/reference/cli/index.html").read_text(encoding="utf-8")
    for command in ("commit", "recall", "chat", "dream", "serve", "mcp"):  # generated from the click group
        assert f"trulymem {command}" in cli, command
    api = (tmp_path / "site/reference/api/index.html").read_text(encoding="utf-8")
    assert "trulymem.graph.TrulyMem" in api and "persona_set" in api  # from the docstrings
    assert "Sentinel" not in cli
