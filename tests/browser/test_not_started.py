"""A page whose kernel cannot start says so and ends: it never loads for ever.

The server's kernels die as they start (a ``sitecustomize`` on their path
exits in each process the server launched as a kernel: the environment
variable Jupyter gives its kernels names the server as their parent). Voila
renders such a page in a task whose error nobody reads, so the page used to
send heartbeats for ever. Now the view ends with the plain sentence and a
reload button, no traceback or kernel id reaches the viewer, the server's log
says why, and the dead kernel is gone afterwards. One server on a free
loopback port, plain HTTP (no browser needed).
"""
from __future__ import annotations

import http.client
import time
from urllib.parse import urlsplit

import pytest

from workbench.dashboard_server import NOT_STARTED
from workbench.serve import DASHBOARDS
from serverkit import ServerProcess

pytestmark = [pytest.mark.server, pytest.mark.slow]

ANTARES = tuple(d for d in DASHBOARDS if d.notebook == "antares.ipynb")

#: the kernel start's limit (voila.json's VoilaExecutor.startup_timeout) and a margin
PAGE_LIMIT_S = 150

DYING_KERNEL = '''import os
if os.environ.get("JPY_PARENT_PID") == str(os.getppid()):  # a kernel the server launched
    os._exit(3)
'''


def test_a_page_whose_kernel_dies_at_start_says_so_and_ends(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(DYING_KERNEL)
    with ServerProcess(port=0, dashboards=ANTARES, pool_size=0, timeout=120,
                       env={"PYTHONPATH": str(tmp_path)}) as srv:
        parts = urlsplit(srv.url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        chunks, deadline = [], time.monotonic() + PAGE_LIMIT_S
        try:
            conn.request("GET", parts.path + "voila/render/antares.ipynb")
            resp = conn.getresponse()
            assert resp.status == 200
            # a page that never ends still sends a heartbeat every few seconds: read against the clock
            while (chunk := resp.read1(65536)) and time.monotonic() < deadline:
                chunks.append(chunk)
        finally:
            conn.close()
        body = b"".join(chunks).decode()
        assert "</html>" in body, f"the page was still loading after {PAGE_LIMIT_S} s: ...{body[-300:]}"
        assert NOT_STARTED in body and 'id="wb-not-started"' in body and "location.reload()" in body
        for leak in ("Traceback", "RuntimeError", "kernel_info", '"kernelId"'):
            assert leak not in body, leak
        assert srv.log_lines("could not be started", timeout=30)   # its log says why (a timeout shows the log)
        deadline = time.monotonic() + 90
        while srv.kernels() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert srv.kernels() == 0, "\n".join(srv.log[-20:])
