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

Each direction of each connection has a reading thread and a delivering
thread that sleeps until a chunk is due (`time.sleep`, which is precise
to tens of microseconds, where an event loop's timers round up to the
millisecond). How late each chunk left after it was due is recorded:
`lateness_ms()` gives the relay's own error, so a benchmark can say how
much of what it measured the relay added beyond the charge.

Used by search_latency.py; runs on its own for trying things by hand:

    python3 tests/bench/latency_relay.py --rtt-ms 30 --upstream 127.0.0.1:8080

prints the port it listens on and relays until interrupted.
"""
import argparse
import queue
import socket
import threading
import time


class Relay:
    """Relays 127.0.0.1:`port` to `upstream` with `rtt_s` charged as above.
    `accepted()` counts the connections accepted so far."""

    def __init__(self, upstream, rtt_s):
        self.upstream = upstream
        self.rtt_s = rtt_s
        self.connections = 0
        self._late = []
        self._sockets = set()
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept_loop, daemon=True).start()

    def accepted(self):
        with self._lock:
            return self.connections

    def lateness_ms(self):
        """How late each chunk so far left after it was due, in ms."""
        with self._lock:
            return [late * 1000 for late in self._late]

    def close(self):
        """Cuts every relayed connection and stops accepting."""
        with self._lock:
            sockets = list(self._sockets) + [self._listener]
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def _accept_loop(self):
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
            # The handshake: the client's first byte can leave only once
            # its SYN went out and the SYN-ACK came back.
            open_at = time.perf_counter() + self.rtt_s
            try:
                upstream = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            half = self.rtt_s / 2
            for sock in (client, upstream):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._sockets.update((client, upstream))
            ended = threading.Semaphore(0)
            self._pipe(client, upstream, lambda t: max(t, open_at) + half, ended)
            self._pipe(upstream, client, lambda t: t + half, ended)
            threading.Thread(target=self._close_after, args=(ended, client, upstream),
                             daemon=True).start()

    def _close_after(self, ended, *sockets):
        """Closes a connection's two sockets once both directions ended."""
        ended.acquire()
        ended.acquire()
        with self._lock:
            self._sockets.difference_update(sockets)
        for sock in sockets:
            sock.close()

    def _pipe(self, src, dst, due_of, ended):
        """Copies `src` to `dst`, each chunk at `due_of(read time)`."""
        chunks = queue.Queue()

        def read():
            while True:
                try:
                    chunk = src.recv(65536)
                except OSError:
                    chunk = b""
                chunks.put((due_of(time.perf_counter()), chunk))
                if not chunk:
                    return

        def deliver():
            try:
                deliver_until_end()
            finally:
                ended.release()

        def deliver_until_end():
            while True:
                due, chunk = chunks.get()
                wait = due - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                late = time.perf_counter() - due
                try:
                    if not chunk:
                        # The sender's end travels like its data.
                        dst.shutdown(socket.SHUT_WR)
                        return
                    dst.sendall(chunk)
                except OSError:
                    return
                with self._lock:
                    self._late.append(late)

        threading.Thread(target=read, daemon=True).start()
        threading.Thread(target=deliver, daemon=True).start()


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
