"""The kernel websocket cannot be turned against the server or show a viewer its insides.

* the hostile sequence that used to hang the server (a websocket without the
  v1 subprotocol, a ``comm_open`` of ``jupyter.widget.control`` and a
  ``request_states``; and a v1 frame claiming 2**60 parts) leaves the server
  answering HTTP within 1 s with its memory unchanged, while the same
  sequence in the browser's framing gets the widget states (a live socket);
* a kernel error caused over the websocket reaches the viewer as the plain
  sentence, never as a traceback, file path or source line;
* when a viewer's kernel dies, the page says so.
"""
from __future__ import annotations

import json
import time
import uuid
from urllib.parse import urlsplit

import psutil
import pytest

from workbench.kernelchannel import PLAIN_ERROR

from browserkit import V1, collect, idle_after, kernel_id_of, kernel_message, run_in_thread, v1_frame

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.xdist_group("full-server")]

LOST = "This dashboard lost its connection: reload the page."


def http_get(url: str, timeout: float, headers: dict | None = None):
    import http.client

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""), headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace"), resp
    finally:
        conn.close()


def widget_control(version: str | None = "1.0.0") -> tuple[dict, dict]:
    """The two messages of the hang: open the widget control comm, ask it for every widget's state."""
    meta = {"version": version} if version is not None else {}
    comm_id = uuid.uuid4().hex
    return (kernel_message("comm_open", {"comm_id": comm_id, "target_name": "jupyter.widget.control", "data": {}},
                           metadata=meta),
            kernel_message("comm_msg", {"comm_id": comm_id, "data": {"method": "request_states"}}, metadata=meta))


def states(msg: dict) -> bool:
    """Whether ``msg`` is the widget control's answer: every widget's state."""
    return msg.get("msg_type") == "comm_msg" and msg["content"]["data"].get("method") == "update_states"


def test_the_hostile_websocket_sequence_leaves_the_server_answering(server):
    fills = server.pools_filled("changes.ipynb")
    status, body, _ = http_get(server.url + "voila/render/changes.ipynb", 120)
    assert status == 200
    ws_url = server.url.replace("http://", "ws://") + f"api/kernels/{kernel_id_of(body)}/channels"
    # a viewer's connection holds the kernel: a page that never connects is released about 30 s
    # after it was served, which the waits below can outlast on a busy machine
    from websockets.sync.client import connect

    with connect(ws_url, subprotocols=[V1], open_timeout=60):
        _hostile_sequence_on(server, ws_url, fills)


def _hostile_sequence_on(server, ws_url: str, fills: int) -> None:
    # the taken kernel's replacement preheats in the server process (its notebook rendered there):
    # let it finish first, so that the memory measured below is the attack's alone
    server.wait_pools({"changes.ipynb": fills + 1}, timeout=180)
    server.wait_quiet(timeout=120)
    proc = psutil.Process(server.proc.pid)
    rss_before = proc.memory_info().rss

    async def attack():
        from tornado.httpclient import HTTPClientError
        from tornado.websocket import websocket_connect

        refused = None
        try:  # the older JSON framing: no subprotocol
            ws = await websocket_connect(ws_url)
        except HTTPClientError as exc:
            refused = exc.code
        else:
            for msg in widget_control():
                ws.write_message(json.dumps(msg))
            await collect(ws, 2)
            ws.close()
        # a v1 socket sent a frame whose first 8 bytes claim 2**60 offsets, and the JSON framing as bytes
        ws = await websocket_connect(ws_url, subprotocols=[V1])
        ws.write_message((2**60).to_bytes(8, "little") + b"\x00" * 56, binary=True)
        for msg in widget_control():
            ws.write_message(json.dumps(msg).encode(), binary=True)
        # then the browser's own framing: the socket still works and answers with the widgets' states
        for msg in widget_control():
            ws.write_message(v1_frame(msg), binary=True)
        got = await collect(ws, 6, until=lambda got: any(states(m) for m in got))
        ws.close()
        return refused, got

    refused, got = run_in_thread(attack(), 60)
    assert refused == 400
    assert any(states(m) for m in got), [m.get("msg_type") for m in got]
    for _ in range(6):  # answers every time within 1 s, for 3 s
        t0 = time.monotonic()
        status, _, _ = http_get(server.url, timeout=1.0)
        assert status == 200 and time.monotonic() - t0 < 1.0
        time.sleep(0.5)
    grown = proc.memory_info().rss - rss_before
    assert grown < 40 * 2**20, f"the server grew by {grown / 2**20:.0f} MB"
    assert proc.cpu_percent(interval=1.0) < 50


def test_a_kernel_error_reaches_the_viewer_as_a_plain_sentence(server):
    status, body, _ = http_get(server.url + "voila/render/gunfire.ipynb", 120)
    assert status == 200
    ws_url = server.url.replace("http://", "ws://") + f"api/kernels/{kernel_id_of(body)}/channels"

    async def provoke():
        from tornado.websocket import websocket_connect

        ws = await websocket_connect(ws_url, subprotocols=[V1])
        # no protocol version: ipywidgets raises in the kernel, and ipykernel prints the traceback to stderr
        sent = widget_control(version=None)
        for msg in sent:
            ws.write_message(v1_frame(msg), binary=True)
        got = await collect(ws, 6, until=idle_after(*(m["header"]["msg_id"] for m in sent)))
        ws.close()
        return got

    got = run_in_thread(provoke(), 60)
    stderr = [m for m in got if m.get("msg_type") == "stream" and m["content"].get("name") == "stderr"]
    assert stderr, [m.get("msg_type") for m in got]  # the kernel did complain...
    assert all(m["content"]["text"] == PLAIN_ERROR + "\n" for m in stderr)  # ...in plain words
    everything = json.dumps(got)
    for leak in ("Traceback", "File \\\"", ".py", "site-packages", "/work/", "ValueError", "line "):
        assert leak not in everything, leak


def kernel_process(server, kernel_id: str) -> psutil.Process:
    for child in psutil.Process(server.proc.pid).children():
        try:
            cmdline = child.cmdline()
        except (psutil.ZombieProcess, psutil.NoSuchProcess):  # an earlier test's kernel, not yet reaped
            continue
        if any(kernel_id in arg for arg in cmdline):
            return child
    raise AssertionError(f"no process for kernel {kernel_id}")


@pytest.mark.browser
def test_a_dead_kernel_tells_the_viewer_to_reload(page, server):
    page.goto(server.url + "voila/render/antares.ipynb")
    page.wait_for_selector(".wb-plot-dist .main-svg")
    assert page.locator("#wb-lost").count() == 0  # nothing said while all is well
    kernel_id = page.evaluate("JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId")
    kernel_process(server, kernel_id).kill()
    page.wait_for_selector("#wb-lost", timeout=120_000)
    assert LOST in page.inner_text("#wb-lost")
