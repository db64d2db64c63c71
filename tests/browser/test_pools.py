"""The pool of preheated kernels keeps up with a playtest group (a live server, Debian's Chromium).

Two viewers open the same page 2 s apart: both get a plot, and the
replacement of the first viewer's kernel is started as soon as that viewer
takes it, before the second viewer arrives (not after a quiet period), so
that a third viewer finds a warm kernel too.
"""
from __future__ import annotations

import os
import time

import psutil
import pytest

from workbench.kernelpool import REFILL_LOG
from workbench.serve import DASHBOARDS, KERNEL_THREADS
from serverkit import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.slow]

ONE = tuple(d for d in DASHBOARDS if d.notebook == "changes.ipynb")
PLOT = ".wb-plot-dist .main-svg"


def test_the_second_of_two_viewers_two_seconds_apart_gets_a_plot(browser):
    with ServerProcess(port=0, dashboards=ONE, pool_size=2, timeout=120) as srv:
        srv.wait_pools(timeout=300)
        srv.wait_quiet(timeout=300)  # both preheated kernels wait for their viewers
        # each kernel runs numpy's linear algebra on one thread (the kernels share the cores out)
        kernels = psutil.Process(srv.proc.pid).children()
        assert len(kernels) == 2
        for name, n in KERNEL_THREADS.items():
            assert [k.environ().get(name) for k in kernels] == [os.environ.get(name, n)] * 2, name
        contexts = [browser.new_context() for _ in range(2)]
        try:
            pages = [c.new_page() for c in contexts]
            for p in pages:
                p.set_default_timeout(180_000)
            url = srv.url + "voila/render/changes.ipynb?bs=7"
            pages[0].goto(url, wait_until="commit")
            first_taken = len(srv.log)
            time.sleep(2)
            second_arrives = len(srv.log)
            pages[1].goto(url, wait_until="commit")
            for p in pages:
                p.wait_for_selector(PLOT)
                assert p.inner_text(".wb-slider-bs .widget-readout").strip() == "7"
            log = srv.log
            taken = [i for i, ln in enumerate(log) if "Using pre-heated kernel" in ln]
            assert len(taken) == 2, "\n".join(log[-30:])  # both viewers got a warm kernel
            refills = [i for i, ln in enumerate(log) if REFILL_LOG in ln]
            # the first viewer's replacement started before the second viewer came, not after a quiet wait
            assert refills and refills[0] < max(second_arrives, taken[1]), "\n".join(log[first_taken:][:30])
        finally:
            for c in contexts:
                c.close()
