"""The before-and-after page in a real browser: a shared link opens both variants over its grid,
the heatmaps and the movers table are on the page, and a slider move redraws the heatmaps with
the library's numbers (compare.diff of the values in the page's own link)."""
from __future__ import annotations

import json
import urllib.parse

import numpy as np
import pytest

from workbench import compare

from browserkit import off_machine
from test_dashboards import plotly_el, press_slider, readout

pytestmark = [pytest.mark.browser, pytest.mark.server]

LINK = ("?a=changes:weapon=heavy,action=shot&b=changes:weapon=heavy,action=shot,heavy_shot=flat_4"
        "&x=bs:1..12&y=t:-2..4&shots=8")
#: the first heatmap as drawn: its z rows, "" before it is drawn
Z_JS = "el => { const d = el._fullData || []; return d.length ? JSON.stringify(d[0].z) : ''; }"


def drawn_z(page, before: str = "", timeout: float = 30_000) -> tuple[list[list[float]], str]:
    """The first heatmap's z once drawn and different from ``before`` (as the page wrote it)."""
    handle = page.wait_for_function(
        "([sel, before]) => { const el = document.querySelector(sel); if (!el) return false;"
        f" const now = ({Z_JS})(el); return now !== '' && now !== before && now; }}",
        arg=[plotly_el(".wb-diff-heatmap"), before], timeout=timeout)
    raw = handle.json_value()
    return json.loads(raw), raw


def expected_z(query: str) -> np.ndarray:
    q = dict(urllib.parse.parse_qsl(query.lstrip("?")))
    matchup = {k: int(v) for k, v in q.items() if k not in ("a", "b", "x", "y") and v != "none"}
    df = compare.diff(q["a"], q["b"], grid=dict(bs=range(1, 13), t=range(-2, 5)), matchup=matchup)
    return df["mean_diff"].to_numpy().reshape(12, 7).T


def test_a_before_and_after_link_shows_the_heatmaps_and_movers_and_follows_a_slider(page, server):
    page.goto(f"{server.url}voila/render/before_after.ipynb{LINK}", timeout=180_000)  # a busy machine
    page.wait_for_selector(".wb-diff-heatmap .main-svg", timeout=120_000)
    z, raw = drawn_z(page)
    assert readout(page, "shots") == "8"
    link = page.get_attribute(".wb-link .wb-link-href", "href")
    said = urllib.parse.unquote(link)  # the variants travel URL-encoded ("heavy_shot%3Dflat_4")
    assert "shots=8" in said and "heavy_shot=flat_4" in said
    np.testing.assert_allclose(z, expected_z(link), atol=1e-9)
    assert page.locator(".wb-diff-heatmap .hm, .wb-diff-heatmap .heatmaplayer").count() >= 1
    movers = page.inner_text(".wb-movers-table table")
    assert "Space Marine (Heavy Bolter) at Space Marine" in movers and "+0." in movers
    assert "flat 4 helps most at BS 9+" in page.inner_text(".wb-verdict")

    press_slider(page, "shots", "ArrowRight")
    page.wait_for_function("() => window.location.search.includes('shots=9')", timeout=120_000)
    z2, _ = drawn_z(page, raw)
    link = page.get_attribute(".wb-link .wb-link-href", "href")
    np.testing.assert_allclose(z2, expected_z(link), atol=1e-9)
    assert "at 9 shots" in page.inner_text(".wb-verdict")
    assert off_machine(page.seen_urls) == []
