#!/usr/bin/env python3
"""Measures the overhead of web_search above the slowest engine (PERF-2).

Two loopback engines answer every request after the same delay, at once.
Each records the moment it finished writing its answer; the overhead of a
call is the moment its response line reached this script minus the later
of the two engines' moments. It covers everything rypsok adds after the
last engine answered: worker-net's read, the parser worker, merging,
ranking, cleaning, the envelope and the stdio round trip back (the time
before the engines answer, from the call to their requests, is reported
apart as the dispatch time).

By default both engines are Wikipedia-type (the project's captured answer
of en.wikipedia); --with-brave makes the second one Brave (its captured web
answer) and paces calls at one per 1.1 s to stay inside Brave's published
rate, which rypsok keeps per engine.

--cache turns the search cache on ([cache] enabled) and measures the hit
latency instead: each query is searched twice, and the second call, which
both Wikipedia-type engines answer from the cache without a request, is
timed from the moment it was sent to its response line. The first call of
each pair, a miss that asks both engines, is timed the same way (it
includes the engines' delay) for comparison.

A call's response is timed when its line has been read, before this
script decodes it.

Each run prints the machine's load average (1, 5, 15 minutes) before and
after: the figures are wall-clock medians, meaningful only with the load
they were taken under.

--metrics adds a `[metrics]` listener (on a free loopback port), so that a
run with it beside one without gives the cost of counting; every run also
prints the CPU time rypsok and its workers spent per call.

Usage: python3 tests/bench/search_overhead.py [--runs N] [--delay-ms D]
       [--with-brave | --cache] [--metrics] [--bin target/release/rypsok]
Build first with `cargo build --release --locked`. Prints median and p99.
"""
import argparse
import http.server
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_load import cpu_seconds  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WIKIPEDIA = os.path.join(ROOT, "worker-parse/testdata/wikipedia/en_search_counter_strike_2021.json")
BRAVE = os.path.join(ROOT, "worker-parse/testdata/brave/web_search_hello_world_2024.json")


class Engine:
    """A loopback engine: answers `body` after `delay_s`, records when each
    answer was written and when each request arrived (its first line read). It speaks HTTP/1.1
    and keeps a connection open for the next request, as search engines
    do, and sends without waiting on Nagle's algorithm (TCP_NODELAY), so
    that its head and body leave when it writes them."""

    def __init__(self, body, delay_s):
        self.body = body
        self.delay_s = delay_s
        self.answered = []
        self.arrived = []
        engine = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def parse_request(self):
                # The request arrived when its first line was read: the
                # time this script then takes to parse the head is the
                # engine's, not rypsok's.
                self.arrived_at = time.perf_counter()
                return super().parse_request()

            def do_GET(self):
                engine.arrived.append(self.arrived_at)
                time.sleep(engine.delay_s)
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(engine.body)))
                self.end_headers()
                self.wfile.write(engine.body)
                self.wfile.flush()
                engine.answered.append(time.perf_counter())

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def config(first, second, with_brave, cache=False, metrics=False):
    second_engine = (
        f'[engines.brave]\ntype = "brave"\nendpoint = "http://127.0.0.1:{second.port}/res/v1/web/search"\n'
        'api_key_env = "RYPSOK_BENCH_BRAVE_KEY"\n'
        if with_brave
        else f'[engines.wikipedia2]\ntype = "wikipedia"\nendpoint = "http://127.0.0.1:{second.port}/w/api.php"\n'
    )
    return (
        "config_version = 1\n[service]\ncontact = \"bench@example.org\"\n"
        "[limits]\nweb_search_per_minute = 100000\n"
        + ("[cache]\nenabled = true\n" if cache else "")
        + ('[metrics]\nbind = "127.0.0.1:0"\n' if metrics else "")
        +
        f'[egress]\nallow = ["127.0.0.1:{first.port}", "127.0.0.1:{second.port}"]\n'
        f'[engines.wikipedia]\ntype = "wikipedia"\nendpoint = "http://127.0.0.1:{first.port}/w/api.php"\n'
        + second_engine
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--with-brave", action="store_true")
    parser.add_argument("--cache", action="store_true")
    parser.add_argument("--metrics", action="store_true")
    parser.add_argument("--bin", default=os.path.join(ROOT, "target/release/rypsok"))
    args = parser.parse_args()

    with open(WIKIPEDIA, "rb") as f:
        first = Engine(f.read(), args.delay_ms / 1000)
    with open(BRAVE if args.with_brave else WIKIPEDIA, "rb") as f:
        second = Engine(f.read(), args.delay_ms / 1000)

    workdir = tempfile.mkdtemp(prefix="rypsok-bench-")
    path = os.path.join(workdir, "rypsok.toml")
    with open(path, "w") as f:
        f.write(config(first, second, args.with_brave, args.cache, args.metrics))
    env = {k: v for k, v in os.environ.items() if k not in ("RYPSOK_CONFIG", "BRAVE_API_KEY")}
    env["RYPSOK_BENCH_BRAVE_KEY"] = "bench-key"
    proc = subprocess.Popen([args.bin, "serve", "--transport", "stdio", "--config", path],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)

    def request(rid, method, params):
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                      "params": params}) + "\n").encode())
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            # The line is in: what follows is this script's own work.
            received = time.perf_counter()
            if not line:
                raise SystemExit("rypsok exited")
            answer = json.loads(line)
            if answer.get("id") == rid:
                return answer, received

    request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "bench", "version": "1"}})
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    proc.stdin.flush()

    load_before = os.getloadavg()
    if args.cache:
        hits, misses, warmup = [], [], 5
        for i in range(warmup + args.runs):
            call = {"name": "web_search",
                    "arguments": {"query": f"counter strike {i}", "max_results": 5}}
            before = (len(first.arrived), len(second.arrived))
            miss_sent_at = time.perf_counter()
            _, miss_received = request(2 * i + 1, "tools/call", call)
            asked = (len(first.arrived), len(second.arrived))
            if i >= warmup and asked == (before[0] + 1, before[1] + 1):
                misses.append((miss_received - miss_sent_at) * 1000)
            sent_at = time.perf_counter()
            answer, received = request(2 * i + 2, "tools/call", call)
            notices = answer["result"].get("structuredContent", {}).get("notices", [])
            cached = sum(1 for n in notices if n.get("code") == "from_cache")
            if i >= warmup and cached == 2 and asked == (len(first.arrived), len(second.arrived)):
                hits.append((received - sent_at) * 1000)
        proc.stdin.close()
        proc.wait(timeout=5)
        if len(hits) < 2:
            raise SystemExit("too few calls answered wholly from the cache")
        hits.sort()
        p99 = hits[min(len(hits) - 1, int(round(0.99 * (len(hits) - 1))))]
        print(f"cache on, wikipedia + wikipedia; calls answered from the cache: {len(hits)}")
        print(f"web_search hit latency (call sent to response): median {statistics.median(hits):.2f} ms, "
              f"p99 {p99:.2f} ms, max {hits[-1]:.2f} ms")
        if misses:
            print(f"web_search miss latency (both engines asked, answering after {args.delay_ms:g} ms): "
                  f"median {statistics.median(misses):.2f} ms over {len(misses)} calls")
        print_load(load_before)
        return

    overheads, dispatches, outcomes = [], [], {}
    warmup = 5
    cpu_before = None
    for i in range(warmup + args.runs):
        if i == warmup:
            cpu_before = cpu_seconds(proc.pid)
        sent_at = time.perf_counter()
        before = (len(first.answered), len(second.answered))
        answer, received = request(i + 1, "tools/call", {
            "name": "web_search", "arguments": {"query": f"counter strike {i}", "max_results": 5}})
        result = answer["result"]
        outcome = result.get("structuredContent", {}).get("outcome", "error")
        if len(first.answered) == before[0] + 1 and len(second.answered) == before[1] + 1:
            last = max(first.answered[-1], second.answered[-1])
            earliest = min(first.arrived[-1], second.arrived[-1])
            if i >= warmup:
                overheads.append((received - last) * 1000)
                dispatches.append((earliest - sent_at) * 1000)
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if args.with_brave:
            time.sleep(max(0.0, 1.1 - (time.perf_counter() - sent_at)))

    cpu_per_call = (cpu_seconds(proc.pid) - cpu_before) / args.runs * 1e6
    proc.stdin.close()
    proc.wait(timeout=5)
    if len(overheads) < 2:
        raise SystemExit("too few calls where both engines answered")
    overheads.sort()
    p99 = overheads[min(len(overheads) - 1, int(round(0.99 * (len(overheads) - 1))))]
    engines = "wikipedia + brave" if args.with_brave else "wikipedia + wikipedia"
    print(f"engines: {engines}, answering after {args.delay_ms:g} ms; calls measured: {len(overheads)}; "
          f"outcomes: {outcomes}")
    print(f"web_search overhead above the slowest engine: median {statistics.median(overheads):.2f} ms, "
          f"p99 {p99:.2f} ms, max {overheads[-1]:.2f} ms (target PERF-2: < 2 ms median, < 10 ms p99)")
    print(f"dispatch (call sent to first engine request): median {statistics.median(dispatches):.2f} ms")
    print(f"rypsok CPU per call (supervisor and workers): {cpu_per_call:.0f} us"
          + (" (metrics on)" if args.metrics else ""))
    print_load(load_before)


def print_load(before):
    after = os.getloadavg()
    print("load average before: {:.2f} {:.2f} {:.2f}; after: {:.2f} {:.2f} {:.2f}; cores: {}".format(
        *before, *after, os.cpu_count()))


if __name__ == "__main__":
    main()
