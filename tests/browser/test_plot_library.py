"""plotly.js reaches the page as a static file, and the kernel websocket is compressed.

On a server under a prefix with an access token (``--base-url /dice/``, only
the Changes page), in Debian's Chromium:

* the plots fetch plotly.js from ``/dice/workbench/plotly/`` (the page's base
  URL), gzip-compressed and cacheable for good (its address carries the
  file's version), and draw and redraw after a slider move; no message on
  the kernel websocket carries the library;
* the widgets' own modules (the plot's, the link bar's...) come from beside
  it, each fetched once for all the widgets of its class, cacheable for good
  (the widget state names them by address, not by their code);
* the file needs the token like every other one of the server's files;
* the kernel websocket speaks permessage-deflate (a move's messages repeat
  each other's headers).
"""
from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from browserkit import drawn, move_slider, redrawn

pytestmark = [pytest.mark.browser, pytest.mark.server]

#: a websocket message this long would be carrying plotly.js (a plot's own state is a few kB)
LIBRARY_BYTES = 200_000


@pytest.fixture(scope="module")
def prefixed(prefix_token_server):
    return prefix_token_server  # tests/browser/conftest.py: shared with test_serving's link test


def test_the_plots_fetch_plotly_js_compressed_under_the_prefix_and_redraw(browser, prefixed):
    assert prefixed.url.endswith("/dice/")
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        library, modules, frames, extensions = [], [], [], []
        page.on("response", lambda r: (modules if ".mjs" in r.url else library).append(r)
                if "/workbench/plotly/" in r.url else None)
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(len(payload))))
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.webSocketHandshakeResponseReceived",
               lambda e: extensions.append({k.lower(): v for k, v in e["response"]["headers"].items()}
                                           .get("sec-websocket-extensions", "")))
        page.goto(prefixed.url + f"voila/render/changes.ipynb?token={prefixed.token}")
        before = drawn(page, 120_000)
        move_slider(page)
        redrawn(page, before, 30_000)

        assert len(library) == 1, [r.url for r in library]
        answer = library[0]
        assert answer.url.startswith(prefixed.url + "workbench/plotly/plotly-basic.min.js?v="), answer.url
        headers = answer.all_headers()
        assert answer.status == 200 and headers.get("content-encoding") == "gzip", headers
        max_age = int(headers.get("cache-control", "max-age=0").split("max-age=")[1].split(",")[0])
        assert max_age >= 365 * 24 * 3600, headers.get("cache-control")
        assert answer.request.sizes()["responseBodySize"] < 0.5 * len(answer.body())  # compressed on the wire
        assert answer.body().startswith(b"/**") or b"plotly" in answer.body()[:2000]
        assert frames and max(frames) < LIBRARY_BYTES, max(frames)  # the widget state carries no plotly.js
        names = [m.url.split("/workbench/plotly/")[1].split(".mjs?v=")[0] for m in modules]
        assert {"plot", "link"} <= set(names) and len(names) == len(set(names)), names  # three plots, one fetch
        for module in modules:
            headers = module.all_headers()
            assert module.status == 200 and headers["content-type"].startswith("text/javascript"), (module.url, headers)
            assert "max-age=31536000" in headers.get("cache-control", ""), (module.url, headers)
        assert extensions and all("permessage-deflate" in e for e in extensions), extensions
    finally:
        context.close()


def test_the_library_file_needs_the_token(prefixed):
    url = prefixed.url + "workbench/plotly/plotly-basic.min.js"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url, timeout=30)
    assert refused.value.code == 401
    request = urllib.request.Request(url, headers={"Authorization": f"token {prefixed.token}"})
    with urllib.request.urlopen(request, timeout=30) as ok:
        assert ok.status == 200 and len(ok.read()) > 100_000
