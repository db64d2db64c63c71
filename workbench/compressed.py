"""Static files sent gzip-compressed, each compressed once and kept in memory.

Tornado's ``compress_response`` compresses every response as it is written,
on the server's one event loop (ten viewers arriving together cost it 6
CPU-seconds); static files are compressed here once per file version (path,
modification time, size) and the cached bytes sent to every browser that
accepts gzip. ``compress_response`` is left for the small dynamic answers.
The measurements: docs/dashboards.md.
"""

from __future__ import annotations

import gzip
import mimetypes
import os
import threading
from collections import OrderedDict

#: What is worth compressing: text, scripts, styles, JSON, SVG (fonts and
#: images are compressed already).
COMPRESSIBLE = ("text/", "application/javascript", "application/x-javascript", "application/json",
                "image/svg+xml", "application/xml")
#: Files smaller than this go as they are (gzip's header outweighs the saving).
MIN_BYTES = 1024
#: The cache's bound in compressed bytes: every static file a dashboard page
#: fetches is about 3 MB; the least recently sent are dropped beyond this.
CACHE_BYTES = 64 * 2**20
LEVEL = 6


class GzipCache:
    """Compressed copies of files, keyed by (path, mtime, size), least recently used dropped first."""

    def __init__(self, limit: int = CACHE_BYTES):
        self.limit = limit
        self._items: OrderedDict[tuple, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, path: str) -> bytes | None:
        """``path`` compressed, or None when it is not worth it (small, not text, unreadable)."""
        mime, _ = mimetypes.guess_type(path)
        if not mime or not mime.startswith(COMPRESSIBLE):
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        if st.st_size < MIN_BYTES:
            return None
        key = (path, st.st_mtime_ns, st.st_size)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        try:
            with open(path, "rb") as f:
                data = gzip.compress(f.read(), LEVEL, mtime=0)
        except OSError:
            return None
        with self._lock:
            if key not in self._items:
                self._items[key] = data
                self._bytes += len(data)
            while self._bytes > self.limit and len(self._items) > 1:
                _, old = self._items.popitem(last=False)
                self._bytes -= len(old)
        return data

    @property
    def size(self) -> int:
        """Compressed bytes held."""
        return self._bytes


CACHE = GzipCache()


def accepts_gzip(header: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header gets gzip: the test Tornado's
    ``compress_response`` applies to every other answer (the word ``gzip``
    anywhere in it), so a browser gets the same encoding from both."""
    return "gzip" in (header or "")


def precompressed(cls):
    """``cls``, a Tornado ``StaticFileHandler``, sending the cached gzip copy of
    each file to browsers that accept it (a byte range is cut from the file itself)."""

    class Precompressed(cls):
        _workbench_gz: bytes | None = None

        def validate_absolute_path(self, root, absolute_path):
            path = super().validate_absolute_path(root, absolute_path)
            self._workbench_gz = None
            if (path is not None and "Range" not in self.request.headers
                    and accepts_gzip(self.request.headers.get("Accept-Encoding"))):
                self._workbench_gz = gz = CACHE.get(path)
                if gz is not None:  # for this request only: the class's get_content still hashes the file for its ETag
                    self.get_content = lambda abspath, start=None, end=None: gz[start:end]
            return path

        def set_extra_headers(self, path):
            super().set_extra_headers(path)  # Vary: Accept-Encoding is added by the server's compress_response
            if self._workbench_gz is not None:
                self.set_header("Content-Encoding", "gzip")

        def get_content_size(self):
            if self._workbench_gz is not None:
                return len(self._workbench_gz)
            return super().get_content_size()

    Precompressed.__name__ = f"Precompressed{cls.__name__}"
    return Precompressed
