"""The server's log stays readable: no warning per notebook or kernel at start,
none for a page view, and no traceback when it is stopped (SIGTERM, as
Ctrl-C's end), with a preheated kernel still waiting for its viewer."""
from __future__ import annotations

import http.client
from urllib.parse import urlsplit

import pytest

from workbench.serve import DASHBOARDS
from serverkit import ServerProcess

pytestmark = [pytest.mark.server, pytest.mark.slow]

TWO = tuple(d for d in DASHBOARDS if d.notebook in ("changes.ipynb", "forgotten.ipynb"))


def test_start_a_page_view_and_a_stop_leave_no_warning_or_traceback():
    srv = ServerProcess(port=0, dashboards=TWO, pool_size=1, timeout=120)
    try:
        srv.wait_pools(timeout=300)
        srv.wait_quiet(timeout=300)
        parts = urlsplit(srv.url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)
        conn.request("GET", parts.path + "voila/render/forgotten.ipynb")
        assert conn.getresponse().status == 200
        conn.close()
        # the page's replacement kernel has started and run its notebook: a stop while it is still
        # starting can end that one start with an error (serve.shutdown_every_kernel retries for a few s)
        srv.wait_quiet(timeout=300)
    finally:
        status = srv.stop()
        assert status == 0, "\n".join(srv.log[-40:])
    log = "\n".join(srv.log)
    assert "Kernel started:" in log and "Kernel shutdown:" in log  # the log was read
    assert "WARNING" not in log and "Traceback" not in log and "ERROR" not in log, log
