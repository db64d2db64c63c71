"""Serving options on live servers of their own (each on a free loopback port, stopped by the test).

* ``--token``: without it, pages, static files and the kernel websocket are
  refused with a page that says a token is needed (never the token); a link
  with ``?token=`` works, sets a cookie and keeps working for that browser;
  a non-loopback host without a token gets a generated one, unless ``--public``;
* ``--max-kernels``: the viewer above the limit gets 503 and the "busy" page;
  a viewer leaving (Voila's shutdown beacon, with its ``_xsrf`` cookie) makes room;
* a link's values reach the dashboard (its preheated kernel reads them over the
  server's link channel) on 127.0.0.2 without a prefix, with and without a token
  (test_serving.py: under a prefix, on the session's servers);
* a taken port: one line on stderr and exit status 2.

None uses the session's server, so this module runs in a worker of its own
while that one serves the page tests (tests/conftest.py).
"""
from __future__ import annotations

import re
import socket
import subprocess
import sys
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

import pytest

from workbench.serve import DASHBOARDS, PROJECT_ROOT

from browserkit import (V1, check_a_link_with_values_restores_them, collect, kernel_id_of, kernel_message, replied,
                        request, run_in_thread, v1_frame)
from serverkit import ServerProcess

pytestmark = [pytest.mark.server, pytest.mark.slow]

TOKEN = "playtest-Evening-7f3a9c"
ONE = tuple(d for d in DASHBOARDS if d.notebook == "changes.ipynb")
PLOT = ".js-plotly-plot .main-svg"


# ---------------------------------------------------------------- token

@pytest.fixture(scope="module")
def token_server():
    # on 127.0.0.2 (loopback on Linux, standing for a LAN address): the link test below shares it
    with ServerProcess(port=0, host="127.0.0.2", dashboards=ONE, token=TOKEN, timeout=120) as srv:
        srv.wait_pools(timeout=300)
        yield srv


GUARDED = ["", "voila/render/changes.ipynb", "voila/render/changes.ipynb?bs=4", "voila/static/voila.js",
           "voila/templates/lab/static/index.css",
           "voila/labextensions/anywidget/package.json"]


@pytest.mark.xdist_group("serving-token")
@pytest.mark.parametrize("path", GUARDED)
def test_a_request_without_the_token_is_refused_with_a_plain_page(token_server, path):
    for query in ("", "token=wrong-token-123"):
        url = token_server.url + path + (("&" if "?" in path else "?") + query if query else "")
        status, body, _ = request(url)
        assert status == 401, (url, status)
        assert "access token" in body and TOKEN not in body


def _cookie(headers) -> str:
    jar = SimpleCookie()
    for value in headers.get_all("Set-Cookie") or []:
        jar.load(value)
    return "; ".join(f"{k}={m.value}" for k, m in jar.items())


@pytest.mark.xdist_group("serving-token")
def test_the_token_link_sets_a_cookie_that_opens_everything(token_server):
    status, _, headers = request(token_server.url + f"voila/render/changes.ipynb?bs=4&token={TOKEN}")
    assert status == 302
    assert headers["Location"] == "/voila/render/changes.ipynb?bs=4"  # the token is not kept in the address
    cookie = _cookie(headers)
    assert cookie and TOKEN not in cookie
    for path in GUARDED:
        assert request(token_server.url + path, headers={"Cookie": cookie})[0] == 200, path


@pytest.mark.xdist_group("serving-token")
def test_the_kernel_websocket_needs_the_token_too(token_server):
    status, _, headers = request(token_server.url + f"?token={TOKEN}")
    cookie = _cookie(headers)
    status, body, _ = request(token_server.url + "voila/render/changes.ipynb", headers={"Cookie": cookie})
    assert status == 200
    ws_url = token_server.url.replace("http://", "ws://") + f"api/kernels/{kernel_id_of(body)}/channels"

    async def talk():
        from tornado.httpclient import HTTPClientError, HTTPRequest
        from tornado.websocket import websocket_connect

        try:
            await websocket_connect(ws_url, subprotocols=[V1])
            refused = None
        except HTTPClientError as exc:
            refused = exc.code
        ws = await websocket_connect(HTTPRequest(ws_url, headers={"Cookie": cookie}), subprotocols=[V1])
        info = kernel_message("kernel_info_request", {})
        ws.write_message(v1_frame(info), binary=True)
        got = await collect(ws, 5, until=replied(info["header"]["msg_id"], "kernel_info_reply"))
        ws.close()
        return refused, info["header"]["msg_id"], got

    refused, info_id, got = run_in_thread(talk(), 60)
    assert refused == 403
    assert any(m.get("msg_type") == "kernel_info_reply" and m["parent_header"].get("msg_id") == info_id for m in got)


NO_KERNEL = "00000000-0000-4000-8000-000000000000"  # the id the proxy test knocks with; its refusals are expected


@pytest.mark.xdist_group("serving-token")
def test_the_kernels_link_channel_needs_the_token_or_a_kernel_of_this_server(token_server):
    """voila/query/<kernel id> is admitted without the token only for the id of
    a kernel this server runs (the kernel's own credential, from any address):
    a stranger knocking with any other id is refused, straight or through a proxy."""
    url = token_server.url.replace("http://", "ws://") + f"voila/query/{NO_KERNEL}"

    async def knock(headers, where=url):
        from tornado.httpclient import HTTPClientError, HTTPRequest
        from tornado.websocket import websocket_connect

        try:
            ws = await websocket_connect(HTTPRequest(where, headers=headers))
        except HTTPClientError as exc:
            return exc.code
        ws.close()
        return 101

    assert run_in_thread(knock({"X-Forwarded-For": "203.0.113.7"}), 30) == 403
    assert run_in_thread(knock({"X-Real-IP": "203.0.113.7"}), 30) == 403
    assert run_in_thread(knock({}), 30) == 403
    assert run_in_thread(knock({}, url.replace(NO_KERNEL, "..%2F..%2Fapi")), 30) in (403, 404)
    assert run_in_thread(knock({"Authorization": f"token {TOKEN}"}), 30) == 101  # the token opens it, as any route


@pytest.mark.browser
@pytest.mark.xdist_group("serving-token")
def test_a_browser_with_the_link_keeps_working_and_one_without_is_told(browser, token_server):
    with_link = browser.new_context()
    without = browser.new_context()
    try:
        page = with_link.new_page()
        page.set_default_timeout(120_000)
        page.goto(token_server.url + f"voila/render/changes.ipynb?bs=8&token={TOKEN}")
        page.wait_for_selector(PLOT)
        assert TOKEN not in page.url
        # the link's values reach the (preheated) kernel: its request-info channel is not shut out by the token
        assert page.inner_text(".wb-slider-bs .widget-readout").strip() == "8"
        assert "bs=8" in page.url
        refused = [ln for ln in token_server.log if "voila/query" in ln and " 403 " in f" {ln} " and NO_KERNEL not in ln]
        assert not refused, f"a kernel was refused: {refused}"
        assert page.goto(token_server.url).status == 200  # later visits need no token
        stranger = without.new_page()
        response = stranger.goto(token_server.url + "voila/render/changes.ipynb")
        assert response.status == 401
        assert "access token" in stranger.inner_text("body") and TOKEN not in stranger.content()
    finally:
        with_link.close()
        without.close()


def _served(extra: tuple[str, ...]) -> ServerProcess:
    return ServerProcess(port=0, host="0.0.0.0", dashboards=ONE, pool_size=0, extra_args=extra, timeout=120)


def test_a_non_loopback_host_gets_a_generated_token_unless_public():
    with _served(()) as srv:
        port = urlsplit(srv.url).port
        links = srv.output_lines("voila/render/changes.ipynb")
        token = re.search(r"\?token=([A-Za-z0-9_-]{16,})$", links[0]).group(1)
        status, body, _ = request(f"http://127.0.0.1:{port}/")
        assert status == 401 and token not in body
        assert request(f"http://127.0.0.1:{port}/?token={token}")[0] == 302
    with _served(("--public",)) as srv:
        port = urlsplit(srv.url).port
        assert srv.output_lines("voila/render/changes.ipynb")  # the links are out, and carry no token
        assert not [ln for ln in srv.out if "token" in ln]
        assert request(f"http://127.0.0.1:{port}/")[0] == 200


# ---------------------------------------------------------------- a link's values without a prefix

@pytest.fixture(scope="module")
def lan_plain():
    with ServerProcess(port=0, host="127.0.0.2", dashboards=ONE, pool_size=1, timeout=120) as srv:
        srv.wait_pools(timeout=300)
        yield srv


#: a token and none on 127.0.0.2, each served by a server of this module
ADDRESSES = {"token": "token_server", "plain": "lan_plain"}


@pytest.mark.browser
@pytest.mark.parametrize("served", list(ADDRESSES))
def test_a_link_with_values_restores_them(browser, request, served):
    check_a_link_with_values_restores_them(browser, request.getfixturevalue(ADDRESSES[served]))


# ---------------------------------------------------------------- max kernels

@pytest.fixture(scope="module")
def small_server():
    with ServerProcess(port=0, dashboards=ONE, max_kernels=2, timeout=120) as srv:
        srv.wait_pools(timeout=300)
        yield srv


@pytest.mark.xdist_group("serving-small")
def test_the_viewer_above_max_kernels_gets_busy_and_a_leaving_viewer_makes_room(small_server):
    from contextlib import ExitStack

    from websockets.sync.client import connect

    page_url = small_server.url + "voila/render/changes.ipynb"
    ws_base = small_server.url.replace("http://", "ws://") + "api/kernels/"
    with ExitStack() as viewers:  # two viewers whose pages are connected (a page that never connects is released)
        first = request(page_url)
        assert first[0] == 200
        viewers.enter_context(connect(ws_base + f"{kernel_id_of(first[1])}/channels", subprotocols=[V1]))
        second = request(page_url)
        assert second[0] == 200
        viewers.enter_context(connect(ws_base + f"{kernel_id_of(second[1])}/channels", subprotocols=[V1]))
        status, body, headers = request(page_url)
        assert status == 503 and "busy" in body and "Try again" in body and headers["Retry-After"]
        _leave_and_make_room(small_server, page_url, first)


def _leave_and_make_room(small_server, page_url, first):
    """The first viewer leaves (Voila's shutdown beacon): the next viewer gets a page."""
    # the first viewer closes the page: Voila's beacon, a form with the _xsrf cookie's value
    cookie = _cookie(first[2])
    xsrf = SimpleCookie(cookie)["_xsrf"].value
    boundary = "----workbench"
    form = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"_xsrf\"\r\n\r\n{xsrf}\r\n--{boundary}--\r\n")
    status, body, _ = request(small_server.url + f"voila/api/shutdown/{kernel_id_of(first[1])}", method="POST",
                              headers={"Cookie": cookie, "Content-Type": f"multipart/form-data; boundary={boundary}"},
                              body=form.encode())
    assert status == 204, body[:300]
    assert request(page_url)[0] == 200


# ---------------------------------------------------------------- a taken port

def test_a_taken_port_is_one_clear_line_and_status_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "workbench.serve", "--port", str(port), "--dashboards",
                               "changes", "--pool-size", "0"], cwd=PROJECT_ROOT, capture_output=True, text=True,
                              timeout=120)
    assert proc.returncode == 2
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert errors == [f"error: port {port} on 127.0.0.1 is already in use (another server?): stop it, "
                      f"or choose another port with --port or PORT"]
    assert "Traceback" not in proc.stderr and "OSError" not in proc.stderr
