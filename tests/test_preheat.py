"""A preheated kernel waits for its viewer's link without Voila's server.

* the websocket it dials is the one ``voila.utils.wait_for_request`` dials,
  for the same variables (Voila's own function is the oracle);
* the variables the server sends become the kernel's environment, and a
  dashboard built there shows the link's values;
* a server that cannot be reached gives a warning and no variables;
* a dashboard's kernel imports neither Voila nor jupyter_server (about a
  thousand modules, seconds of CPU and tens of MB in every kernel).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from workbench.ui import preheat

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("env", [
    {"VOILA_KERNEL_ID": "k-1"},
    {"VOILA_KERNEL_ID": "k-2", "VOILA_APP_IP": "127.0.0.2", "VOILA_APP_PORT": "8123", "VOILA_SERVER_URL": "/dice/"},
    {"VOILA_KERNEL_ID": "k-3", "VOILA_APP_IP": "[::1]", "VOILA_APP_PORT": "9", "VOILA_SERVER_URL": "/a/",
     "VOILA_WS_BASE_URL": "/b/", "VOILA_WS_PROTOCOL": "wss"},
])
def test_the_kernel_dials_the_websocket_voila_would(monkeypatch, env):
    import voila.utils as vu

    for name in ("VOILA_APP_IP", "VOILA_APP_PORT", "VOILA_SERVER_URL", "VOILA_WS_BASE_URL", "VOILA_WS_PROTOCOL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in {**env, "VOILA_PREHEAT": "True"}.items():
        monkeypatch.setenv(name, value)
    dialled = []

    async def no_server(url):
        dialled.append(url)

    monkeypatch.setattr(vu, "_get_request_info", no_server)
    vu.wait_for_request()
    assert dialled == [preheat.request_url()] == [preheat.request_url(dict(os.environ))]


class RequestInfoServer:
    """A websocket server on 127.0.0.1 that sends ``payload`` (JSON) to the
    first connection on ``/voila/query/<kernel id>``, as Voila's does when a
    viewer takes the kernel; ``paths`` records what was asked for."""

    def __init__(self, payload: dict):
        from websockets.sync.server import serve

        self.paths: list[str] = []

        def handler(ws):
            self.paths.append(ws.request.path)
            ws.send(json.dumps(payload))

        self._server = serve(handler, "127.0.0.1", 0)
        self.port = self._server.socket.getsockname()[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._thread.join(10)


def test_the_servers_variables_become_the_environment(monkeypatch):
    payload = {"QUERY_STRING": "bs=8&shots=6", "SCRIPT_NAME": "/dice/voila/render/changes.ipynb"}
    with RequestInfoServer(payload) as srv:
        for name, value in {"VOILA_PREHEAT": "True", "VOILA_KERNEL_ID": "kernel-7", "VOILA_APP_IP": "127.0.0.1",
                            "VOILA_APP_PORT": str(srv.port), "VOILA_SERVER_URL": "/dice/"}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("VOILA_WS_BASE_URL", raising=False)
        monkeypatch.delenv("QUERY_STRING", raising=False)
        preheat.wait_for_request()
        assert srv.paths == ["/dice/voila/query/kernel-7"]
    assert os.environ["QUERY_STRING"] == "bs=8&shots=6"
    assert os.environ["SCRIPT_NAME"] == payload["SCRIPT_NAME"]


def test_outside_a_preheated_kernel_nothing_is_dialled(monkeypatch):
    monkeypatch.setenv("VOILA_PREHEAT", "False")
    monkeypatch.setenv("VOILA_APP_PORT", "1")  # would be refused at once if it were dialled
    with preheat_warnings() as caught:
        preheat.wait_for_request()
    assert caught == []


def test_an_unreachable_server_warns_and_sets_nothing(monkeypatch):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for name, value in {"VOILA_PREHEAT": "True", "VOILA_KERNEL_ID": "k", "VOILA_APP_IP": "127.0.0.1",
                        "VOILA_APP_PORT": str(port)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("QUERY_STRING", raising=False)
    with preheat_warnings() as caught:
        preheat.wait_for_request(open_timeout=2)
    assert [str(w.message) for w in caught if f":{port}/" in str(w.message)], [str(w.message) for w in caught]
    assert "QUERY_STRING" not in os.environ


def preheat_warnings():
    import warnings

    class Catch(warnings.catch_warnings):
        def __enter__(self):
            caught = super().__enter__()
            warnings.simplefilter("always")
            return caught

    return Catch(record=True)


KERNEL = """
import json, os, sys
from workbench.ui import SystemDashboard
d = SystemDashboard("changes")
d.show()
print(json.dumps({"bs": d.values()["bs"], "shots": d.values()["shots"],
                  "heavy": sorted(m for m in ("voila", "jupyter_server", "jupyterlab_server", "nbconvert")
                                  if m in sys.modules)}))
"""


def test_a_dashboard_in_a_preheated_kernel_reads_its_link_without_voila():
    with RequestInfoServer({"QUERY_STRING": "bs=8&shots=6"}) as srv:
        env = {k: v for k, v in os.environ.items() if not k.startswith("VOILA_") and k != "QUERY_STRING"}
        env.update({"VOILA_PREHEAT": "True", "VOILA_KERNEL_ID": "kernel-9", "VOILA_APP_IP": "127.0.0.1",
                    "VOILA_APP_PORT": str(srv.port), "VOILA_SERVER_URL": "/"})
        out = subprocess.run([sys.executable, "-c", KERNEL], env=env, cwd=PROJECT, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert srv.paths == ["/voila/query/kernel-9"]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert (seen["bs"], seen["shots"]) == (8, 6)
    assert seen["heavy"] == []
