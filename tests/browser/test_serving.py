"""Serving options on the session's live servers (tests/browser/conftest.py).

* ``--host 127.0.0.2 --base-url /dice/``: every dashboard renders, and every
  request its page makes (Playwright records them) goes to that host, under
  that prefix; nothing is served outside the prefix;
* that one visit of every page is a phone's (390 px): each dashboard passes
  test_phone.py's checks (:func:`test_phone.check_phone_page`) as it is drawn,
  so a page view serves both;
* a link's values reach the dashboard (its preheated kernel reads them over the
  server's link channel) on 127.0.0.2 under a prefix, with and without a token.

These use the session's servers (tests/browser/conftest.py); the options that
need a server of their own are test_serving_own.py (run by the other worker).
"""
from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from workbench import systems
from workbench.serve import DASHBOARDS

from browserkit import check_a_link_with_values_restores_them, request
from test_phone import DASHBOARDS as PHONE_PAGES
from test_phone import PHONE, check_phone_page, wait_drawn

pytestmark = [pytest.mark.server, pytest.mark.slow]

PLOT = ".js-plotly-plot .main-svg"


# ---------------------------------------------------------------- host and prefix

@pytest.fixture(scope="module")
def dice_server(server):
    """The session's server (tests/browser/conftest.py): every dashboard and rule
    file's page on 127.0.0.2 under /dice/."""
    # what other modules' pages left running (a replacement preheating, a kernel ending) settles first
    server.wait_quiet(timeout=300)
    return server


@pytest.fixture(scope="module")
def prefix_visit(browser, dice_server) -> dict:
    """One visit on a phone (test_phone's viewport) of the landing page and of every page it links,
    on the server's host and under its prefix (each page drawn): ``{"links": [...], "seen": [every
    request and websocket URL], "bodies": {url: (status, page as served)}, "phone": {dashboard: the
    AssertionError of test_phone.check_phone_page on it, or None}}``."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    base = dice_server.url
    context = browser.new_context(**PHONE)
    seen: list[str] = []
    bodies: dict[str, tuple[int, str]] = {}
    phone: dict[str, AssertionError | None] = {}
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.on("request", lambda r: seen.append(r.url))
        page.on("websocket", lambda ws: seen.append(ws.url))
        landing = page.goto(base)
        bodies[base] = (landing.status, landing.text())
        links = page.eval_on_selector_all("ul.dashboards a", "els => els.map(a => a.href)")
        for link in links:
            response = page.goto(link)
            bodies[link] = (response.status, response.text())
            try:
                page.wait_for_selector(PLOT)
            except PlaywrightTimeout:
                pytest.fail(f"{link}: no plot drawn within 120 s; server log:\n" + "\n".join(dice_server.log[-30:]))
            name = urlsplit(link).path.rsplit("/", 1)[-1].removesuffix(".ipynb")
            if name in PHONE_PAGES:
                try:
                    wait_drawn(page)
                    check_phone_page(page, name)
                    phone[name] = None
                except AssertionError as failure:
                    phone[name] = failure
        page.wait_for_timeout(500)
    finally:
        context.close()
    return {"links": links, "seen": seen, "bodies": bodies, "phone": phone}


@pytest.mark.browser
@pytest.mark.xdist_group("serving-prefix")
@pytest.mark.parametrize("name", PHONE_PAGES)
def test_a_phone_needs_no_sideways_scrolling_and_shows_the_headline_first(prefix_visit, name):
    """test_phone.check_phone_page on the dashboard as the phone visit drew it."""
    assert name in prefix_visit["phone"], f"the landing page links no {name} page"
    failure = prefix_visit["phone"][name]
    if failure is not None:
        raise failure


@pytest.mark.browser
@pytest.mark.xdist_group("serving-prefix")
def test_host_and_prefix_carry_every_request_of_every_dashboard(prefix_visit, dice_server):
    base = dice_server.url
    assert base.startswith("http://127.0.0.2:") and base.endswith("/dice/")
    rule_pages = [f"voila/render/{k}.ipynb" for k in systems.keys() if k not in systems.builtins()]
    assert prefix_visit["links"] == [base + d.path.lstrip("/") for d in DASHBOARDS] + [base + p for p in rule_pages]
    seen = prefix_visit["seen"]
    prefix = {"http": base, "ws": base.replace("http://", "ws://")}
    outside = [u for u in seen if urlsplit(u).scheme not in ("data", "blob", "about")
               and not u.startswith(prefix["ws" if u.startswith("ws") else "http"])]
    assert not outside, outside[:10]
    assert sum("/api/kernels/" in u and u.startswith("ws") for u in seen) >= len(DASHBOARDS)


@pytest.mark.browser
@pytest.mark.xdist_group("serving-prefix")
def test_pages_hold_no_absolute_address_of_the_server(prefix_visit, dice_server):
    """The landing page and every page it links, as served to the browser."""
    host = urlsplit(dice_server.url).netloc
    bodies = prefix_visit["bodies"]
    assert set(bodies) >= {dice_server.url + d.path.lstrip("/") for d in DASHBOARDS}
    for url, (status, body) in bodies.items():
        assert status == 200, url
        assert host not in body and "127.0.0.2" not in body, url


@pytest.mark.xdist_group("serving-prefix")
def test_nothing_is_served_outside_the_prefix(dice_server):
    root = dice_server.url[:-len("dice/")]
    for path in ("", "voila/render/changes.ipynb", "voila/static/voila.js", "api/kernels"):
        assert request(root + path)[0] == 404, path
    status, _, headers = request(root + "dice")
    assert status in (301, 302) and headers["Location"].endswith("/dice/")


def raw(url: str, headers: dict | None = None) -> tuple[int, bytes, object]:
    """``(status, body bytes as sent, headers)`` of one GET."""
    import http.client

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        conn.request("GET", parts.path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.read(), resp.headers
    finally:
        conn.close()


@pytest.mark.xdist_group("serving-prefix")
def test_static_files_go_compressed_to_a_browser_that_accepts_it(dice_server):
    """A phone fetches a fraction of its first page's bytes: static files are sent
    gzip-compressed (each compressed once), whole and unchanged once inflated."""
    import gzip

    from jupyter_core.paths import jupyter_path

    # Voila's largest script (about 0.8 MB), as the server reads it from disk
    static = next(Path(p) for p in jupyter_path("voila", "templates", "base", "static")
                  if Path(p, "voila.js").is_file())
    biggest = max(static.glob("*.js"), key=lambda f: f.stat().st_size)
    bundle = dice_server.url + "voila/static/" + biggest.name
    on_disk = biggest.read_bytes()
    assert len(on_disk) > 500_000
    status, plain, headers = raw(bundle)
    assert status == 200 and headers.get("Content-Encoding") is None and plain == on_disk
    for _ in range(2):  # the second answer comes from the cache: the same bytes
        status, packed, headers = raw(bundle, {"Accept-Encoding": "gzip, deflate, br"})
        assert status == 200 and headers["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in headers["Vary"]
        assert int(headers["Content-Length"]) == len(packed) < len(on_disk) / 2
        assert gzip.decompress(packed) == on_disk
    etag = headers["Etag"]
    assert raw(bundle, {"Accept-Encoding": "gzip", "If-None-Match": etag})[0] == 304
    status, part, headers = raw(bundle, {"Accept-Encoding": "gzip", "Range": "bytes=100-199"})
    if headers.get("Content-Encoding") == "gzip":  # Tornado's compress_response wraps a range like any answer
        part = gzip.decompress(part)
    assert status == 206 and part == on_disk[100:200]  # a range is cut from the file itself
    assert raw(bundle, {"Accept-Encoding": "deflate, br"})[2].get("Content-Encoding") is None
    for path in ("voila/static/voila.js", "voila/templates/workbench/static/index.css"):
        status, plain, _ = raw(dice_server.url + path)
        status2, packed, headers = raw(dice_server.url + path, {"Accept-Encoding": "gzip"})
        assert status == status2 == 200 and headers["Content-Encoding"] == "gzip", path
        assert gzip.decompress(packed) == plain and len(packed) < len(plain) / 2, path
    plain = raw(dice_server.url)[1]  # a page, compressed as it is written
    status, packed, headers = raw(dice_server.url, {"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip" and gzip.decompress(packed) == plain


# ---------------------------------------------------------------- a link's values under a prefix

@pytest.fixture(scope="module")
def lan_prefix_token(prefix_token_server):
    return prefix_token_server  # tests/browser/conftest.py: shared with test_plot_library


#: a prefix with and without a token on 127.0.0.2 (test_serving_own.py: without a prefix)
ADDRESSES = {"prefix-token": "lan_prefix_token", "prefix-plain": "dice_server"}


@pytest.mark.browser
@pytest.mark.parametrize("served", list(ADDRESSES))
def test_a_link_with_values_restores_them(browser, request, served):
    check_a_link_with_values_restores_them(browser, request.getfixturevalue(ADDRESSES[served]))
