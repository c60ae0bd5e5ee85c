from __future__ import annotations

from pathlib import Path

import pytest

import trulymem
from trulymem import TrulyMem


def test_all_names_are_exported() -> None:
    for name in trulymem.__all__:
        assert hasattr(trulymem, name), name


def test_errors_form_one_tree() -> None:
    for name in ("InvalidInput", "NotFound", "Conflict", "ConfigError", "StoreError", "SchemaError"):
        assert issubclass(getattr(trulymem, name), trulymem.TrulyMemError)
    assert issubclass(trulymem.InvalidInput, ValueError) and issubclass(trulymem.NotFound, KeyError)
    assert str(trulymem.NotFound("no such task", field="task_id")) == "task_id: no such task"


def test_open_uses_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TRULYMEM_DB", str(tmp_path / "env.db"))
    monkeypatch.setenv("TRULYMEM_USER", "erin")
    with TrulyMem.open() as mem:
        assert mem.scope.user_id == "erin"
        mem.commit([{"subject": "a", "relation": "r", "object": "b"}])
    assert (tmp_path / "env.db").exists()
    with TrulyMem.open(str(tmp_path / "other.db"), user_id="fay") as mem:
        assert mem.scope.user_id == "fay"
        with pytest.raises(trulymem.NotFound):  # nobody has written for fay yet
            mem.stats()
        mem.ensure_user()
        assert mem.stats().facts_valid == 0 and mem.stats().users == 1


def test_importing_has_no_side_effects(tmp_path: Path) -> None:
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", "import trulymem, trulymem.cli"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=60)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
    assert list(tmp_path.iterdir()) == []


def test_readme_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", readme, re.S)
    assert code is not None
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), "README.md", "exec"), namespace)  # noqa: S102 - our own README
    mem = namespace["mem"]
    assert isinstance(mem, TrulyMem)
    assert [f.object for f in mem.history("user", "lives_in")] == ["Paris", "Berlin"]
    mem.close()
