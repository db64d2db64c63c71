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
    for other in ("VENDORED.md", "plot.js", "plotly.js-LICENSE.txt", "../plotwidget.py", "%2e%2e/plotwidget.py",
                  "plotly-basic.min.js/../../plotwidget.py"):
        assert not rx.match(f"{base}workbench/plotly/{other}"), other


def test_a_plot_made_empty_with_its_bundle_named_has_its_library_before_its_first_figure(fresh_libraries):
    """The browser reads a plot's library when the plot is first drawn on the page (an
    empty plot on a tab drawn later, such as the diagnostics' granularity, included)."""
    from workbench.ui.plotwidget import Plot

    empty = Plot(bundle="cartesian")
    assert empty.library is PlotlyLibrary.shared("cartesian")
    assert Plot().library is None  # no bundle named: picked by its first figure's traces
