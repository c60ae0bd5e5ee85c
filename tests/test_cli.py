from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from trulymem.cli import main


@pytest.fixture
def run(db_path: Path):  # type: ignore[no-untyped-def]
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, db: bool = True):  # type: ignore[no-untyped-def]
        full = list(args) + (["--db", str(db_path)] if db else [])
        return runner.invoke(main, full, input=input, catch_exceptions=False)

    return invoke


def js(result) -> object:  # type: ignore[no-untyped-def]
    return json.loads(result.output)


def test_commit_recall_history_purge(run) -> None:  # type: ignore[no-untyped-def]
    r = run("commit", "User", "喜欢", "猫娘", "--confidence", "0.8", "--type", "preference")
    assert r.exit_code == 0 and "created" in r.output and "User 喜欢 猫娘" in r.output
    assert "reinforced" in run("commit", "user", "喜欢", "猫娘").output
    r = run("recall", "猫娘", "--json")
    data = js(r)
    assert data["facts"][0]["object"] == "猫娘" and data["facts"][0]["mention_count"] == 2
    assert "猫娘" in run("recall", "猫娘").output
    r = run("purge", "--subject", "user", "--relation", "喜欢", "--mode", "supersede", "--replace-object", "狗")
    assert r.exit_code == 0 and "superseded 1" in r.output
    hist = js(run("history", "user", "--json"))
    assert [(h["object"], h["invalid_at"] is None) for h in hist] == [("猫娘", False), ("狗", True)]


def test_sessions_from_the_command_line(run) -> None:  # type: ignore[no-untyped-def]
    run("commit", "user", "likes", "tea", "--session", "s1")
    run("commit", "user", "likes", "jazz", "--session", "s2")
    hist = js(run("history", "user", "--json"))
    assert {(h["object"], h["session_id"]) for h in hist} == {("tea", "s1"), ("jazz", "s2")}
    assert len(js(run("recall", "user", "--session", "s2", "--json"))["facts"]) == 2  # sessions don't hide memories
    r = run("purge", "--relation", "likes", "--in-session", "s1", "--dry-run", "--json")
    assert [m["text"] for m in js(r)["matched"]] == ["user likes tea"]


def test_commit_file_and_stdin(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "t.jsonl"
    f.write_text('{"subject": "a", "relation": "r", "object": "b"}\n{"subject": "c", "relation": "r", "object": "d"}\n')
    assert len(js(run("commit", "--file", str(f), "--json"))["created"]) == 2
    r = run("commit", "--file", "-", "--json", input='[{"subject": "e", "relation": "r", "object": "f"}]')
    assert len(js(r)["created"]) == 1
    assert js(run("stats", "--json"))["facts_valid"] == 3


def test_tasks_and_persona(run) -> None:  # type: ignore[no-untyped-def]
    assert run("task", "create", "Task_a", "first", "--info", "note").exit_code == 0
    assert "after Task_a" in run("task", "create", "Task_b", "second").output
    assert "in_progress → paused" in run("task", "state", "Task_a", "已暂停").output
    tasks = js(run("task", "list", "--json"))["tasks"]
    assert [(t["task_id"], t["state"]) for t in tasks] == [("Task_b", "in_progress"), ("Task_a", "paused")]
    run("persona", "set", "role=catgirl", "catchphrases=nya~", "catchphrases=喵")
    assert js(run("persona", "show", "--json"))["attributes"] == {"role": "catgirl", "catchphrases": ["nya~", "喵"]}
    run("persona", "set", "role=butler", "--replace")
    assert "role: butler" in run("persona", "show").output


def test_errors_are_one_line_and_exit_nonzero(run) -> None:  # type: ignore[no-untyped-def]
    r = run("task", "state", "nope", "paused", "--user", "nobody")  # a named user nobody wrote for: a typo
    assert r.exit_code == 1 and "unknown user 'nobody'" in r.output
    run("task", "create", "real", "task")
    r = run("task", "state", "nope", "paused")
    assert r.exit_code == 1 and r.output.strip().count("\n") == 0 and "task_id" in r.output
    r = run("commit", "a", "r", "b", "--confidence", "7")
    assert r.exit_code == 2 and "confidence" in r.output
    r = run("purge", "--mode", "hard", "--subject", "a")
    assert r.exit_code == 2 and "confirm" in r.output
    r = run("purge", "--json")
    assert r.exit_code == 2 and js(r)["error"]["field"] == "criteria"
    r = run("recall", "x", "--as-of", "last tuesday")
    assert r.exit_code == 2 and "as_of" in r.output


def test_export_import_round_trip(run, tmp_path: Path, db_path: Path) -> None:  # type: ignore[no-untyped-def]
    run("commit", "user", "likes", "rock")
    run("task", "create", "T", "d")
    out_file = tmp_path / "dump.jsonl"
    assert run("export", str(out_file)).exit_code == 0
    other = tmp_path / "other.db"
    runner = CliRunner()
    r = runner.invoke(main, ["import", str(out_file), "--db", str(other), "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["facts"] == 2
    r2 = runner.invoke(main, ["export", "--db", str(other)])
    assert r2.output == out_file.read_text()


def test_settings_from_env_and_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    env_db = tmp_path / "env.db"
    monkeypatch.setenv("TRULYMEM_DB", str(env_db))
    monkeypatch.setenv("TRULYMEM_USER", "carol")
    assert runner.invoke(main, ["commit", "a", "r", "b"]).exit_code == 0
    from trulymem import TrulyMem

    assert TrulyMem(env_db, user_id="carol").stats().facts_valid == 1
    monkeypatch.delenv("TRULYMEM_DB")
    cfg = tmp_path / "config.toml"
    cfg_db = tmp_path / "from-config.db"
    cfg.write_text(f'db = "{cfg_db}"\nuser = "dave"\n')
    monkeypatch.setenv("TRULYMEM_CONFIG", str(cfg))
    monkeypatch.delenv("TRULYMEM_USER")
    assert runner.invoke(main, ["commit", "a", "r", "b"]).exit_code == 0
    assert TrulyMem(cfg_db, user_id="dave").stats().facts_valid == 1
    cfg.write_text('colour = "red"\n')
    r = runner.invoke(main, ["stats"])
    assert r.exit_code == 1 and "colour" in r.output


def test_default_db_lives_in_the_user_data_dir() -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["commit", "a", "r", "b"]).exit_code == 0
    from trulymem.config import default_db_path

    assert default_db_path().exists()
    assert str(default_db_path()).startswith(os.environ["XDG_DATA_HOME"])


def test_reindex_switches_the_model(run) -> None:  # type: ignore[no-untyped-def]
    run("commit", "user", "enjoys", "running")
    r = run("stats", "--embedder", "none")
    assert r.exit_code == 0
    r = run("reindex", "--json")
    assert r.exit_code == 0 and js(r) == {"embedded": 2, "embedder": "hashing", "model": "hashing-ngram-512",
                                          "previous": "hashing-ngram-512", "resumed": False, "dropped": 0}
    r = run("reindex", "--embedder", "none")
    assert r.exit_code == 2 and "embedder" in r.output


def test_tools_command_prints_schemas() -> None:
    data = json.loads(CliRunner().invoke(main, ["tools"]).output)
    assert {t["function"]["name"] for t in data} >= {"memory_commit", "memory_recall"}
    data = json.loads(CliRunner().invoke(main, ["tools", "--format", "anthropic"]).output)
    assert all("input_schema" in t for t in data)


def _commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out = []
    for name, cmd in group.commands.items():
        out.append((prefix + name, cmd))
        if isinstance(cmd, click.Group):
            out.extend(_commands(cmd, prefix + name + " "))
    return out


def test_every_command_has_help_and_is_documented() -> None:
    """Every command has help, and a page written by hand (the README or the docs site, not
    the reference generated from the commands themselves) shows it in use."""
    root = Path(__file__).parents[1]
    pages = [root / "README.md", *(p for p in (root / "docs").rglob("*.md") if "reference" not in p.parts)]
    texts = [p.read_text(encoding="utf-8") for p in pages]
    for name in main.list_commands(click.Context(main)):  # main imports a command's module when asked for it
        main.get_command(click.Context(main), name)
    for name, cmd in _commands(main):
        assert cmd.help, name
        assert any(f"trulymem {name}" in t for t in texts), f"neither README nor docs/ mention `trulymem {name}`"


def test_console_script_runs_as_a_real_process(db_path: Path) -> None:
    exe = Path(sys.executable).parent / "trulymem"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "trulymem.cli"]
    r = subprocess.run([*cmd, "demo", "--db", str(db_path), "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["turns"][0]["reply"] == "Okay~! My turn: 为虎作伥 ~!"
