#!/usr/bin/env python3
"""Measures the HTTP transport under load (PERF-5): `engine_status` calls
answered per second over `rypsok serve --transport http` on loopback with
64 concurrent callers, rypsok's CPU time (supervisor and workers, from
/proc) per answered call, and the resident memory of all rypsok processes
at the end of the load.

Each caller is one keep-alive HTTP/1.1 connection sending 2026-07-28
`tools/call` requests one after another. With `--era legacy` each caller is
instead a session of the handshake-based revision.

Every caller of a tokenless listener counts against one rate-limit budget
(REQ-SEC-019: a session is no caller of its own), and a listener has one
token, so callers cannot be given budgets of their own. The bench gives the
run the whole budget instead: the tool's limit is raised to its ceiling
(100000 a minute) and each run gets a new rypsok, so a run of a few seconds
stays inside it and every call is answered by the tool. An answer refused
by the limit is counted apart, never as an answered call; a run that sees
any says so (shorten `--seconds`).

Usage: python3 tests/bench/http_load.py [--bin target/release/rypsok]
           [--callers 64] [--seconds 5] [--runs 3] [--era current|legacy]
           [--metrics]
--metrics adds a `[metrics]` listener (on a free loopback port) to the
configuration, so that a run with it beside one without gives the cost of
counting.
Prints the median of the runs and the load average they ran under; build
first with `cargo build --release --locked`.
"""
import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup import children, rss_kib  # noqa: E402

CONFIG = """config_version = 1
[limits]
engine_status_per_minute = 100000
[http]
bind = "127.0.0.1:0"
"""
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}


def request_bytes(host, body, headers):
    head = [f"POST /mcp HTTP/1.1", f"Host: {host}", "Content-Type: application/json",
            "Accept: application/json, text/event-stream", f"Content-Length: {len(body)}"]
    head += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def read_answer(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    lower = head.lower()
    body = b""
    if b"transfer-encoding: chunked" in lower:
        while True:
            size = int((await reader.readline()).strip() or b"0", 16)
            if size == 0:
                await reader.readline()
                break
            body += (await reader.readexactly(size + 2))[:-2]
    else:
        m = re.search(rb"content-length:\s*(\d+)", lower)
        if m:
            body = await reader.readexactly(int(m.group(1)))
    session = re.search(rb"mcp-session-id:\s*([^\r\n]+)", lower)
    return status, body, session.group(1).decode() if session else None


def message_of(body):
    for line in body.split(b"\n"):
        if line.startswith(b"data:") and line[5:].strip():
            msg = json.loads(line[5:])
            if "id" in msg:
                return msg
    return json.loads(body)


class Caller:
    def __init__(self, host, port, era):
        self.host, self.port, self.era = host, port, era
        self.session = None

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        if self.era == "legacy":
            init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"}}}
            status, _, self.session = await self.exchange(init, {})
            assert status == 200 and self.session, status
            status, _, _ = await self.exchange(
                {"jsonrpc": "2.0", "method": "notifications/initialized"}, self.headers())
            assert status == 202, status

    def headers(self):
        if self.era == "legacy":
            return {"Mcp-Session-Id": self.session, "MCP-Protocol-Version": "2025-11-25"}
        return {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
                "Mcp-Name": "engine_status"}

    async def exchange(self, message, headers):
        body = json.dumps(message).encode()
        self.writer.write(request_bytes(f"{self.host}:{self.port}", body, headers))
        return await read_answer(self.reader)

    async def close(self):
        """Ends the session (LIM-H6 counts open ones) and the connection."""
        if self.session:
            self.writer.write((f"DELETE /mcp HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                               f"Mcp-Session-Id: {self.session}\r\n"
                               "MCP-Protocol-Version: 2025-11-25\r\n\r\n").encode())
            await read_answer(self.reader)
        self.writer.close()

    async def call(self, n):
        params = {"name": "engine_status", "arguments": {}}
        if self.era == "current":
            params["_meta"] = META
        status, body, _ = await self.exchange(
            {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}, self.headers())
        assert status == 200, (status, body[:200])
        result = message_of(body)["result"]
        if not result.get("isError", False):
            return "answered"
        return "refused" if b"rate_limited" in body else "failed"


def cpu_seconds(pid):
    """User plus system CPU time of rypsok and its workers so far."""
    total = 0
    for p in [pid] + children(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                rest = f.read().rsplit(")", 1)[1].split()
            total += int(rest[11]) + int(rest[12])
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def total_rss_kib(pid):
    return sum(rss_kib(p) for p in [pid] + children(pid)), 1 + len(children(pid))


async def load(host, port, callers, seconds, era, pid):
    clients = [Caller(host, port, era) for _ in range(callers)]
    await asyncio.gather(*(c.open() for c in clients))
    counts = {"answered": 0, "refused": 0, "failed": 0}
    latencies = []
    stop = time.perf_counter() + seconds

    async def run(client):
        n = 1
        while time.perf_counter() < stop:
            t = time.perf_counter()
            kind = await client.call(n)
            if kind == "answered":
                latencies.append(time.perf_counter() - t)
            counts[kind] += 1
            n += 1

    memory = []

    async def sample():
        # The last reading is taken in the load's final quarter second.
        while time.perf_counter() < stop - 0.25:
            await asyncio.sleep(0.25)
            memory.append(total_rss_kib(pid))

    started = time.perf_counter()
    await asyncio.gather(sample(), *(run(c) for c in clients))
    elapsed = time.perf_counter() - started
    await asyncio.gather(*(c.close() for c in clients))
    return counts, elapsed, latencies, memory[-1]


def start(binary, tmp, env, metrics):
    """A new rypsok listening on loopback, and its address."""
    config = os.path.join(tmp, "rypsok.toml")
    with open(config, "w") as f:
        f.write(CONFIG + ('[metrics]\nbind = "127.0.0.1:0"\n' if metrics else ""))
    log = open(os.path.join(tmp, "rypsok.log"), "w+")
    proc = subprocess.Popen([binary, "--config", config, "serve", "--transport", "http"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=log, env=env)
    for _ in range(100):
        log.seek(0)
        # The MCP listener's own line: the metrics listener logs an
        # address too.
        m = re.search(r'^(?=.*"event":"listening").*"addr":"(127\.0\.0\.1):(\d+)"',
                      log.read(), re.M)
        if m:
            return proc, (m.group(1), int(m.group(2)))
        time.sleep(0.05)
    proc.terminate()
    proc.wait(timeout=20)
    raise SystemExit("rypsok did not report its address")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/rypsok")
    ap.add_argument("--callers", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--era", choices=["current", "legacy"], default="current")
    ap.add_argument("--metrics", action="store_true")
    args = ap.parse_args()

    env = {k: v for k, v in os.environ.items() if k not in ("RYPSOK_CONFIG", "BRAVE_API_KEY")}
    rates, medians, cpu = [], [], []
    totals = {"answered": 0, "refused": 0, "failed": 0}
    load_before = os.getloadavg()
    for _ in range(args.runs):
        # A new process for each run: the run has the whole of the one
        # budget every tokenless caller shares (see the top of this file).
        with tempfile.TemporaryDirectory() as tmp:
            proc, addr = start(args.bin, tmp, env, args.metrics)
            try:
                cpu_before = cpu_seconds(proc.pid)
                counts, elapsed, lat, (memory, processes) = asyncio.run(
                    load(addr[0], addr[1], args.callers, args.seconds, args.era, proc.pid))
                cpu_used = cpu_seconds(proc.pid) - cpu_before
            finally:
                proc.terminate()
                proc.wait(timeout=20)
        rates.append(counts["answered"] / elapsed)
        cpu.append(cpu_used / max(counts["answered"], 1) * 1e6)
        medians.append(statistics.median(lat) * 1000 if lat else float("nan"))
        for kind, n in counts.items():
            totals[kind] += n
    load_after = os.getloadavg()
    print(f"engine_status over HTTP ({args.era} revision), {args.callers} callers, "
          f"{args.runs} runs of {args.seconds:g} s, a new rypsok for each run")
    print(f"  answered calls per second: median {statistics.median(rates):.0f} "
          f"(runs: {', '.join(f'{r:.0f}' for r in rates)})")
    print(f"  answered call latency: median {statistics.median(medians):.2f} ms")
    # What rypsok itself spends, whatever the client and the machine's
    # other load: 2 cores divided by this is the ceiling of the transport.
    print(f"  rypsok CPU (supervisor + workers) per answered call: median "
          f"{statistics.median(cpu):.0f} us "
          f"(2 cores / that = {2e6 / statistics.median(cpu):.0f} answered calls per second)")
    print(f"  calls answered: {totals['answered']}; refused by the rate limit: {totals['refused']}; "
          f"other errors: {totals['failed']}")
    if totals["refused"]:
        print("  some calls were refused by the rate limit: the run used up the per-minute budget "
              "and the figures above include the refusals' CPU; run with fewer --seconds")
    print(f"  memory of all {processes} processes at the end of the last run's load: "
          f"{memory / 1024:.1f} MiB RSS")
    print("  load average before: {:.2f} {:.2f} {:.2f}; after: {:.2f} {:.2f} {:.2f}; cores: {}".format(
        *load_before, *load_after, os.cpu_count()))


if __name__ == "__main__":
    main()
