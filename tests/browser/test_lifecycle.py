"""Kernels come and go with their pages (live servers, Debian's Chromium).

* page views in a row (open, render, close as a browser tab closes) leave
  no extra kernel: each closed page's kernel is shut down (Voila's beacon,
  which the server no longer refuses for a missing ``_xsrf``), and the pool
  refills after every one. A few views prove it; a hundred in a row, with the
  memory they leave behind, are a figure of ``benchmarks/bench_viewers.py``
  (its sequential part);
* many simultaneous viewers of one dashboard: ``test_viewers.py`` (and
  ``benchmarks/bench_viewers.py``).
"""
from __future__ import annotations

import time

import pytest

from workbench.serve import DASHBOARDS

from serverkit import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.slow]

ONE = tuple(d for d in DASHBOARDS if d.notebook == "changes.ipynb")
VIEWS = 3  # each one after the first reuses a refilled pool: a leak would show as a kernel more per view


def wait_for(condition, timeout: float, step: float = 0.5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def test_page_views_in_a_row_leave_no_extra_kernel(browser):
    with ServerProcess(port=0, dashboards=ONE, pool_size=1, timeout=120) as srv:
        srv.wait_pools(timeout=300)
        idle = srv.kernels()
        assert idle == 1  # the preheated one
        most = 0
        for _ in range(VIEWS):
            context = browser.new_context()
            page = context.new_page()
            page.set_default_timeout(180_000)
            page.goto(srv.url + "voila/render/changes.ipynb")
            page.wait_for_selector(".wb-plot-dist .main-svg")
            page.close(run_before_unload=True)  # as a tab closes: beforeunload, Voila's beacon
            context.close()
            most = max(most, srv.kernels())

        def shutdowns() -> int:
            return "\n".join(srv.log).count("Kernel shutdown:")

        # every page's kernel shut down, and the pool refilled after every view (the last
        # refill waits for quiet: until then the last viewer's kernel alone makes the count)
        settled = wait_for(lambda: shutdowns() >= VIEWS and srv.pools_filled("changes.ipynb") >= VIEWS + 1
                           and srv.kernels() <= idle, timeout=120)
        assert settled, f"{shutdowns()} shutdowns, pool filled {srv.pools_filled('changes.ipynb')} times, {srv.kernels()} kernels"
        assert "'_xsrf' argument missing" not in "\n".join(srv.log)
    assert most <= idle + 3, most  # kernels never piled up on the way
