"""A rule file's served dashboard in a real browser: ``rules/kill6.toml`` is
served as ``/voila/render/kill6.ipynb`` (generated when the server starts,
workbench.rulepages); a viewer moves a slider, the plot redraws, and the drawn
bars equal the rule file's exact distribution for the values in the page's
own link."""
from __future__ import annotations

import numpy as np
import pytest

from workbench import rules
from workbench.resources import data_dir
from workbench.ui.query import parse_query
from workbench.figures import EXACT_BARS

from browserkit import off_machine

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.xdist_group("full-server")]

TRACES_JS = "el => (el._fullData || []).map(t => ({name: t.name, x: Array.from(t.x || []), y: Array.from(t.y || [])}))"
PLOT = ".wb-plot-dist.js-plotly-plot, .wb-plot-dist .js-plotly-plot"


def exact_bars(page) -> list[float]:
    traces = page.eval_on_selector(PLOT, TRACES_JS)
    return next(t for t in traces if t["name"] == EXACT_BARS)["y"]


def wait_bars_differ(page, before: list[float]) -> list[float]:
    page.wait_for_function(
        "([sel, before, name]) => { const el = document.querySelector(sel);"
        " const t = ((el && el._fullData) || []).find(t => t.name === name);"
        " return !!t && JSON.stringify(Array.from(t.y)) !== JSON.stringify(before); }",
        arg=[PLOT, before, EXACT_BARS], timeout=180_000)
    return exact_bars(page)


def test_kill6_dashboard_slider_redraws_the_rule_files_exact_pmf(page, server):
    landing = page.goto(server.url).text()
    assert 'href="voila/render/kill6.ipynb"' in landing and "Kill-6" in landing

    page.goto(f"{server.url}voila/render/kill6.ipynb")
    page.wait_for_selector(".wb-plot-dist .main-svg")
    bars0 = wait_bars_differ(page, [])
    value0 = page.inner_text(".wb-slider-bs .widget-readout").strip()

    page.locator(".wb-slider-bs .noUi-handle").focus()
    page.keyboard.press("ArrowLeft")  # BS 4+ -> 3+: more hits
    bars1 = wait_bars_differ(page, bars0)
    value1 = page.inner_text(".wb-slider-bs .widget-readout").strip()
    assert int(value1) == int(value0) - 1
    assert bars1 != bars0

    page.wait_for_function("v => (document.querySelector('.wb-link .wb-link-href') || {}).href"
                           " && document.querySelector('.wb-link .wb-link-href').href.includes('bs=' + v)",
                           arg=value1, timeout=180_000)
    query = page.get_attribute(".wb-link .wb-link-href", "href")
    values = parse_query("kill6", query.split("?", 1)[1] if "?" in query else "")
    values.pop("mode", None)
    assert values.get("bs") == int(value1)
    expected = rules.load(data_dir("rules") / "kill6.toml").attack(**values).pmf
    np.testing.assert_allclose(exact_bars(page), expected, rtol=0, atol=1e-12)
    # and the bars before the move were the file's defaults
    np.testing.assert_allclose(bars0, rules.load(data_dir("rules") / "kill6.toml").attack().pmf,
                               rtol=0, atol=1e-12)
    assert off_machine(page.seen_urls) == []


def test_compare_page_adds_a_rule_file_to_the_overlay(page, server):
    page.goto(f"{server.url}voila/render/compare.ipynb?shots=4&models=3")
    plot = ".wb-plot-compare.js-plotly-plot, .wb-plot-compare .js-plotly-plot"
    page.wait_for_selector(".wb-plot-compare .main-svg")
    page.wait_for_function("sel => ((document.querySelector(sel) || {})._fullData || []).length === 4", arg=plot)
    expected = rules.load(data_dir("rules") / "kill6.toml").attack(shots=4, models=3).pmf
    page.locator(".wb-add-kill6 input[type=checkbox]").check()
    page.wait_for_function(  # the fifth trace, drawn with its results (not its placeholder)
        "([sel, n]) => { const d = (document.querySelector(sel) || {})._fullData || [];"
        " return d.length === 5 && (d[4].y || []).length === n; }",
        arg=[plot, int(expected.size)], timeout=180_000)
    traces = page.eval_on_selector(plot, TRACES_JS)
    added = traces[-1]
    assert added["name"] == rules.load(data_dir("rules") / "kill6.toml").name
    np.testing.assert_allclose(added["y"], expected, rtol=0, atol=1e-12)
    page.wait_for_function("() => (document.querySelector('.wb-link .wb-link-href') || {href: ''})"
                           ".href.includes('add=kill6')", timeout=180_000)
    assert off_machine(page.seen_urls) == []
