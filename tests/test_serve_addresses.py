"""How a preheated kernel reaches the server for its viewer's link, without a live server.

* :func:`workbench.serve.kernel_link_host`: the address the kernel dials for each
  ``--host`` the server accepts (a LAN address, every interface, IPv6, a name);
* :func:`workbench.ui.query.request_query` under a preheated kernel whose link
  channel answers (the link's query string) and whose channel is unreachable
  (a plain message, never the starting values in silence).
"""
from __future__ import annotations

import asyncio
import json
import socket
import threading

import pytest

from workbench import serve
from workbench.errors import InputError
from workbench.ui import query


@pytest.mark.parametrize("host, dialled", [
    ("127.0.0.1", "127.0.0.1"), ("127.0.0.2", "127.0.0.2"), ("192.168.1.20", "192.168.1.20"),
    ("0.0.0.0", "127.0.0.1"), ("::", "[::1]"), ("::1", "[::1]"), ("fd00::7", "[fd00::7]"),
    ("dice.local", "dice.local"), ("localhost", "localhost"),
])
def test_the_kernel_dials_the_servers_own_host(host, dialled):
    assert serve.kernel_link_host(serve.resolve_host(host)) == dialled


def test_the_kernels_bypass_a_configured_proxy_for_the_servers_host():
    env = serve.kernel_environment("192.168.1.20", {"no_proxy": "example.org", "http_proxy": "http://proxy:3128"})
    assert env["VOILA_APP_IP"] == "192.168.1.20"
    assert env["no_proxy"].split(",") == ["example.org", "192.168.1.20"]
    assert env["NO_PROXY"] == "192.168.1.20"
    assert serve.kernel_environment("::1", {"NO_PROXY": "::1"})["NO_PROXY"] == "::1"  # not twice


def test_the_kernels_run_one_blas_thread_unless_told_otherwise():
    assert {k: serve.kernel_environment("127.0.0.1", {})[k] for k in serve.KERNEL_THREADS} == {
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    kept = serve.kernel_environment("127.0.0.1", {"OMP_NUM_THREADS": "4"})
    assert "OMP_NUM_THREADS" not in kept and kept["OPENBLAS_NUM_THREADS"] == "1"  # the operator's own stays


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def preheated(monkeypatch):
    """A kernel's environment as Voila preheats it: the request not yet received."""
    monkeypatch.setattr(query, "_REQUEST_SEEN", False)
    monkeypatch.setenv("VOILA_PREHEAT", "True")
    monkeypatch.setenv("VOILA_KERNEL_ID", "6f0a3c1e-0000-4000-8000-00000000abcd")
    monkeypatch.setenv("VOILA_APP_IP", "127.0.0.1")
    monkeypatch.setenv("VOILA_SERVER_URL", "/dice/")
    monkeypatch.delenv("VOILA_WS_BASE_URL", raising=False)
    monkeypatch.delenv("QUERY_STRING", raising=False)
    return monkeypatch


def test_a_link_that_never_arrives_is_said_in_plain_words(preheated, capsys):
    preheated.setenv("VOILA_APP_PORT", str(_free_port()))  # nothing listens there
    with pytest.raises(InputError) as raised:
        query.request_query()
    assert str(raised.value) == query.LINK_UNREAD
    assert "link" in str(raised.value) and "_" not in str(raised.value)
    assert capsys.readouterr().err.count("Failed to connect") <= 1  # only the server's log line, not the page


def test_a_link_that_arrives_is_the_query_string(preheated):
    import websockets.asyncio.server as ws_server

    port = _free_port()
    preheated.setenv("VOILA_APP_PORT", str(port))
    seen: list[str] = []
    ready = threading.Event()
    stop: list = []

    async def answer(ws):
        seen.append(ws.request.path)
        await ws.send(json.dumps({"QUERY_STRING": "bs=8&shots=6"}))

    async def serve_once():
        async with ws_server.serve(answer, "127.0.0.1", port):
            loop = asyncio.get_running_loop()
            done = loop.create_future()
            stop.append((loop, done))
            ready.set()
            await done

    thread = threading.Thread(target=asyncio.run, args=(serve_once(),), daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        assert query.request_query() == "bs=8&shots=6"
    finally:
        loop, done = stop[0]
        loop.call_soon_threadsafe(done.set_result, None)
        thread.join(10)
    assert seen == ["/dice/voila/query/6f0a3c1e-0000-4000-8000-00000000abcd"]


def test_pools_preheat_the_first_page_on_loopback_and_two_per_page_elsewhere():
    pages = serve.DASHBOARDS
    assert serve.pool_plan(None, "127.0.0.1", pages) == {"default": 0, pages[0].notebook: 1}
    assert serve.pool_plan(None, "::1", pages) == {"default": 0, pages[0].notebook: 1}
    for host in ("0.0.0.0", "192.168.1.20", "dice.example.org"):
        assert serve.pool_plan(None, host, pages) == {"default": serve.SHARED_POOL_SIZE}
    assert serve.SHARED_POOL_SIZE >= 2  # a second viewer of a page finds a warm kernel
    for host in ("127.0.0.1", "0.0.0.0"):  # the option wins everywhere, 0 included
        assert serve.pool_plan(0, host, pages) == {"default": 0}
        assert serve.pool_plan(3, host, pages) == {"default": 3}
