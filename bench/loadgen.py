"""One HTTP load generator for the benchmarks (bench_http.py, bench_postgres.py).

It runs in a process of its own (``generate`` starts it) so that its CPU time is its own
and is reported beside the server's. Two modes:

- **paced, open loop** (``rate`` given): request i is due at start + i/rate and is sent
  then whether or not earlier ones have answered — on an idle keep-alive connection, a new
  one (up to ``max_connections``), or else as soon as one frees. Its latency counts from
  when it was due, so a server (or generator) that falls behind shows in the figures instead
  of slowing the sending (a closed loop would send late and hide the queue).
- **flat out** (``rate`` None): ``connections`` keep-alive connections, each sending its
  next request as soon as the last one answered; latency from the send.

Lean on CPU, as it shares the machine with the server: raw HTTP/1.1 on asyncio protocols
(no client library: httpx's per-request parsing and models cost ~10x more CPU than a
header scan), the request bytes built once per body, no task per request (timer callbacks
and the connections' own callbacks), responses read by ``Content-Length`` only.

    python bench/loadgen.py URL PATH BODIES.json --seconds 10 [--rate 100] [--connections 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from collections import deque
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

MAX_CONNECTIONS = 64  # paced mode: beyond this many busy connections a due request waits for one
GRACE = 60.0  # seconds after the last send to wait for the answers still out


def requests(host: str, path: str, bodies: Sequence[bytes], headers: dict[str, str] | None = None) -> list[bytes]:
    """Each body as the whole POST request, built once."""
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items()).encode()
    return [b"POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s"
            % (path.encode(), host.encode(), extra, len(b), b) for b in bodies]


class _Conn(asyncio.Protocol):
    """One keep-alive connection: one request at a time, its answer read by Content-Length."""

    def __init__(self, gen: _Generator) -> None:
        self.gen = gen
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.need = -1  # bytes of the whole response once its head is read
        self.status = b""
        self.start = 0.0  # when the request in flight was due (paced) or sent (flat out)
        self.busy = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.gen.all.append(self)

    def send(self, req: bytes, start: float) -> None:
        self.start, self.busy = start, True
        assert self.transport is not None
        self.transport.write(req)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if self.need < 0:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buf[:end]).lower()
            at = head.find(b"\r\ncontent-length:")
            if at < 0:  # every trulymem answer has a length; anything else counts as an error
                self.gen.failed(self)
                return
            stop = head.find(b"\r\n", at + 2)
            self.need = end + 4 + int(head[at + 17:stop if stop > 0 else len(head)])
            self.status = bytes(self.buf[9:12])
        if len(self.buf) >= self.need:
            del self.buf[:self.need]
            self.need, self.busy = -1, False
            self.gen.done(self, self.status == b"200")

    def connection_lost(self, exc: Exception | None) -> None:
        if self.busy:
            self.gen.failed(self)
        else:  # closed while idle (the server's keep-alive timeout): never hand it a request again
            self.gen.dropped(self)


class _Generator:
    def __init__(self, host: str, port: int, reqs: list[bytes], seconds: float, rate: float | None,
                 connections: int) -> None:
        self.loop = asyncio.get_running_loop()
        self.host, self.port, self.reqs, self.seconds, self.rate = host, port, reqs, seconds, rate
        self.connections = connections
        self.lat: list[float] = []  # ms, from due (paced) or send (flat out) to the whole answer
        self.late: list[float] = []  # ms, the generator's own lag in firing a due request
        self.wait: list[float] = []  # ms, from due until a connection took it
        self.errors = self.opened = self.sent = 0
        self.idle: list[_Conn] = []
        self.all: list[_Conn] = []  # every connection opened, closed at the end
        self.pending: deque[tuple[int, float]] = deque()  # due requests waiting for a connection
        self.outstanding = 0
        self.finished = self.loop.create_future()
        self.start = self.stop = 0.0

    async def run(self) -> None:
        self.start = self.loop.time() + 0.05
        self.stop = self.start + self.seconds
        if self.rate:
            self.loop.call_at(self.start, self._fire, 0)
        else:
            for k in range(self.connections):
                self._open(k, self.start)
            self.loop.call_at(self.stop, self._maybe_finish)  # should every connection have failed
        self.loop.call_at(self.stop + GRACE, self._give_up)
        await self.finished

    def _give_up(self) -> None:
        """Requests still unanswered ``GRACE`` seconds after the last was sent count as errors."""
        if not self.finished.done():
            self.errors += self.outstanding
            self.finished.set_result(None)

    # paced: one timer callback per request, each scheduling the next
    def _fire(self, i: int) -> None:
        due = self.start + i / self.rate  # type: ignore[operator]
        now = self.loop.time()
        self.late.append((now - due) * 1000)
        self.outstanding += 1
        if self.idle:
            self._send(self.idle.pop(), i, due)
        elif self.opened < MAX_CONNECTIONS:
            self._open(i, due)
        else:
            self.pending.append((i, due))
        nxt = self.start + (i + 1) / self.rate  # type: ignore[operator]
        if nxt < self.stop:
            self.loop.call_at(nxt, self._fire, i + 1)
        else:
            self.stop = 0.0  # nothing more to send: finish once all have answered
            self._maybe_finish()

    def _open(self, i: int, due: float) -> None:
        self.opened += 1
        if not self.rate:
            self.outstanding += 1
        task = self.loop.create_task(self.loop.create_connection(lambda: _Conn(self), self.host, self.port))

        def opened(t: asyncio.Task[Any]) -> None:
            if t.exception() is not None:
                self.opened -= 1
                self._count_error()
                return
            self._send(t.result()[1], i, due if self.rate else self.loop.time())

        task.add_done_callback(opened)

    def _send(self, conn: _Conn, i: int, start: float) -> None:
        self.sent += 1
        self.wait.append((self.loop.time() - start) * 1000)
        conn.send(self.reqs[i % len(self.reqs)], start)

    def done(self, conn: _Conn, ok: bool) -> None:
        now = self.loop.time()
        if ok:  # a quick error answer must not pass for throughput or lower the percentiles
            self.lat.append((now - conn.start) * 1000)
        self.errors += not ok
        self.outstanding -= 1
        self._next(conn, now)

    def dropped(self, conn: _Conn) -> None:
        if conn in self.idle and not self.finished.done():
            self.idle.remove(conn)
            self.opened -= 1

    def failed(self, conn: _Conn) -> None:
        conn.busy = False
        if self.finished.done():  # closed at the end, its request already counted by _give_up
            return
        if conn.transport is not None:
            conn.transport.close()
        self.opened -= 1
        self._count_error()
        if self.rate and self.pending:  # a due request waiting for a connection gets a new one
            i, due = self.pending.popleft()
            self._open(i, due)

    def _count_error(self) -> None:
        self.errors += 1
        self.outstanding -= 1
        self._maybe_finish()

    def _next(self, conn: _Conn, now: float) -> None:
        if self.rate:
            if self.pending:
                i, due = self.pending.popleft()
                self._send(conn, i, due)
            else:
                self.idle.append(conn)
                self._maybe_finish()
        elif now < self.stop:
            self.outstanding += 1
            self._send(conn, self.sent, now)
        else:
            self.idle.append(conn)
            self._maybe_finish()

    def _maybe_finish(self) -> None:
        sending = self.loop.time() < self.stop if not self.rate else self.stop > 0
        if not sending and self.outstanding <= 0 and not self.finished.done():
            self.finished.set_result(None)


def pct(values: list[float], q: float) -> float | None:
    s = sorted(values)
    return round(s[min(len(s) - 1, int(q * len(s)))], 2) if s else None


def _run(url: str, path: str, bodies: list[bytes], seconds: float, rate: float | None, connections: int,
         headers: dict[str, str] | None) -> dict[str, Any]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    reqs = requests(f"{host}:{port}", path, bodies, headers)

    async def main() -> _Generator:
        gen = _Generator(host, port, reqs, seconds, rate, connections)
        await gen.run()
        for c in gen.all:
            if c.transport is not None:
                c.transport.close()
        return gen

    c0, t0 = time.process_time(), time.perf_counter()
    gen = asyncio.run(main())
    cpu, wall = time.process_time() - c0, time.perf_counter() - t0
    n = max(1, len(gen.lat))
    return {"requests": len(gen.lat), "sent": gen.sent, "errors": gen.errors, "connections": gen.opened,
            "rps": round(len(gen.lat) / seconds, 1), "wall_s": round(wall, 2),
            "p50_ms": pct(gen.lat, 0.5), "p95_ms": pct(gen.lat, 0.95), "p99_ms": pct(gen.lat, 0.99),
            "generator_lag_p95_ms": pct(gen.late, 0.95), "wait_for_connection_p95_ms": pct(gen.wait, 0.95),
            "generator_cpu_ms_per_req": round(cpu * 1000 / n, 3)}


def generate(url: str, path: str, bodies: Sequence[bytes | dict[str, Any]], seconds: float,
             rate: float | None = None, connections: int = 16, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """Run the generator in a process of its own and return its figures (see the module doc):
    requests answered 200 (the only ones in rps and the percentiles), errors, and its own CPU ms per
    request and lag."""
    raw = [b if isinstance(b, bytes) else json.dumps(b).encode() for b in bodies]
    spec = json.dumps({"bodies": [b.decode() for b in raw], "headers": headers or {}})
    argv = [sys.executable, __file__, url, path, "-", "--seconds", str(seconds), "--connections", str(connections)]
    if rate:
        argv += ["--rate", str(rate)]
    out = subprocess.run(argv, input=spec, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url")
    ap.add_argument("path")
    ap.add_argument("bodies", help="a JSON file: a list of bodies, or {bodies, headers}; - reads stdin")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--rate", type=float, default=None, help="requests/s, open loop (default: flat out)")
    ap.add_argument("--connections", type=int, default=16, help="flat out: connections each sending back to back")
    args = ap.parse_args(argv)
    for name, value in (("--seconds", args.seconds), ("--rate", args.rate), ("--connections", args.connections)):
        if value is not None and not value > 0:
            ap.error(f"{name} must be a positive number, got {value}")
    spec = json.load(sys.stdin if args.bodies == "-" else open(args.bodies))  # noqa: SIM115
    if isinstance(spec, list):
        spec = {"bodies": spec}
    bodies = [b.encode() if isinstance(b, str) else json.dumps(b).encode() for b in spec["bodies"]]
    print(json.dumps(_run(args.url, args.path, bodies, args.seconds, args.rate, args.connections,
                          spec.get("headers"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
