"""Bytes on the wire between a browser and a dashboard server, counted by a relay.

Playwright and the DevTools protocol report websocket payloads decompressed
(permessage-deflate), so what a viewer's connection really carries is
counted here, in a TCP relay the browser is pointed at instead of the
server (the pages use no absolute address, so every request and websocket
goes through it). Used by ``benchmarks/bench_dashboard.py`` and the browser
tests of a slider move's cost.
"""
from __future__ import annotations

import socket
import threading
import time
from urllib.parse import urlsplit


class WireCounter:
    """A TCP relay between Chromium and the server that counts the bytes on
    the wire, both ways, for websocket connections (an ``Upgrade:
    websocket`` request) and for plain HTTP ones: websocket payloads as
    Playwright reports them are decompressed (permessage-deflate), so what a
    phone receives is counted here. The page is opened on :attr:`url`."""

    def __init__(self, server_url: str):
        parts = urlsplit(server_url)
        self._target = (parts.hostname, parts.port)
        self._listener = socket.create_server((parts.hostname, 0))  # the server's host: the same origin
        self.url = server_url.replace(f":{parts.port}", f":{self._listener.getsockname()[1]}", 1)
        self._lock = threading.Lock()
        self.reset()
        threading.Thread(target=self._accept, daemon=True).start()

    def reset(self) -> None:
        with self._lock:
            self.counts = {("ws", "in"): 0, ("ws", "out"): 0, ("http", "in"): 0, ("http", "out"): 0}

    def _accept(self) -> None:

        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self._target)
            kind = {"v": None}
            threading.Thread(target=self._pipe, args=(client, upstream, kind, "out"), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, kind, "in"), daemon=True).start()

    def _pipe(self, src, dst, kind, direction) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if direction == "out" and kind["v"] is None:
                    kind["v"] = "ws" if b"upgrade: websocket" in data[:4096].lower() else "http"
                while kind["v"] is None:  # the answer cannot come before the request
                    time.sleep(0.001)
                with self._lock:
                    self.counts[(kind["v"], direction)] += len(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                try:
                    sock.shutdown(2)
                except OSError:
                    pass

    def ws(self) -> int:
        return self.counts[("ws", "in")] + self.counts[("ws", "out")]

    def http(self) -> int:
        return self.counts[("http", "in")] + self.counts[("http", "out")]

    def close(self) -> None:
        self._listener.close()

    def __enter__(self) -> "WireCounter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
