#!/usr/bin/env python3
"""Measures web_search latency over a simulated network path.

One loopback engine (Wikipedia-type, the project's captured answer of
en.wikipedia) answers after --delay-ms; rypsok reaches it through
latency_relay.py, set as the engine's `endpoint`, which charges one round
trip for each new connection and half a round trip each way for each chunk
(--rtt-ms, default 30). The engine is search_overhead.py's: it keeps
connections open (HTTP/1.1 keep-alive) for whoever wants to reuse them.

Each start of rypsok makes --searches searches one after another: the
first is cold (no connection to the engine yet), the rest are warm. Two
configurations run interleaved, start by start: connections kept
(`[limits]` as default) and not kept (`pool_idle_per_origin = 0`). A
build that does not know `pool_idle_per_origin` runs both without the
setting and says so.

A search's latency is the moment its response line reached this script
minus the moment its call was sent; "above the engine" subtracts the time
the engine itself took (request arrived to answer written). The relay's
own lateness (how long after its due time each chunk left) is reported
beside the figures: it is the bench's error, not rypsok's. So is the
floor of the path itself, timed with no rypsok on it: a bare HTTP/1.1
request of this script's on a kept connection through the same relay to
the same engine; what a warm search adds above that floor is rypsok's.
The relay's count of accepted connections gives the connections per
search.

Usage: python3 tests/bench/search_latency.py [--rtt-ms 30] [--delay-ms 20]
       [--starts 3] [--searches 20] [--bin target/release/rypsok]
Build first with `cargo build --release --locked`. Prints medians and p99,
and the machine's load average before and after.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from latency_relay import Relay  # noqa: E402
from search_overhead import ROOT, WIKIPEDIA, Engine, print_load  # noqa: E402

POOL_KEY = "pool_idle_per_origin"


def config(relay_port, keep):
    limits = "[limits]\nweb_search_per_minute = 100000\n"
    if not keep:
        limits += f"{POOL_KEY} = 0\n"
    return (
        'config_version = 1\n[service]\ncontact = "bench@example.org"\n' + limits
        + f'[egress]\nallow = ["127.0.0.1:{relay_port}"]\n'
        f'[engines.wikipedia]\ntype = "wikipedia"\n'
        f'endpoint = "http://127.0.0.1:{relay_port}/w/api.php"\n'
    )


class Rypsok:
    """One rypsok on stdio with `config_text`; `None` from `start` when it
    refused the configuration (its error output is kept in `refusal`)."""

    def __init__(self, binary, workdir, config_text):
        path = os.path.join(workdir, "rypsok.toml")
        with open(path, "w") as f:
            f.write(config_text)
        self.errors = tempfile.TemporaryFile(dir=workdir)
        env = {k: v for k, v in os.environ.items() if k not in ("RYPSOK_CONFIG", "BRAVE_API_KEY")}
        self.proc = subprocess.Popen(
            [binary, "serve", "--transport", "stdio", "--config", path],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, env=env)
        self.next_id = 0

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        try:
            self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                               "params": params}) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            return None, time.perf_counter()
        while True:
            line = self.proc.stdout.readline()
            received = time.perf_counter()
            if not line:
                return None, received
            answer = json.loads(line)
            if answer.get("id") == rid:
                return answer, received

    def start(self):
        answer, _ = self.request("initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}})
        if answer is None:
            self.proc.wait(timeout=5)
            self.errors.seek(0)
            self.refusal = self.errors.read().decode(errors="replace")
            return None
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()
        return self

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def one_start(args, engine, relay, workdir, keep, query_base):
    """Searches --searches times in one new rypsok; returns
    (latencies above the engine in ms, cold first, warm rest), connections
    per search, and whether the configuration was taken as written."""
    written = True
    rypsok = Rypsok(args.bin, workdir, config(relay.port, keep)).start()
    if rypsok is None and not keep:
        written = False
        rypsok = Rypsok(args.bin, workdir, config(relay.port, True)).start()
    if rypsok is None:
        raise SystemExit("rypsok refused the bench's configuration")
    above, connections = [], []
    for i in range(args.searches):
        own_before = len(engine.arrived)
        conns_before = relay.accepted()
        sent = time.perf_counter()
        answer, received = rypsok.request("tools/call", {
            "name": "web_search",
            "arguments": {"query": f"{query_base} {i}", "max_results": 5}})
        if answer is None:
            raise SystemExit("rypsok exited")
        outcome = answer["result"].get("structuredContent", {}).get("outcome")
        asked = engine_times(engine, own_before)
        if outcome != "ok" or len(asked) != 1:
            raise SystemExit(f"search {i}: outcome {outcome}, engine asked {len(asked)} times")
        above.append(((received - sent) - asked[0]) * 1000)
        connections.append(relay.accepted() - conns_before)
    rypsok.stop()
    return above, connections, written


def engine_times(engine, own_before):
    """How long the engine took for each request since `own_before`
    (request arrived to answer written). The engine notes its answer just
    after writing it: the note is let land before it is paired with its
    request."""
    for _ in range(100):
        if len(engine.answered) >= len(engine.arrived):
            break
        time.sleep(0.001)
    return [done - came for came, done in
            zip(engine.arrived[own_before:], engine.answered[own_before:])]


def bare_client(engine, relay, count):
    """The same path without rypsok: this script asks the engine through
    the relay on one kept connection with a bare HTTP/1.1 request, read
    with no more work than finding the end of the answer; a first request
    opens the connection, then `count` more are timed. Returns their
    latencies above the engine, in ms: the floor of the bench itself (the
    relay's own hops and this script's), below anything a client of the
    engine could do."""
    sock = socket.create_connection(("127.0.0.1", relay.port), timeout=10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    above = []
    for i in range(count + 1):
        own_before = len(engine.arrived)
        sent = time.perf_counter()
        sock.sendall(f"GET /w/api.php?search=bare+{i} HTTP/1.1\r\n"
                     "Host: 127.0.0.1\r\n\r\n".encode())
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                raise SystemExit("the engine closed the bare client's connection")
            data += chunk
            head_end = data.find(b"\r\n\r\n")
            if head_end < 0:
                continue
            length = int(data.lower().split(b"content-length:", 1)[1].split(b"\r\n", 1)[0])
            if len(data) >= head_end + 4 + length:
                break
        received = time.perf_counter()
        asked = engine_times(engine, own_before)
        if not data.startswith(b"HTTP/1.1 200") or len(asked) != 1:
            raise SystemExit(f"bare client {i}: {data[:40]!r}")
        if i > 0:
            above.append(((received - sent) - asked[0]) * 1000)
    sock.close()
    return above


def p99(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtt-ms", type=float, default=30.0)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--searches", type=int, default=20)
    parser.add_argument("--bin", default=os.path.join(ROOT, "target/release/rypsok"))
    args = parser.parse_args()
    if args.rtt_ms <= 0:
        raise SystemExit("--rtt-ms must be above 0")
    if args.searches < 2:
        raise SystemExit("--searches must be at least 2 (one cold, the rest warm)")

    with open(WIKIPEDIA, "rb") as f:
        engine = Engine(f.read(), args.delay_ms / 1000)
    relay = Relay(("127.0.0.1", engine.port), args.rtt_ms / 1000)
    workdir = tempfile.mkdtemp(prefix="rypsok-bench-")

    results = {True: ([], [], []), False: ([], [], [])}
    bare = []
    setting_known = True
    load_before = os.getloadavg()
    for start in range(args.starts):
        bare.extend(bare_client(engine, relay, args.searches - 1))
        for keep in (True, False):
            above, conns, written = one_start(args, engine, relay, workdir, keep,
                                              f"counter strike {start} {keep}")
            setting_known = setting_known and written
            cold, warm, connections = results[keep]
            cold.append(above[0])
            warm.extend(above[1:])
            connections.extend(conns[1:])

    late = sorted(relay.lateness_ms())
    relay.close()
    print(f"web_search through a relay charging RTT {args.rtt_ms:g} ms per new connection and "
          f"RTT/2 per chunk each way; engine answering after {args.delay_ms:g} ms; "
          f"{args.starts} starts x {args.searches} searches per configuration")
    if not setting_known:
        print(f"  this build does not know [limits] {POOL_KEY}: both runs use its default")
    for keep, label in ((True, "connections kept (default)"),
                        (False, f"connections not kept ({POOL_KEY} = 0)")):
        cold, warm, connections = results[keep]
        print(f"  {label}:")
        print(f"    cold (first search), above the engine: median {statistics.median(cold):.1f} ms "
              f"= {statistics.median(cold) / args.rtt_ms:.2f} RTT")
        print(f"    warm (following searches), above the engine: median "
              f"{statistics.median(warm):.1f} ms = {statistics.median(warm) / args.rtt_ms:.2f} RTT, "
              f"p99 {p99(warm):.1f} ms; new connections per warm search: "
              f"{sum(connections) / len(connections):.2f}")
    if late:
        print(f"  the relay's own lateness (chunk sent after it was due): median "
              f"{statistics.median(late):.2f} ms, p99 {p99(late):.2f} ms over {len(late)} chunks; "
              "a search's figure includes it once per chunk its request and answer took")
    floor = statistics.median(bare)
    warm = statistics.median(results[True][1])
    print(f"  the bench's own floor, a bare HTTP/1.1 request of this script's on a kept connection "
          f"through the same relay (no rypsok): median {floor:.1f} ms above the engine "
          f"= RTT + {floor - args.rtt_ms:.1f} ms, p99 {p99(bare):.1f} ms")
    print(f"  target: a warm search at most one RTT + 3 ms = {args.rtt_ms + 3:g} ms above the engine; "
          f"measured {warm:.1f} ms, less the bench's floor RTT + {warm - floor:.1f} ms")
    print_load(load_before)


if __name__ == "__main__":
    main()
