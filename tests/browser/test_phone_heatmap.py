"""The diagnostics heatmap keeps readable cells on a 390 px phone (Debian's Chromium).

The default sweep is 11 columns (BS 2-12) by 7 rows: at a phone's width its
cells were about 20 px across, too narrow for their numbers. On a phone the
grid is turned (the 7 rows across, the 11 columns down), the colour bar goes
under it and the plot grows taller, so each cell keeps room for its number;
the numbers are the same cells' numbers, each under its own pair of stats.
On a desktop the grid is drawn as it is. On the session's server (tests/browser/conftest.py).
"""
from __future__ import annotations

import numpy as np
import pytest

from browserkit import screenshot_path

pytestmark = [pytest.mark.browser, pytest.mark.server]

PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True)
HEAT = ".wb-plot-heatmap"
#: the heatmap as drawn: its axes' labels, its grid, its cell size in px, its text and colour bar placement
DRAWN_JS = """sel => { const el = document.querySelector(sel); const gd = el.querySelector('.js-plotly-plot') || el;
  const t = gd._fullData.find(d => d.type === 'heatmap'); const L = gd._fullLayout;
  const box = gd.getBoundingClientRect(); const bar = gd.querySelector('.colorbar');
  const b = bar ? bar.getBoundingClientRect() : null;
  return {x: Array.from(t.x).map(String), y: Array.from(t.y).map(String), z: t.z.map(r => Array.from(r)),
          cell: [L.xaxis._length / t.x.length, L.yaxis._length / t.y.length], texttemplate: t.texttemplate,
          numbers: gd.querySelectorAll('.heatmaplayer text, .hm text').length,
          width: box.width, bar: b && [b.left - box.left, b.right - box.left, b.top - box.top, b.bottom - box.top],
          grid_bottom: L.yaxis._offset + L.yaxis._length, grid_right: L.xaxis._offset + L.xaxis._length}; }"""


@pytest.fixture(scope="module")
def diagnostics(server):
    return server  # the session's server serves the diagnostics page among the others


def _expected():
    from workbench.ui.diagnostics import DiagnosticsDashboard

    trace = DiagnosticsDashboard().sw_heat.figure["data"][0]
    return [str(v) for v in trace["x"]], [str(v) for v in trace["y"]], np.array(trace["z"], dtype=float)


def _open(browser, server, **context):
    ctx = browser.new_context(**context)
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    page.goto(f"{server.url}voila/render/diagnostics.ipynb", timeout=240_000)
    page.wait_for_function("sel => { const el = document.querySelector(sel); const gd = el &&"
                           " (el.querySelector('.js-plotly-plot') || el); return gd && gd._fullData &&"
                           " gd._fullData.some(d => d.type === 'heatmap'); }", arg=HEAT)
    page.wait_for_timeout(800)  # the plot settles to the width of the page
    return ctx, page


def test_a_phone_turns_the_heatmap_and_keeps_its_cells_readable(browser, diagnostics):
    across, down, z = _expected()
    assert len(across) > len(down)  # the default sweep is wider than tall
    ctx, page = _open(browser, diagnostics, **PHONE)
    try:
        drawn = page.evaluate(DRAWN_JS, HEAT)
        page.screenshot(path=str(screenshot_path("diagnostics-heatmap-phone")), full_page=True)
        assert drawn["width"] <= 390, drawn["width"]
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
        assert (drawn["x"], drawn["y"]) == (down, across)  # turned: the rows across, the columns down
        np.testing.assert_allclose(np.array(drawn["z"], dtype=float), z.T, rtol=0, atol=1e-12)
        width, height = drawn["cell"]
        assert width >= 36 and height >= 20, drawn["cell"]  # room for "0.123" in each cell
        assert drawn["texttemplate"] and drawn["numbers"] >= z.size, (drawn["texttemplate"], drawn["numbers"])
        assert drawn["bar"] and drawn["bar"][2] >= drawn["grid_bottom"] and drawn["bar"][1] <= drawn["width"] + 1, \
            drawn  # the colour bar under the grid, inside the plot
    finally:
        ctx.close()


def test_a_desktop_draws_the_heatmap_as_it_is(browser, diagnostics):
    across, down, z = _expected()
    ctx, page = _open(browser, diagnostics, viewport={"width": 1360, "height": 1000})
    try:
        drawn = page.evaluate(DRAWN_JS, HEAT)
        assert (drawn["x"], drawn["y"]) == (across, down)
        np.testing.assert_allclose(np.array(drawn["z"], dtype=float), z, rtol=0, atol=1e-12)
        assert drawn["bar"] and drawn["bar"][0] >= drawn["grid_right"], drawn  # beside the grid, as before
    finally:
        ctx.close()
