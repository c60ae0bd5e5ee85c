"""Child processes for the crash and load tests (and ``bench/bench_reliability.py``), run as
``python -m tests.reliability.workload writer|mixed ...`` so they can be killed for real.

``writer`` makes a sequence of writes through the library and journals each one twice, as
an *intent* before the call and an *ack* once it returned; ``verify_writer`` then checks a
killed writer's journal against the database: every acknowledged write is there, and the
one write that may have been cut short is all or nothing. ``mixed`` runs a few seconds of
commits, supersedes, task creation and state changes, purges, mem0 updates and recalls on a
user several processes share, and prints what it did and every error as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import time
from collections import Counter
from typing import Any

from trulymem import TrulyMem
from trulymem.text import relation_key

STATES = ["in_progress", "paused", "completed", "cancelled", "archived"]
SHARED_NAMES = ["Coffee", "coffee", "ＣＯＦＦＥＥ", "COFFEE", "Jazz", "jazz", "猫娘", "Lisbon", "lisbon", "Berlin"]


# --- the writer and its check ------------------------------------------------------------------

def writer(db: str, user: str, tag: str, journal: str, seed: int) -> None:
    """Write until killed, journaling each write's intent and ack (line-buffered, so a line the
    parent reads was written before the kill)."""
    rng = random.Random(seed)
    mem = TrulyMem(db, user_id=user, embedder="hashing")
    tasks: list[str] = []
    commits: list[str] = []
    with open(journal, "a", buffering=1, encoding="utf-8") as log:
        for i in range(1_000_000):
            op = rng.choice(["commit", "commit", "task", "state", "move", "memory", "purge"])
            if op == "state" and not tasks or op == "purge" and not commits:
                op = "commit"
            entry: dict[str, Any] = {"i": i, "op": op}
            if op == "commit":
                entry |= {"prefix": f"{tag}-{i}-", "n": rng.randint(1, 200)}
            elif op == "task":
                entry["task"] = f"Task_{tag}_{i}"
            elif op == "state":
                entry |= {"task": rng.choice(tasks), "state": rng.choice(STATES)}
            elif op == "move":
                entry["city"] = f"city-{tag}-{i}"
            elif op == "memory":
                entry["text"] = f"memory {tag} {i}"
            else:
                entry["object"] = rng.choice(commits) + "0"
            log.write(json.dumps({**entry, "phase": "intent"}) + "\n")
            if op == "commit":
                mem.commit([{"subject": "user", "relation": "holds", "object": f"{entry['prefix']}{j}"}
                            for j in range(entry["n"])])
                commits.append(entry["prefix"])
            elif op == "task":
                mem.task_create(entry["task"], f"task {i} of {tag}")
                tasks.append(entry["task"])
            elif op == "state":
                mem.task_set_state(entry["task"], entry["state"])
            elif op == "move":
                mem.commit([{"subject": "user", "relation": "lives_in", "object": entry["city"]}])
            elif op == "memory":
                entry["id"] = mem.call("add_memory", {"text": entry["text"]}).result["results"][0]["id"]  # type: ignore[index]
            else:
                mem.purge({"subject": "user", "relation": "holds", "object": entry["object"]})
            log.write(json.dumps({**entry, "phase": "ack"}) + "\n")


def read_journal(path: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """``(acknowledged writes, the last intent if it has no ack)``; a torn last line is ignored."""
    acked: list[dict[str, Any]] = []
    pending: dict[str, Any] | None = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry["phase"] == "intent":
                pending = entry
            else:
                acked.append(entry)
                pending = None
    return acked, pending


def verify_writer(db: str, user: str, journal: str) -> tuple[int, list[str]]:
    """``(acknowledged writes, lost or half-done ones)`` of one killed writer."""
    acked, pending = read_journal(journal)
    conn = sqlite3.connect(db)
    lost: list[str] = []

    def valid_objects(relation: str, like: str) -> int:
        return int(conn.execute(
            "SELECT count(*) FROM facts f JOIN nodes o ON o.rid = f.object_rid WHERE f.user_id = ? AND "
            "f.relation_key = ? AND f.invalid_at IS NULL AND o.name LIKE ?", (user, relation_key(relation), like)
        ).fetchone()[0])

    def state(task: str) -> str | None:
        row = conn.execute(
            "SELECT s.name FROM nodes t JOIN facts f ON f.subject_rid = t.rid AND f.kind = 'HAS_STATE' "
            "AND f.invalid_at IS NULL JOIN nodes s ON s.rid = f.object_rid WHERE t.user_id = ? AND t.name = ?",
            (user, task)).fetchone()
        return None if row is None else str(row[0])

    try:
        purged = {e["object"] for e in acked if e["op"] == "purge"} | (
            {pending["object"]} if pending and pending["op"] == "purge" else set())
        final_state: dict[str, set[str]] = {}
        for e in acked:
            if e["op"] == "commit":
                want = e["n"] - sum(f"{e['prefix']}{j}" in purged for j in range(e["n"]))
                got = valid_objects("holds", e["prefix"] + "%")
                if got != want and not (got == want + 1 and f"{e['prefix']}0" in purged):
                    lost.append(f"commit {e['prefix']}*: {got} of {want} facts")
            elif e["op"] == "task":
                final_state[e["task"]] = {"in_progress"}
                if state(e["task"]) is None:
                    lost.append(f"task {e['task']} has no state")
            elif e["op"] == "state":
                final_state[e["task"]] = {e["state"]}
            elif e["op"] == "memory":
                row = conn.execute("SELECT invalid_at FROM facts WHERE id = ?", (e["id"],)).fetchone()
                if row is None or row[0] is not None:
                    lost.append(f"memory {e['id']} {'missing' if row is None else 'invalid'}")
            elif e["op"] == "purge" and valid_objects("holds", e["object"]) != 0:
                lost.append(f"purged {e['object']} is still valid")
        if pending and pending["op"] == "state":
            final_state.setdefault(pending["task"], set()).add(pending["state"])
        lost += [f"task {t} is {state(t)!r}, not one of {sorted(s)}" for t, s in final_state.items()
                 if state(t) not in s]
        moves = [e["city"] for e in acked if e["op"] == "move"]
        if moves:
            allowed = {moves[-1]} | ({pending["city"]} if pending and pending["op"] == "move" else set())
            here = {c for c in allowed if valid_objects("lives_in", c)}
            if len(here) != 1:
                lost.append(f"lives_in is none of / several of {sorted(allowed)}")
        if pending and pending["op"] == "commit":
            got = valid_objects("holds", pending["prefix"] + "%")
            if got not in (0, pending["n"]):
                lost.append(f"the commit cut short left {got} of {pending['n']} facts")
    finally:
        conn.close()
    return len(acked), lost


# --- mixed load on a shared user --------------------------------------------------------------

def mixed(db: str, worker: int, seconds: float, seed: int) -> dict[str, Any]:
    """Random tool calls for ``seconds`` on the shared user ``shared``; returns the counts."""
    rng = random.Random(seed)
    mem = TrulyMem(db, user_id="shared", embedder="hashing")
    mem.ensure_user()  # reads of a user nobody has written for are an error, and a reader may start first
    ops: Counter[str] = Counter()
    errors: list[str] = []
    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        i += 1
        op = rng.choice(["commit", "commit", "move", "task", "state", "purge", "supersede", "recall", "memory",
                         "update", "list"])
        try:
            if op == "commit":
                mem.commit([{"subject": rng.choice(["user", "User", "ｕｓｅｒ"]), "relation": rng.choice(["likes", "dislikes"]),
                             "object": rng.choice(SHARED_NAMES)} for _ in range(rng.randint(1, 20))])
            elif op == "move":
                mem.commit([{"subject": "user", "relation": "lives_in", "object": rng.choice(SHARED_NAMES)}])
            elif op == "task":
                mem.task_create(f"Task_w{worker}_{i}", f"task {i} of worker {worker}", info_nodes=[rng.choice(SHARED_NAMES)])
            elif op == "state":
                tasks = mem.task_list(limit=20).tasks
                if tasks:
                    mem.task_set_state(rng.choice(tasks).task_id, rng.choice(STATES))
            elif op == "purge":
                mem.purge({"subject": "user", "relation": "likes", "object": rng.choice(SHARED_NAMES)})
            elif op == "supersede":  # matching nothing is no error: nothing is written
                mem.purge({"subject": "user", "relation": "dislikes", "object": rng.choice(SHARED_NAMES)},
                          mode="supersede", replacement={"object": rng.choice(SHARED_NAMES)})
            elif op == "recall":
                mem.recall(rng.choice(["coffee", "TaskNode,task_chain", "lives_in", "jazz,猫娘"]), depth=2)
            elif op == "memory":
                mem.call("add_memory", {"text": f"note {rng.choice(SHARED_NAMES)} {rng.randint(0, 50)}"})
            elif op == "update":
                items = mem.call("get_memories", {"page_size": 20}).result["results"]  # type: ignore[index]
                notes = [m for m in items if m["relation"] == "memory"]
                if notes:
                    mem.call("update_memory", {"memory_id": rng.choice(notes)["id"],
                                               "text": f"note {rng.choice(SHARED_NAMES)} {rng.randint(0, 50)}"})
            else:
                mem.call("get_memories", {"filters": {"memory": {"icontains": rng.choice(SHARED_NAMES)}}})
            ops[op] += 1
        except Exception as exc:  # every failure is reported: the test and the benchmark count them
            errors.append(f"{op}: {type(exc).__name__}: {exc}"[:300])
    mem.close()
    return {"worker": worker, "ops": dict(ops), "errors": errors}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["writer", "mixed"])
    ap.add_argument("--db", required=True)
    ap.add_argument("--user", default="alice")
    ap.add_argument("--tag", default="w")
    ap.add_argument("--journal")
    ap.add_argument("--worker", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.mode == "writer":
        writer(args.db, args.user, args.tag, args.journal, args.seed)
    else:
        print(json.dumps(mixed(args.db, args.worker, args.seconds, args.seed)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
