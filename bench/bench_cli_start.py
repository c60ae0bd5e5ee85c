"""How long the command line takes to start: a new process per run, as a user types it.

    python bench/bench_cli_start.py [--runs 15] [--src PATH]

Prints the median wall-clock and CPU time (user + system, from the child's own rusage)
of `trulymem --help`, `trulymem stats` and `trulymem recall` against a database of
2,000 memories (hashing vectors), each after one warm-up run (the files are in the page
cache: this is the start-up a user sees on every command, not the first after a boot).
``--src`` measures another checkout's ``src`` (e.g. the commit before a change), through
PYTHONPATH. Benchmarks print figures; they do not pass or fail."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = {"--help": ["--help"], "stats": ["stats"], "recall": ["recall", "music,rock"]}


def run_once(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one ``python -m trulymem ARGS`` process."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "trulymem", *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read() if proc.stderr else b""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"trulymem {' '.join(args)} failed: {err.decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime


def seed(db: Path, env: dict[str, str]) -> None:
    lines = "".join(f'{{"subject": "user", "relation": "likes", "object": "song {i} of rock music"}}\n'
                    for i in range(2000))
    subprocess.run([sys.executable, "-m", "trulymem", "commit", "--file", "-"], input=lines.encode(), env=env,
                   check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--src", help="measure this checkout's src directory instead of the installed trulymem")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TRULYMEM_DB": str(Path(tmp) / "bench.db"), "TRULYMEM_CONFIG": str(Path(tmp) / "none"),
               "TRULYMEM_EMBEDDER": "hashing", "TRULYMEM_USER": "bench"}
        if opts.src:
            env["PYTHONPATH"] = str(Path(opts.src).resolve())
        seed(Path(tmp) / "bench.db", env)
        print(f"trulymem start-up, median of {opts.runs} runs after a warm-up ({opts.src or 'installed'}):")
        print(f"{'command':<10} {'wall ms':>8} {'cpu ms':>8}   wall runs (min-max)")
        for name, args in COMMANDS.items():
            run_once(args, env)
            walls, cpus = zip(*(run_once(args, env) for _ in range(opts.runs)))
            print(f"{name:<10} {statistics.median(walls) * 1000:8.0f} {statistics.median(cpus) * 1000:8.0f}   "
                  f"{min(walls) * 1000:.0f}-{max(walls) * 1000:.0f}")


if __name__ == "__main__":
    main()
