"""`trulymem chat --model scripted`: a newcomer talks to the agent with no API key, through
the real command in a pseudo-terminal, and the memory it writes is real."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from trulymem import TrulyMem

pexpect = pytest.importorskip("pexpect")


def test_chat_with_the_demo_model_remembers_through_the_graph(tmp_path: Path) -> None:
    db = tmp_path / "chat.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRULYMEM_LLM", "OPENAI_"))}
    env.update(TRULYMEM_EMBEDDER="hashing", COLUMNS="200")
    child = pexpect.spawn(sys.executable, ["-m", "trulymem", "chat", "--model", "scripted", "--db", str(db),
                                           "--user", "alice"], env=env, encoding="utf-8", timeout=60)
    child.expect(r"model scripted · user alice")
    child.expect("you> ")
    child.sendline("I live in Lisbon and I like jazz.")
    child.expect(r"AI> Noted")
    child.expect(r"stored what you said: .*lives_in Lisbon")   # the rules stored the statement
    child.expect("you> ")
    child.sendline("Where do I live?")
    child.expect(r"AI> From memory: [^\r\n]*user lives_in Lisbon")
    child.expect(r"tools memory_recall")                       # the answer came through a memory tool
    child.expect("you> ")
    child.sendline("/tasks")
    child.expect(r"\(no tasks\)")  # the turns are recorded in the chain, listed apart
    child.expect("you> ")
    child.sendline("/turns")
    child.expect(r"Turn_\S+ \[completed\]")
    child.expect("you> ")
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    mem = TrulyMem(str(db), user_id="alice")
    try:
        assert [f.object for f in mem.history("user", "lives_in")] == ["Lisbon"]
    finally:
        mem.close()


def test_without_a_model_the_error_points_at_the_demo_model(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRULYMEM_LLM", "OPENAI_"))}
    child = pexpect.spawn(sys.executable, ["-m", "trulymem", "chat", "-m", "hi", "--db", str(tmp_path / "x.db")],
                          env={**env, "TRULYMEM_CONFIG": str(tmp_path / "none.toml"), "COLUMNS": "300"},
                          encoding="utf-8", timeout=60)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2 and "--model scripted" in (child.before or "")


def test_piped_chat_keeps_json_on_stdout_and_never_reads_a_message_as_an_answer(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    db = str(tmp_path / "c.db")
    lines = "I like jazz\n/forget user likes\nWhat do I like?\n"
    done = subprocess.run([sys.executable, "-m", "trulymem", "chat", "--model", "scripted", "--db", db],
                          input=lines, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Not forgotten" in done.stdout and done.stdout.count("AI> ") == 2  # the line after it was a message
    done = subprocess.run([sys.executable, "-m", "trulymem", "chat", "--model", "scripted", "--db", db, "--json"],
                          input="hello\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and json.loads(done.stdout)["reply"], done.stdout
