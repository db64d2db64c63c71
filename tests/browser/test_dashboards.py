"""The dashboards in a real browser (Debian's Chromium through Playwright),
served by ``python -m workbench.serve`` from the real notebooks.

A viewer opens each dashboard, moves a slider with the keyboard, and the plot
and the numbers change; the new plot equals the exact result of the system's
stat-level function for the values in the page's own link; no request leaves
127.0.0.1; a shared link sets the sliders; a combination the rules forbid
shows its message and a later valid change still redraws the plot.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from workbench import systems
from workbench.ui.query import parse_query
from workbench.figures import EXACT_BARS

from browserkit import off_machine, screenshot_path

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.xdist_group("full-server")]

# plot traces as the page drew them: visibility, x and y of each trace (plotly's full data)
SIG_JS = "el => JSON.stringify((el._fullData || []).map(t => [t.visible, Array.from(t.x || []), Array.from(t.y || [])]))"
TRACES_JS = "el => (el._fullData || []).map(t => ({name: t.name, x: Array.from(t.x || []), y: Array.from(t.y || [])}))"

# dashboard -> (slider a viewer moves, plot that must redraw, element holding the numbers)
DASHBOARDS = {
    "changes": ("bs", ".wb-plot-dist", ".wb-effects"),
    "forgotten": ("shoot", ".wb-plot-dist", ".wb-effects"),
    "gunfire": ("bs", ".wb-plot-dist", ".wb-effects"),
    "antares": ("acc", ".wb-plot-dist", ".wb-effects"),
    "compare": ("accuracy", ".wb-plot-compare", ".wb-compare-table"),
}


def plotly_el(plot: str) -> str:
    """The plotly graph div of a plot: the widget itself (FigureWidget) or inside it (mime output)."""
    return f"{plot}.js-plotly-plot, {plot} .js-plotly-plot"


def open_dashboard(page, server, name: str, query: str = "") -> None:
    page.goto(f"{server.url}voila/render/{name}.ipynb{query}")
    page.wait_for_selector(f"{DASHBOARDS[name][1]} .main-svg")
    wait_plot_changed(page, DASHBOARDS[name][1], "")  # drawn, with its traces


def plot_sig(page, plot: str) -> str:
    return page.eval_on_selector(plotly_el(plot), SIG_JS)


def wait_changed(page, plot: str, sig_js: str, before: str, timeout: float = 15_000) -> str:
    """Wait until the plot draws traces that differ from ``before``, and return
    them as read in that same moment (a plot with no traces is not a redraw)."""
    handle = page.wait_for_function(
        "([sel, before]) => { const el = document.querySelector(sel);"
        " if (!el || !(el._fullData || []).length) return false;"
        f" const now = ({sig_js})(el); return now !== before && now; }}",
        arg=[plotly_el(plot), before], timeout=timeout)
    return handle.json_value()


def wait_plot_changed(page, plot: str, before: str, timeout: float = 15_000) -> str:
    return wait_changed(page, plot, SIG_JS, before, timeout)


def readout(page, name: str) -> str:
    return page.inner_text(f".wb-slider-{name} .widget-readout").strip()


def press_slider(page, name: str, key: str) -> None:
    """As a person would: focus the slider's handle and press an arrow key."""
    page.locator(f".wb-slider-{name} .noUi-handle").focus()
    page.keyboard.press(key)


def link_query(page) -> str:
    return page.get_attribute(".wb-link .wb-link-href", "href")


def exact_pmf(system: str, query: str) -> np.ndarray:
    """The exact distribution of the link's values, straight from the system module."""
    values = parse_query(system, query)
    mode = values.pop("mode", "shooting")
    assert mode == "shooting", query
    return systems.get(system).shooting(**values).pmf


def dist_bars(page) -> tuple[list, list]:
    traces = page.eval_on_selector(plotly_el(".wb-plot-dist"), TRACES_JS)
    exact = next(t for t in traces if t["name"] == EXACT_BARS)
    return exact["x"], exact["y"]


def assert_bars_become(page, expected: np.ndarray, timeout: float = 15_000) -> None:
    """The drawn exact bars equal ``expected`` once the page has caught up (the
    link is updated before the plot, so a plot may still be on its way)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            "([sel, want, name]) => { const el = document.querySelector(sel);"
            " const t = ((el && el._fullData) || []).find(t => t.name === name);"
            " return !!t && t.y.length === want.length && want.every((v, i) => Math.abs(t.y[i] - v) <= 1e-12); }",
            arg=[plotly_el(".wb-plot-dist"), [float(v) for v in expected], EXACT_BARS], timeout=timeout)
    except PlaywrightTimeout:  # show the difference rather than a bare timeout
        pass
    np.testing.assert_allclose(dist_bars(page)[1], expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", list(DASHBOARDS))
def test_slider_moves_the_plot_and_the_numbers(page, server, name):
    slider, plot, numbers = DASHBOARDS[name]
    open_dashboard(page, server, name)
    plot0, numbers0, value0 = plot_sig(page, plot), page.inner_text(numbers), readout(page, slider)
    assert numbers0.strip()

    key = "ArrowRight"
    press_slider(page, slider, key)
    plot1 = wait_plot_changed(page, plot, plot0)
    page.wait_for_function("([sel, before]) => document.querySelector(sel).innerText !== before",
                           arg=[numbers, numbers0])
    value1 = readout(page, slider)
    assert plot1 != plot0
    assert page.inner_text(numbers) != numbers0
    assert int(value1) == int(value0) + 1, (value0, value1)
    page.wait_for_timeout(300)  # let plotly finish painting before the picture
    page.screenshot(path=str(screenshot_path(name)), full_page=True)

    if name != "compare":  # the drawn bars are the exact pmf of the link's values
        query = link_query(page)
        assert f"{slider}={value1}" in query
        x, y = dist_bars(page)
        expected = exact_pmf(name, query)
        assert x == list(range(expected.size))
        np.testing.assert_allclose(y, expected, rtol=0, atol=1e-12)

    assert off_machine(page.seen_urls) == []
    assert any("/api/kernels/" in u and u.startswith(server.url.replace("http://", "ws://")) for u in page.seen_urls)


def test_landing_page_links_every_dashboard(page, server):
    page.goto(server.url)
    hrefs = page.eval_on_selector_all("ul.dashboards a", "els => els.map(a => a.getAttribute('href'))")
    rule_files = [k for k in systems.keys() if k not in systems.builtins()]  # then one per rule file
    # relative links: they work under any base URL
    assert hrefs == [f"voila/render/{n}.ipynb" for n in [*DASHBOARDS, "diagnostics", "changes_turn", "before_after",
                                                               *rule_files]]
    page.click("text=Gunfire")
    page.wait_for_selector(".wb-dashboard-gunfire .wb-plot-dist .main-svg")
    assert off_machine(page.seen_urls) == []


def test_shared_link_sets_the_sliders(page, server):
    query = "?bs=4&ap=6&shots=10"
    open_dashboard(page, server, "changes", query)
    assert (readout(page, "bs"), readout(page, "ap"), readout(page, "shots")) == ("4", "6", "10")
    own = link_query(page)
    assert re.search(r"[?&]bs=4(&|$)", own) and re.search(r"[?&]ap=6(&|$)", own) and "shots=10" in own
    x, y = dist_bars(page)
    np.testing.assert_allclose(y, exact_pmf("changes", own), rtol=0, atol=1e-12)
    # the page's own link reopens the same values in a new page
    page.goto(f"{server.url}voila/render/changes.ipynb{own}")
    page.wait_for_selector(".wb-plot-dist .main-svg")
    assert (readout(page, "bs"), readout(page, "ap"), readout(page, "shots")) == ("4", "6", "10")
    assert dist_bars(page)[1] == y
    assert off_machine(page.seen_urls) == []


def test_shared_link_sets_the_compare_sliders(page, server):
    open_dashboard(page, server, "compare", "?accuracy=2&shots=3")
    assert (readout(page, "accuracy"), readout(page, "shots")) == ("2", "3")


def test_forbidden_combination_shows_the_message_and_the_dashboard_keeps_working(page, server):
    open_dashboard(page, server, "changes")
    plot0 = plot_sig(page, ".wb-plot-dist")
    assert not page.query_selector(".wb-error .wb-error-message")
    # the seed: enemy units can only fire at an EVADING unit with SNAP SHOTS; the default action is aimed
    page.check(".wb-toggle-evading input")
    page.wait_for_selector(".wb-error .wb-error-message")
    message = page.inner_text(".wb-error")
    assert "action" in message and "EVADING" in message and "snap" in message.lower(), message
    assert plot_sig(page, ".wb-plot-dist") == plot0  # the last valid plot stays
    page.screenshot(path=str(screenshot_path("changes-forbidden")), full_page=True)
    # a valid change: snap shots (at full BS, RULES.md) at the evading target clear the message
    page.select_option(".wb-dropdown-action select", "snap")
    page.wait_for_function("() => !document.querySelector('.wb-error .wb-error-message')")
    page.wait_for_function("() => document.querySelector('.wb-link .wb-link-href').getAttribute('href')"
                           ".includes('action=snap')")
    query = link_query(page)
    assert "evading=true" in query
    assert_bars_become(page, exact_pmf("changes", query))
    # and a later change still redraws the plot
    plot1 = plot_sig(page, ".wb-plot-dist")
    press_slider(page, "shots", "ArrowLeft")
    assert wait_plot_changed(page, ".wb-plot-dist", plot1) != plot1
    assert readout(page, "shots") == "9"
    query = link_query(page)
    assert "shots=9" in query and "action=snap" in query and "evading=true" in query
    assert_bars_become(page, exact_pmf("changes", query))
    assert not page.query_selector(".wb-error .wb-error-message")
    assert off_machine(page.seen_urls) == []


def test_bad_link_value_shows_a_message_and_the_dashboard_works(page, server):
    open_dashboard(page, server, "gunfire", "?bs=banana&shots=3")
    page.wait_for_selector(".wb-error .wb-error-message")
    assert "bs" in page.inner_text(".wb-error")
    assert readout(page, "shots") == "3"
    plot0 = plot_sig(page, ".wb-plot-dist")
    press_slider(page, "shots", "ArrowRight")
    wait_plot_changed(page, ".wb-plot-dist", plot0)
    assert readout(page, "shots") == "4"


def test_diagnostics_dashboard_sweeps_as_a_slider_moves(page, server):
    """The design-diagnostics page renders offline, and moving its
    shots slider redraws the sweep heatmap with the new expected removals."""
    page.goto(f"{server.url}voila/render/diagnostics.ipynb")
    page.wait_for_selector(".wb-plot-heatmap .main-svg", timeout=180_000)
    z_js = "el => JSON.stringify((el._fullData || []).map(t => t.z))"
    before = wait_changed(page, ".wb-plot-heatmap", z_js, "", timeout=180_000)
    assert readout(page, "shots") == "10"
    press_slider(page, "shots", "ArrowRight")
    after = wait_changed(page, ".wb-plot-heatmap", z_js, before)
    assert readout(page, "shots") == "11"
    # expected removals grow in proportion to shots: every cell x 11/10
    z0 = np.array(json.loads(before)[0], dtype=float)
    z1 = np.array(json.loads(after)[0], dtype=float)
    np.testing.assert_allclose(z1, z0 * 11 / 10, rtol=1e-9)
    page.wait_for_timeout(300)
    page.screenshot(path=str(screenshot_path("diagnostics")), full_page=True)
    assert off_machine(page.seen_urls) == []


def _choice(page, sel: str) -> str:
    """The text of a dropdown's chosen option (ipywidgets writes spaces as no-break spaces)."""
    return page.eval_on_selector(sel, "s => s.options[s.selectedIndex].text.replace(/\\u00a0/g, ' ')")


def _choose(page, sel: str, text: str) -> None:
    index = page.eval_on_selector(sel, "(s, t) => Array.from(s.options).findIndex(o => o.text.replace(/\\u00a0/g, ' ') === t)",
                                  text)
    assert index >= 0, (sel, text)
    page.select_option(sel, index=index)


def test_army_list_pickers_load_on_choice_and_never_disagree_with_the_sliders(page, server):
    """Choosing units loads them at once; a slider moved away from them turns the pickers to 'custom values'."""
    from workbench import profiles
    rever = next(u for u in profiles.list_units("antares") if u.key == "rever")
    open_dashboard(page, server, "antares")
    assert _choice(page, ".wb-profile-attacker select") == "custom values"
    plot0 = plot_sig(page, ".wb-plot-dist")
    _choose(page, ".wb-profile-attacker select", rever.name)
    _choose(page, ".wb-profile-target select", rever.name)
    page.wait_for_function("want => document.querySelector('.wb-slider-acc .widget-readout').textContent.trim() === want",
                           arg=str(rever["acc"]), timeout=120_000)
    wait_plot_changed(page, ".wb-plot-dist", plot0, timeout=120_000)
    page.wait_for_function("() => document.querySelector('.wb-profile-message').innerText.includes('Loaded')")
    press_slider(page, "acc", "ArrowLeft" if rever["acc"] > 0 else "ArrowRight")
    # the three pickers are three widgets, each updated by a message of its own: wait for every one
    # (a picker whose options are being replaced has none chosen for a moment)
    page.wait_for_function("() => ['attacker', 'weapon', 'target'].every(w => {"
                           " const s = document.querySelector(`.wb-profile-${w} select`);"
                           " const o = s && s.selectedOptions[0];"
                           " return !!o && o.text.replace(/\\u00a0/g, ' ') === 'custom values'; })",
                           timeout=120_000)
    for which in ("attacker", "weapon", "target"):
        assert _choice(page, f".wb-profile-{which} select") == "custom values"
    # the message line is a widget of its own too, updated by a message that may come after the pickers'
    page.wait_for_function("() => document.querySelector('.wb-profile-message').innerText.includes('custom')",
                           timeout=120_000)
    assert "Loaded" not in page.inner_text(".wb-profile-message")
