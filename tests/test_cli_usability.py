"""The command line as a new user meets it: a fresh install, big files, JSON errors,
forgetting in chat, progress bars and a demo that cleans up after itself."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from trulymem import TrulyMem
from trulymem.cli import main
from trulymem.cli.progress import progress
from trulymem.llm.scripted_server import ScriptedServer


def cli(*args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_a_fresh_install_shows_an_empty_memory(db_path: Path) -> None:
    db = ["--db", str(db_path)]
    assert json.loads(cli("stats", *db, "--json").output)["facts_valid"] == 0
    assert "nodes: 0" in cli("stats", *db).output
    r = cli("recall", "anything", *db)
    assert r.exit_code == 0 and "no memories found" in r.output
    assert cli("recall", *db, "--json").exit_code == 0
    assert "no tasks" in cli("task", "list", *db).output
    assert "no persona set" in cli("persona", "show", *db).output
    assert cli("history", "user", *db, "--json").output.strip() == "[]"
    # a user named on purpose that nobody wrote for is still an error: usually a typo
    r = cli("stats", *db, "--user", "bobb")
    assert r.exit_code == 1 and "unknown user 'bobb'" in r.output
    assert not db_path.exists()  # reading never creates a database: a mistyped --db leaves nothing behind
    typo = db_path.parent / "typo" / "sub" / "x.db"
    r = cli("stats", "--db", str(typo))
    assert r.exit_code == 0 and "no database at" in r.output and not typo.parent.exists()


def test_commit_file_streams_any_number_of_lines_in_one_transaction(db_path: Path, tmp_path: Path) -> None:
    n = 50_000
    f = tmp_path / "big.jsonl"
    with f.open("w", encoding="utf-8") as out:
        for i in range(n):
            out.write(json.dumps({"subject": f"person {i % 997}", "relation": "knows", "object": f"fact {i}"}) + "\n")
    db = ["--db", str(db_path), "--embedder", "none"]
    r = cli("commit", "--file", str(f), *db)
    assert r.exit_code == 0, r.output
    assert r.output.strip() == f"created {n}, reinforced 0 facts"  # summed up, not 50,000 lines
    assert json.loads(cli("stats", *db, "--json").output)["facts_valid"] == n

    # one bad line far into the file: its line is named, and nothing of the file is stored
    lines = f.read_text(encoding="utf-8").splitlines()
    lines[45_000] = json.dumps({"subject": "a", "relation": "HAS_STATE", "object": "b"})
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines[40_000:]) + "\n", encoding="utf-8")
    other = tmp_path / "other.db"
    r = cli("commit", "--file", str(bad), "--db", str(other), "--embedder", "none", "--json")
    assert r.exit_code == 2
    assert json.loads(r.output)["error"] == {"type": "invalid_input", "field": "triplets.5000.relation",
                                             "message": "line 5001: 'HAS_STATE' edges are written by task_set_state"}
    assert json.loads(cli("stats", "--db", str(other), "--json").output)["facts_valid"] == 0
    r = cli("commit", "--file", "-", "--db", str(other), input="\n\n")
    assert r.exit_code == 2 and "holds no triplets" in r.output


def test_commit_file_embeds_with_the_databases_model(db_path: Path, tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_text("".join(json.dumps({"subject": "user", "relation": "likes", "object": f"song {i}"}) + "\n"
                         for i in range(6000)), encoding="utf-8")
    assert cli("commit", "--file", str(f), "--db", str(db_path)).exit_code == 0
    with TrulyMem(db_path, user_id="default") as mem:
        assert mem.store.count_nodes_without_vectors() == 0


def test_chat_json_errors_are_json_on_stdout(db_path: Path) -> None:
    r = CliRunner().invoke(main, ["chat", "-m", "hi", "--db", str(db_path), "--json"])
    assert r.exit_code == 2 and r.stderr == ""
    error = json.loads(r.stdout)["error"]
    assert error["field"] == "model" and "TRULYMEM_LLM_MODEL" in error["message"]
    r = CliRunner().invoke(main, ["chat", "-m", "hi", "--db", str(db_path), "--json", "--model", "m",
                                  "--base-url", "http://127.0.0.1:9", "--api-key", "k"],
                           env={"TRULYMEM_LLM_RETRIES": "0"})
    assert r.exit_code == 1 and r.stderr == "" and json.loads(r.stdout)["error"]["type"] == "llm_error"


def test_forget_in_chat_also_forgets_the_raw_message(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedServer(["Noted!", "Got it."], model="m", api_key="k") as srv:
        for k, v in (("MODEL", "m"), ("BASE_URL", srv.base_url), ("API_KEY", "k")):
            monkeypatch.setenv(f"TRULYMEM_LLM_{k}", v)
        typed = "I live in Lisbon near the old aqueduct\nI like tea\n/forget user lives_in\ny\n/quit\n"
        r = CliRunner().invoke(main, ["chat", "--db", str(db_path), "--no-stream", "--extract", "rules"], input=typed)
    assert r.exit_code == 0, r.output
    assert "Forgot 1 facts and 2 messages." in r.output
    with TrulyMem(db_path, user_id="default", embedder="hashing") as mem:
        for query in ("Lisbon", "aqueduct", "old aqueduct"):
            res = mem.recall(query)
            found = json.dumps(res.model_dump(mode="json", include={"nodes", "facts", "text"}), ensure_ascii=False)
            assert "aqueduct" not in found, query
        assert "tea" in mem.recall("tea").text  # the other turn is untouched
        assert "aqueduct" in mem.recall("aqueduct", include_invalid=True).text  # kept in history


def test_embedder_help_says_what_auto_picks() -> None:
    text = " ".join(cli("stats", "--help").output.split())
    assert "auto (the model this database's vectors come from; hashing for a new one)" in text


def test_the_demo_leaves_no_folder_behind(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    exe = Path(sys.executable).parent / "trulymem"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "trulymem.cli"]
    r = subprocess.run([*cmd, "demo"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "为虎作伥" in r.stdout and "--db" in r.stdout
    assert list(tmp_path.iterdir()) == []


def test_progress_bars_appear_only_after_a_while() -> None:
    shown = io.StringIO()
    console = Console(file=shown, force_terminal=True, width=80)
    with progress("exporting", console, delay=0.0) as step:
        step(500, 1000)
    assert "exporting" in shown.getvalue()
    quiet = io.StringIO()
    with progress("exporting", Console(file=quiet, force_terminal=True), delay=60.0) as step:
        step(500, 1000)
    assert quiet.getvalue() == ""


def test_export_and_import_report_progress(db_path: Path, tmp_path: Path) -> None:
    with TrulyMem(db_path, user_id="default", embedder="hashing") as mem:
        mem.commit([{"subject": "user", "relation": "knows", "object": f"thing {i}"} for i in range(1500)])
        steps: list[tuple[int, int]] = []
        dump = tmp_path / "dump.jsonl"
        with dump.open("w", encoding="utf-8") as out:
            rows = mem.export_jsonl(out, progress=lambda d, t: steps.append((d, t)))
    assert steps and steps[-1][0] <= rows and all(t == rows for _, t in steps)
    imported: list[tuple[int, int]] = []
    with TrulyMem(tmp_path / "copy.db", user_id="default", embedder="hashing") as copy:
        counts = copy.import_jsonl(dump.read_text(encoding="utf-8").splitlines(),
                                   progress=lambda d, t: imported.append((d, t)))
    assert counts["embedded"] == counts["nodes"]
    done = [d for d, _ in imported]
    assert done == sorted(done) and imported[-1][0] == imported[-1][1] == rows + counts["nodes"]  # rows, then vectors
