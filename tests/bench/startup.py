#!/usr/bin/env python3
"""Measures rypsok's cold start and its memory at rest (PERF-1, PERF-3 idle).

Cold start: process start to the answer of `initialize` (the supervisor
answers only once worker-net and every worker-parse have said hello).
Memory: resident set of the supervisor and all its workers together, read
from /proc after the handshake, with the server idle.

Usage: python3 tests/bench/startup.py [--runs N] [--bin target/release/rypsok]
Prints medians and the spread; build first with `cargo build --release --locked`.
"""
import argparse
import json
import os
import statistics
import subprocess
import time


def rss_kib(pid):
    """Resident memory of `pid` in KiB; 0 for a process that is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rfind(")") + 2:].split()
        if int(rest[1]) == pid:
            out.append(int(name))
    return out


def one_run(binary):
    env = {k: v for k, v in os.environ.items() if k not in ("RYPSOK_CONFIG", "BRAVE_API_KEY")}
    started = time.perf_counter()
    proc = subprocess.Popen([binary, "serve", "--transport", "stdio"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
    proc.stdin.write((json.dumps(init) + "\n").encode())
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    cold_ms = (time.perf_counter() - started) * 1000
    assert answer.get("result"), answer
    time.sleep(0.3)  # at rest: nothing in flight
    pids = [proc.pid] + children(proc.pid)
    total = sum(rss_kib(p) for p in pids)
    proc.stdin.close()
    proc.wait(timeout=5)
    return cold_ms, total / 1024, len(pids)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--bin", default="target/release/rypsok")
    args = parser.parse_args()
    one_run(args.bin)  # warm the page cache
    colds, mems, procs = [], [], set()
    for _ in range(args.runs):
        cold, mem, n = one_run(args.bin)
        colds.append(cold)
        mems.append(mem)
        procs.add(n)
    q = statistics.quantiles
    print(f"runs: {args.runs}; processes per run: {sorted(procs)}")
    print(f"cold start to initialize answer: median {statistics.median(colds):.1f} ms, "
          f"p10 {q(colds, n=10)[0]:.1f}, p90 {q(colds, n=10)[-1]:.1f} (target PERF-1: < 50 ms)")
    print(f"RSS of all processes at rest: median {statistics.median(mems):.1f} MiB, "
          f"min {min(mems):.1f}, max {max(mems):.1f} (target PERF-3 idle: < 40 MiB)")


if __name__ == "__main__":
    main()
