"""The cache of gzip-compressed static files, and what counts as accepting gzip."""
from __future__ import annotations

import gzip
import os

import pytest

from workbench.compressed import MIN_BYTES, GzipCache, accepts_gzip


def write(path, data: bytes):
    path.write_bytes(data)
    return str(path)


def test_a_text_file_is_compressed_once_and_inflates_to_itself(tmp_path):
    data = b"function roll(d) { return d >= 4; }\n" * 500
    path = write(tmp_path / "a.js", data)
    cache = GzipCache()
    first = cache.get(path)
    assert gzip.decompress(first) == data and len(first) < len(data) / 5
    assert cache.get(path) is first  # from the cache, not compressed again
    assert cache.size == len(first)


def test_a_changed_file_is_compressed_again(tmp_path):
    path = write(tmp_path / "a.css", b"body { margin: 0 }\n" * 200)
    cache = GzipCache()
    cache.get(path)
    write(tmp_path / "a.css", b"body { margin: 1px }\n" * 300)
    os.utime(path, ns=(1, 1))  # another modification time even on a coarse clock
    assert gzip.decompress(cache.get(path)) == b"body { margin: 1px }\n" * 300


@pytest.mark.parametrize("name, data", [("small.js", b"x" * (MIN_BYTES - 1)), ("font.woff2", b"\0" * 5000),
                                        ("picture.png", b"\x89PNG" + b"\0" * 5000), ("noext", b"a" * 5000)])
def test_small_or_binary_files_are_left_as_they_are(tmp_path, name, data):
    assert GzipCache().get(write(tmp_path / name, data)) is None


def test_a_missing_file_is_none(tmp_path):
    assert GzipCache().get(str(tmp_path / "gone.js")) is None


def test_the_cache_drops_the_least_recently_sent_beyond_its_bound(tmp_path):
    rng = __import__("random").Random(7)
    paths = [write(tmp_path / f"{i}.js", bytes(rng.getrandbits(8) for _ in range(4000))) for i in range(3)]
    one = len(gzip.compress((tmp_path / "0.js").read_bytes()))
    cache = GzipCache(limit=int(one * 2.5))
    a, b = cache.get(paths[0]), cache.get(paths[1])
    assert cache.get(paths[0]) is a  # 0 is now the most recent
    cache.get(paths[2])  # over the bound: 1, the least recent, goes
    assert cache.size <= cache.limit
    assert cache.get(paths[0]) is a and cache.get(paths[1]) is not b


@pytest.mark.parametrize("header, accepted", [
    ("gzip, deflate, br, zstd", True), ("br;q=1.0, gzip;q=0.8", True),
    ("deflate, br", False), ("", False), (None, False), ("identity", False),
])
def test_accept_encoding_is_read_as_tornado_reads_it(header, accepted):
    import tornado.httputil
    import tornado.web

    assert accepts_gzip(header) is accepted
    request = tornado.httputil.HTTPServerRequest(
        start_line=tornado.httputil.RequestStartLine("GET", "/", "HTTP/1.1"), headers=tornado.httputil.HTTPHeaders({"Host": "localhost", **({"Accept-Encoding": header} if header else {})}))
    assert tornado.web.GZipContentEncoding(request)._gzipping is accepted  # the same choice for dynamic answers
