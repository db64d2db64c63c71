"""Viewers' places (``--max-kernels``) are held only by viewers who are there.

A page request that never opens its kernel's websocket (a link preview, a
script, a crawler) starts a kernel like a viewer does; that kernel is
released within ``--release-after`` seconds (30 by default; here
:data:`RELEASE_S`, so that the wait is not the test's length) of its page
being served, while a viewer whose page is connected keeps theirs however long
they only look. Above the limit the busy page says when to try again (and
``Retry-After`` the same). One live server on a free loopback port, plain HTTP
and one websocket (no browser needed).
"""
from __future__ import annotations

import http.client
import re
import time
from urllib.parse import urlsplit

import pytest

from workbench.serve import DASHBOARDS, cull_settings

from browserkit import V1, kernel_id_of
from serverkit import ServerProcess

pytestmark = [pytest.mark.server, pytest.mark.slow]

ONE = tuple(d for d in DASHBOARDS if d.notebook == "changes.ipynb")
#: the server's release delay, two thirds of the default: its idle part (13 s), counted from when a
#: page was sent, is the time that page has to connect (a kernel still starting is never culled)
RELEASE_S = 20


def get(url: str) -> tuple[int, str, object]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)
    try:
        conn.request("GET", parts.path)
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace"), resp.headers
    finally:
        conn.close()


def test_a_page_that_never_connects_frees_its_place_and_a_connected_one_keeps_it():
    from websockets.sync.client import connect

    with ServerProcess(port=0, dashboards=ONE, pool_size=0, max_kernels=2, release_after=RELEASE_S,
                       timeout=120) as srv:
        page = srv.url + "voila/render/changes.ipynb"
        status, body, _ = get(page)
        assert status == 200
        viewer = kernel_id_of(body)
        ws_url = srv.url.replace("http://", "ws://") + f"api/kernels/{viewer}/channels"
        with connect(ws_url, subprotocols=[V1], open_timeout=60) as ws:  # a viewer who stays and only looks
            status, body, _ = get(page)  # a request that never connects
            assert status == 200
            lurker = kernel_id_of(body)
            served = time.monotonic()
            status, body, headers = get(page)
            assert status == 503 and headers["Retry-After"] == str(RELEASE_S)
            assert re.search(rf"Try again in {RELEASE_S} seconds", body), body

            def log() -> str:
                return "\n".join(srv.log)

            while not (re.search(rf"Culling .*{lurker}", log()) and srv.kernels() == 1) \
                    and time.monotonic() - served < 90:
                time.sleep(1)
            freed_after = time.monotonic() - served
            assert re.search(rf"Culling .*{lurker}", log()), log()[-2000:]
            assert freed_after <= 3 * RELEASE_S, freed_after  # the culler's next look, and a busy machine's shutdown
            # its idle time started when its page was sent (not when its notebook ran): the whole of it
            assert freed_after >= cull_settings(RELEASE_S)["cull_idle_timeout"] - 1, freed_after
            # the place is free again: once the kernel manager has let the culled kernel go (its process
            # can be gone a moment before), within the same bound
            status, body, _ = get(page)
            while status == 503 and time.monotonic() - served < 3 * RELEASE_S:
                time.sleep(0.5)
                status, body, _ = get(page)
            assert status == 200, (status, time.monotonic() - served)
            assert not re.search(rf"Culling .*{viewer}", log())  # the connected viewer kept theirs
            assert ws.ping().wait(10)  # and their channel is still open
