"""Fixtures of the real-browser tests: a live dashboard server and Debian's Chromium.

* ``server``: ``python -m workbench.serve --port 0 --host 127.0.0.2
  --base-url /dice/`` (the real notebooks of ``notebooks/`` and the rule
  files' pages) on a free port, started once per session and stopped at
  teardown. It keeps the server's own pool plan, as ``make run`` does on a
  loopback host: one preheated kernel for the first page (Changes), whose
  link values reach it over the link channel, and a kernel started at once
  for every other page's viewer (a full pool per page would preheat a dozen
  kernels and refill each after every page view: CPU the pages under test
  would share). The fixture waits until that kernel has run its notebook.
  127.0.0.2 is loopback on Linux and stands for a LAN address, and the prefix
  is a reverse proxy's: every page test runs where a relative URL or a
  hard-wired host would break, and ``test_serving`` checks every request of
  every page against that host and prefix on this same server (one per
  session, not one per configuration).
* ``browser``: ``/usr/bin/chromium`` driven by Playwright's sync API (never a
  downloaded browser), started once per test module. Where it is missing the browser tests skip, except
  under ``CI``, where they fail.
* ``page``: a fresh browser context whose every request and websocket URL is
  recorded in ``page.seen_urls`` (to check that none leaves the machine).
"""
from __future__ import annotations

import pytest

from browserkit import CHROMIUM_ARGS, VIEWPORT, chromium_or_skip
from serverkit import ServerProcess, require_marker
from workbench.serve import DASHBOARDS

#: the session server's address: a LAN-like loopback host under a reverse proxy's prefix
SESSION_HOST, SESSION_PREFIX = "127.0.0.2", "/dice/"


@pytest.fixture(scope="session")
def server():
    with ServerProcess(port=0, host=SESSION_HOST, base_url=SESSION_PREFIX, pool_size=None, timeout=120) as srv:
        srv.wait_pools({DASHBOARDS[0].notebook: 1}, timeout=240)
        # "filled" is logged when a pool kernel starts, before its notebook has run: a page opened
        # now would wait for every dashboard's notebook at once (past goto's 60 s on a busy machine)
        srv.wait_quiet(timeout=300)
        yield srv
    assert srv.proc.returncode == 0, "the dashboard server did not stop cleanly:\n" + "\n".join(srv.log[-30:])


@pytest.fixture(scope="session")
def prefix_token_server():
    """The Changes page alone on 127.0.0.2 under /dice/ with an access token
    (``.token``), one preheated kernel: the proxy-and-token configuration that
    test_plot_library and test_serving both need, started once."""
    changes = tuple(d for d in DASHBOARDS if d.notebook == "changes.ipynb")
    with ServerProcess(port=0, host=SESSION_HOST, base_url=SESSION_PREFIX, token="playtest-Prefix-7d21",
                       dashboards=changes, pool_size=1, timeout=120) as srv:
        srv.wait_pools(timeout=300)
        yield srv


@pytest.fixture(scope="module")
def browser():
    # one per test module: Playwright's sync API keeps an event loop running in
    # this thread while it is open, which tests outside tests/browser (asyncio.run,
    # their own sync_playwright) must not inherit
    require_marker("browser", "a browser")
    path = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport=VIEWPORT)
    pg = context.new_page()
    pg.set_default_timeout(300_000)  # bounds a failure only: a page waits for a condition, the other worker shares the cores
    seen: list[str] = []
    pg.on("request", lambda r: seen.append(r.url))
    pg.on("websocket", lambda ws: seen.append(ws.url))
    pg.seen_urls = seen
    try:
        yield pg
    finally:
        context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that used a dashboard server shows the end of that server's log."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    for name in ("server", "prefix_token_server"):
        srv = getattr(item, "funcargs", {}).get(name)
        if isinstance(srv, ServerProcess):
            report.sections.append((f"{name}: the last 40 lines of its log", "\n".join(srv.log[-40:])))
