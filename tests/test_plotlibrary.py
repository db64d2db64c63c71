"""Where a page's plots get plotly.js (workbench.ui.plotwidget.PlotlyLibrary).

Under the dashboard server (``$WORKBENCH_PLOTLY_URL`` set for its kernels)
the library widget holds only the bundle's address under the page's base
URL, versioned by the file's content, so the widget state carries no
plotly.js; in a designer's own notebook (no such server) it carries the
vendored bundle itself, gzip-compressed. The server's route serves the two
bundles and nothing else of their folder.
"""
from __future__ import annotations

import gzip
import hashlib
import re
from importlib import resources

import pytest

from workbench.ui import plotwidget
from workbench.ui.plotwidget import LIBRARY_ENV, PlotlyLibrary, library_route

STATIC = resources.files("workbench.ui").joinpath("static")


@pytest.fixture
def fresh_libraries(monkeypatch):
    monkeypatch.setattr(plotwidget, "_LIBRARIES", {})


@pytest.mark.parametrize("bundle, name", [("basic", "plotly-basic.min.js"), ("cartesian", "plotly-cartesian.min.js")])
def test_without_the_server_the_state_carries_the_bundle_itself(monkeypatch, fresh_libraries, bundle, name):
    monkeypatch.delenv(LIBRARY_ENV, raising=False)
    lib = PlotlyLibrary.shared(bundle)
    assert lib.url == ""
    assert gzip.decompress(lib.code) == STATIC.joinpath(name).read_bytes()


@pytest.mark.parametrize("bundle, name", [("basic", "plotly-basic.min.js"), ("cartesian", "plotly-cartesian.min.js")])
def test_under_the_server_the_state_names_the_file_by_its_content(monkeypatch, fresh_libraries, bundle, name):
    monkeypatch.setenv(LIBRARY_ENV, "workbench/plotly/")
    lib = PlotlyLibrary.shared(bundle)
    digest = hashlib.sha256(STATIC.joinpath(name).read_bytes()).hexdigest()
    path, _, version = lib.url.partition("?v=")
    assert path == "workbench/plotly/" + name  # relative: resolved against the page's base URL
    assert version and digest.startswith(version)
    assert lib.code == b""
    assert PlotlyLibrary.shared(bundle) is lib  # one per bundle and kernel


@pytest.mark.parametrize("base", ["/", "/dice/"])
def test_the_route_serves_the_two_bundles_and_nothing_else(base):
    pattern, handler, kwargs = library_route(base)
    rx = re.compile(pattern + "$")
    for name in ("plotly-basic.min.js", "plotly-cartesian.min.js"):
        m = rx.match(f"{base}workbench/plotly/{name}")
        assert m and m.group(1) == name
        assert (STATIC / name).is_file() and str(STATIC) == kwargs["path"]
    for other in ("VENDORED.md", "plot.js", "feed.js", "link.css", "plotly.js-LICENSE.txt", "../plotwidget.py",
                  "%2e%2e/plotwidget.py",
                  "plotly-basic.min.js/../../plotwidget.py"):
        assert not rx.match(f"{base}workbench/plotly/{other}"), other


def test_a_plot_made_empty_with_its_bundle_named_has_its_library_before_its_first_figure(fresh_libraries):
    """The browser reads a plot's library when the plot is first drawn on the page (an
    empty plot on a tab drawn later, such as the diagnostics' granularity, included)."""
    from workbench.ui.plotwidget import Plot

    empty = Plot(bundle="cartesian")
    assert empty.library is PlotlyLibrary.shared("cartesian")
    assert Plot().library is None  # no bundle named: picked by its first figure's traces


def _widgets():
    from workbench.ui.forum import CopyButton
    from workbench.ui.query import LinkBar
    from workbench.ui.plotwidget import Feed, FedHTML, Plot

    return [Plot(), FedHTML(), Feed(), PlotlyLibrary.shared("basic"), LinkBar(), CopyButton()]


def test_without_the_server_each_widget_carries_its_module_code(monkeypatch, fresh_libraries):
    monkeypatch.delenv(LIBRARY_ENV, raising=False)
    plot = _widgets()[0]
    assert "export default" in plot._esm and "Plotly.react" in plot._esm  # the code itself
    assert plot.get_state()["_esm"] == plot._esm


def test_under_the_server_each_widget_names_its_module_by_content(monkeypatch, fresh_libraries):
    monkeypatch.setenv(LIBRARY_ENV, "workbench/plotly/")
    seen = {}
    for widget in _widgets():
        address = widget.get_state()["_esm"]
        m = re.fullmatch(r"workbench/plotly/(\w+)\.mjs\?v=(\w+)", address)
        assert m, address  # relative: the page's front end resolves it against its base URL
        name, version = m.groups()
        code = plotwidget.MODULES[name]
        assert "export default" in code
        assert hashlib.sha256(code.encode("utf-8")).hexdigest().startswith(version)
        seen[type(widget).__name__] = name
    assert len(set(seen.values())) == len(seen) - 1, seen  # one module per class, but the two without a view
    assert seen["Feed"] == seen["PlotlyLibrary"] == "empty"
    # the front end's test for an address (scripts/frontend/src/manager.js): code never matches it
    served = re.compile(r"^[\w/.-]+\.mjs(\?v=\w+)?$")
    assert all(not served.match(code) for code in plotwidget.MODULES.values())


@pytest.mark.parametrize("base", ["/", "/dice/"])
def test_the_module_route_serves_each_module_cacheable_at_its_version(base):
    import asyncio

    import tornado.httpclient
    import tornado.httpserver
    import tornado.netutil
    import tornado.web

    _widgets()  # every module registered
    pattern, handler = plotwidget.module_route(base)

    async def fetch_all():
        sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
        server = tornado.httpserver.HTTPServer(tornado.web.Application([(pattern, handler)]))
        server.add_sockets(sockets)
        root = f"http://127.0.0.1:{sockets[0].getsockname()[1]}{base}workbench/plotly/"
        client = tornado.httpclient.AsyncHTTPClient()
        try:
            out = {}
            for name in plotwidget.MODULES:
                url = root + plotwidget.module_url(name, "")
                out[name] = await client.fetch(url)
            out["stale"] = await client.fetch(root + "plot.mjs?v=0000", raise_error=False)
            out["missing"] = await client.fetch(root + "nothing.mjs", raise_error=False)
            out["outside"] = await client.fetch(root + "plot.js", raise_error=False)
            return out
        finally:
            server.stop()

    answers = asyncio.run(fetch_all())
    for name, code in plotwidget.MODULES.items():
        answer = answers[name]
        assert answer.code == 200 and answer.body.decode("utf-8") == code
        assert answer.headers["Content-Type"].startswith("text/javascript")
        assert "max-age=31536000" in answer.headers["Cache-Control"]
    assert answers["stale"].code == 200 and "max-age=31536000" not in answers["stale"].headers.get("Cache-Control", "")
    assert answers["missing"].code == 404 and answers["outside"].code == 404
