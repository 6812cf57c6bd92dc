#!/usr/bin/env python3
"""Measures web_fetch on loopback: the latency of one fetch of a 100 KiB page,
and the peak resident memory of all rypsok processes while 8 fetches of
5 MiB pages run at once (issue 5's closing figures).

A loopback site (plain HTTP, reached as `site.test` through `[egress] hosts`
and an `[egress] allow` rule for its port, with `allow_http`) serves a
robots.txt that allows everything, a 100 KiB page and a page just under the
5 MiB byte limit, both text/plain so that the figures measure the pipeline
(worker-net, worker-parse, the content boundary, the window, the stdio round
trip) rather than HTML extraction. Latency is from writing the request line
to reading the response line; robots.txt is read once and then kept.

Usage: python3 tests/bench/fetch.py [--runs N] [--bin target/release/rypsok]
Build first with `cargo build --release --locked`. Prints median and p99 of
the 100 KiB fetch, and the peak RSS of all processes during the 8 parallel
5 MiB fetches (sampled every 5 ms).
"""
import argparse
import http.server
import json
import os
import statistics
import subprocess
import tempfile
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup import children, rss_kib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE_100K = b"".join((b"line %05d of a plain text page, padded to eighty bytes " % i).ljust(79, b"x") + b"\n"
                     for i in range(1280))
PAGE_5M = b"y" * (5 * 1024 * 1024 - 4096)


class Site:
    def __init__(self):
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = {"/robots.txt": b"User-agent: *\nAllow: /\n",
                        "/p100": PAGE_100K, "/p5": PAGE_5M}.get(self.path)
                if body is None:
                    self.send_response(404)
                    body = b"not here"
                else:
                    self.send_response(200)
                self.send_header("content-type", "text/plain; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.send_header("connection", "close")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--bin", default=os.path.join(ROOT, "target/release/rypsok"))
    args = parser.parse_args()
    site = Site()
    config = ("config_version = 1\n[service]\ncontact = \"bench@example.org\"\n"
              "[limits]\nweb_fetch_per_minute = 100000\n"
              f"[egress]\nallow_http = true\nallow = [\"127.0.0.1:{site.port}\"]\n"
              "[egress.hosts]\n\"site.test\" = [\"127.0.0.1\"]\n")
    fd, path = tempfile.mkstemp(suffix=".toml")
    with os.fdopen(fd, "w") as f:
        f.write(config)
    env = {k: v for k, v in os.environ.items() if k not in ("RYPSOK_CONFIG", "BRAVE_API_KEY")}
    proc = subprocess.Popen([args.bin, "serve", "--transport", "stdio", "--config", path],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    next_id = [0]

    def send(method, params):
        next_id[0] += 1
        line = {"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params}
        proc.stdin.write((json.dumps(line) + "\n").encode())
        proc.stdin.flush()
        return next_id[0]

    def read():
        while True:
            message = json.loads(proc.stdout.readline())
            if "id" in message:
                return message

    def fetch_args(page):
        return {"name": "web_fetch",
                "arguments": {"url": f"http://site.test:{site.port}/{page}"}}

    send("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "bench", "version": "1"}})
    read()
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    proc.stdin.flush()

    send("tools/call", fetch_args("p100"))  # warm: robots.txt read and kept
    assert read()["result"]["structuredContent"]["outcome"] == "ok"
    times = []
    for _ in range(args.runs):
        started = time.perf_counter()
        send("tools/call", fetch_args("p100"))
        answer = read()
        times.append((time.perf_counter() - started) * 1000)
        assert answer["result"]["structuredContent"]["outcome"] == "ok", answer
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(f"100 KiB page, {args.runs} fetches: median {statistics.median(times):.1f} ms, "
          f"p99 {p99:.1f} ms")

    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            total = sum(rss_kib(p) for p in [proc.pid] + children(proc.pid))
            peak[0] = max(peak[0], total)
            time.sleep(0.005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.perf_counter()
    for _ in range(8):
        send("tools/call", fetch_args("p5"))
    outcomes = [read()["result"]["structuredContent"].get("outcome", "error") for _ in range(8)]
    took = (time.perf_counter() - started) * 1000
    done.set()
    sampler.join()
    print(f"8 parallel 5 MiB fetches: {outcomes.count('ok')} ok in {took:.0f} ms; "
          f"peak RSS of all processes {peak[0] / 1024:.1f} MiB")
    proc.stdin.close()
    proc.wait(timeout=10)
    os.unlink(path)


if __name__ == "__main__":
    main()
