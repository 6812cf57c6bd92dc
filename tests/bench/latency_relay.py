#!/usr/bin/env python3
"""A loopback relay that charges what a real network charges.

It listens on 127.0.0.1 and forwards each connection to one upstream
(host, port), also on loopback. A new connection costs one round trip
(RTT) before its first byte moves on, as a TCP handshake does; every chunk
then reaches the other side half a round trip after it was read, in
order, in each direction. Chunks are not held behind one another: a chunk
read while another is in flight arrives half an RTT after its own read,
as on a link with no bandwidth limit. It counts the connections it
accepted, so a benchmark can tell a kept connection from a new one.

Used by search_latency.py; runs on its own for trying things by hand:

    python3 tests/bench/latency_relay.py --rtt-ms 30 --upstream 127.0.0.1:8080

prints the port it listens on and relays until interrupted.
"""
import argparse
import asyncio
import threading
import time


class Relay:
    """Relays 127.0.0.1:`port` to `upstream` with `rtt_s` charged as above.
    Runs its own event loop on a daemon thread; `connections` counts the
    connections accepted so far."""

    def __init__(self, upstream, rtt_s):
        self.upstream = upstream
        self.rtt_s = rtt_s
        self.connections = 0
        self._writers = set()
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), daemon=True).start()
        ready.wait()

    def _run(self, ready):
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._accept, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        self._loop.run_forever()

    def close(self):
        """Cuts every relayed connection and ends the relay's loop."""
        async def cut_all():
            for writer in list(self._writers):
                writer.transport.abort()
            # Let each connection's tasks see the cut and end.
            await asyncio.sleep(0.05)

        asyncio.run_coroutine_threadsafe(cut_all(), self._loop).result(timeout=5)
        self._loop.call_soon_threadsafe(self._loop.stop)

    def accepted(self):
        with self._lock:
            return self.connections

    async def _accept(self, client_reader, client_writer):
        with self._lock:
            self.connections += 1
        # The handshake: the client's first byte can leave only once its
        # SYN went out and the SYN-ACK came back.
        open_at = time.perf_counter() + self.rtt_s
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            client_writer.close()
            return
        half = self.rtt_s / 2
        self._writers.update((client_writer, up_writer))
        await asyncio.gather(
            self._pipe(client_reader, up_writer, lambda t: max(t, open_at) + half),
            self._pipe(up_reader, client_writer, lambda t: t + half),
            return_exceptions=True)
        for writer in (up_writer, client_writer):
            self._writers.discard(writer)
            writer.close()

    async def _pipe(self, reader, writer, due_of):
        """Copies `reader` to `writer`, each chunk at `due_of(read time)`."""
        queue = asyncio.Queue()

        async def deliver():
            while True:
                due, chunk = await queue.get()
                wait = due - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not chunk:
                    break
                writer.write(chunk)
                await writer.drain()
            # The sender's end travels like its data: after half an RTT.
            try:
                writer.write_eof()
            except OSError:
                pass

        sender = asyncio.ensure_future(deliver())
        try:
            while True:
                chunk = await reader.read(65536)
                queue.put_nowait((due_of(time.perf_counter()), chunk))
                if not chunk:
                    break
        except OSError:
            queue.put_nowait((0.0, b""))
        try:
            await sender
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtt-ms", type=float, default=30.0)
    parser.add_argument("--upstream", required=True, help="host:port on loopback")
    args = parser.parse_args()
    host, port = args.upstream.rsplit(":", 1)
    relay = Relay((host, int(port)), args.rtt_ms / 1000)
    print(f"relaying 127.0.0.1:{relay.port} -> {args.upstream} at RTT {args.rtt_ms:g} ms",
          flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
