"""Fixtures of the real-browser tests: a live dashboard server and Debian's Chromium.

* ``server``: ``python -m workbench.serve --port 0`` (the real notebooks of
  ``notebooks/``) on a free port of 127.0.0.1, started once per session and
  stopped at teardown; the fixture waits until every dashboard has a
  preheated kernel.
* ``browser``: ``/usr/bin/chromium`` driven by Playwright's sync API (never a
  downloaded browser), started once per test module. Where it is missing the browser tests skip, except
  under ``CI``, where they fail.
* ``page``: a fresh browser context whose every request and websocket URL is
  recorded in ``page.seen_urls`` (to check that none leaves 127.0.0.1).
"""
from __future__ import annotations

import pytest

from browserkit import CHROMIUM_ARGS, VIEWPORT, chromium_or_skip
from serverkit import ServerProcess, require_marker


@pytest.fixture(scope="session")
def server():
    with ServerProcess(port=0, timeout=120) as srv:
        srv.wait_pools(timeout=240)
        # "filled" is logged when a pool kernel starts, before its notebook has run: a page opened
        # now would wait for every dashboard's notebook at once (past goto's 60 s on a busy machine)
        srv.wait_quiet(timeout=300)
        yield srv
    assert srv.proc.returncode == 0, "the dashboard server did not stop cleanly:\n" + "\n".join(srv.log[-30:])


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
    pg.set_default_timeout(60_000)
    seen: list[str] = []
    pg.on("request", lambda r: seen.append(r.url))
    pg.on("websocket", lambda ws: seen.append(ws.url))
    pg.seen_urls = seen
    try:
        yield pg
    finally:
        context.close()
