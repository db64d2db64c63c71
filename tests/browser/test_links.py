"""Links in a real browser: the address bar follows the controls, the copy
button copies the full link, a copied link restores the values, and every
bad link keeps a working page with a message naming the bad value.

Served by ``python -m workbench.serve`` (the session's ``server`` fixture) and
driven in Debian's Chromium through Playwright.
"""
from __future__ import annotations

import re
import urllib.parse

import numpy as np
import pytest

from browserkit import off_machine
from test_dashboards import (assert_bars_become, dist_bars, exact_pmf, open_dashboard, press_slider, readout,
                             wait_changed, wait_plot_changed)

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.xdist_group("full-server")]


def address_values(page) -> dict[str, str]:
    """The dashboard values in the address bar (the query of the page's URL)."""
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))


def wait_address(page, piece: str, timeout: float = 30_000) -> None:
    page.wait_for_function("piece => window.location.search.includes(piece)", arg=piece, timeout=timeout)


def test_the_address_bar_follows_the_sliders_and_a_copied_link_restores_them(page, server):
    open_dashboard(page, server, "changes")
    page.evaluate("window.__same_page = 1")  # gone if the page reloaded
    wait_address(page, "bs=5")
    press_slider(page, "bs", "ArrowLeft")
    press_slider(page, "shots", "ArrowRight")
    wait_address(page, "bs=4")
    wait_address(page, "shots=11")
    assert page.evaluate("window.__same_page") == 1
    values = address_values(page)
    assert (values["bs"], values["shots"], values["mode"]) == ("4", "11", "shooting")
    assert (readout(page, "bs"), readout(page, "shots")) == ("4", "11")
    # the address is the page's own path with a query only: the server's host, port and prefix kept
    parts = urllib.parse.urlsplit(page.url)
    assert page.url.startswith(server.url) and parts.path.endswith("/voila/render/changes.ipynb")
    # the page shows the same full link, and its copy button copies exactly that
    shown = page.inner_text(".wb-link .wb-link-href").strip()
    assert shown == page.url
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click(".wb-link .wb-copy")
    page.wait_for_function("() => document.querySelector('.wb-copy-status').textContent === 'Copied.'")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.url
    # the drawn plot is the exact result of the link's values
    assert_bars_become(page, exact_pmf("changes", urllib.parse.urlsplit(copied).query))
    bars = dist_bars(page)[1]

    other = page.context.new_page()
    other.set_default_timeout(180_000)
    other.goto(copied)
    other.wait_for_selector(".wb-plot-dist .main-svg")
    wait_plot_changed(other, ".wb-plot-dist", "")
    assert (readout(other, "bs"), readout(other, "shots"), readout(other, "ap")) == ("4", "11", "5")
    np.testing.assert_allclose(dist_bars(other)[1], bars, rtol=0, atol=1e-12)
    assert other.url == copied
    assert off_machine(page.seen_urls) == []


def test_a_forbidden_link_keeps_its_values_and_shows_the_rule(page, server):
    open_dashboard(page, server, "changes", "?evading=true&action=aimed&bs=3&shots=7")
    page.wait_for_selector(".wb-error .wb-error-message")
    message = page.inner_text(".wb-error")
    assert "EVADING" in message and "snap" in message.lower() and "not allowed together" in message, message
    # every value of the link is on the controls; the address bar never holds the forbidden
    # combination as if it were a result (it keeps the last allowed settings, here the defaults)
    assert (readout(page, "bs"), readout(page, "shots")) == ("3", "7")
    assert page.is_checked(".wb-toggle-evading input")
    assert page.eval_on_selector(".wb-dropdown-action select", "s => s.options[s.selectedIndex].text") == "aimed"
    assert "greyed" in message
    wait_address(page, "evading=false")
    assert address_values(page)["action"] == "aimed" and address_values(page)["bs"] != "3"
    # moving a control to an allowed combination draws its exact result, and the address follows
    page.select_option(".wb-dropdown-action select", "snap")
    page.wait_for_function("() => !document.querySelector('.wb-error .wb-error-message')")
    wait_address(page, "action=snap")
    assert {k: address_values(page)[k] for k in ("evading", "bs", "shots")} == {"evading": "true", "bs": "3",
                                                                               "shots": "7"}
    assert_bars_become(page, exact_pmf("changes", urllib.parse.urlsplit(page.url).query))


# link -> what the message must say about each bad value: (the key it names, the text of the value it quotes).
# Each kind of bad value is refused by the kernel's link parser, which tests/test_ui.py checks one by one
# without a browser; here a page is opened per kind of effect the browser sees: numbers no slider can hold
# (several keys in one link: every one is named), a value too long to quote (a 5,000-character address),
# markup and a repeated key, and a combination the rules forbid.
BAD_LINKS = {
    "numbers": ("bs=inf&ap=-inf&s=nan&t=1e400&colour=red",
                ((" bs: ", "'inf'"), (" ap: ", "'-inf'"), (" s: ", "'nan'"), (" t: ", "'1e400'"),
                 ("colour", "colour=red"))),
    "5000-digits": ("bs=" + "9" * 5000, (("bs: ", "(5,000 characters)"),)),
    "junk-repeated": ("bs=%3Cb%3Ejunk%3C/b%3E&ap=4&ap=5", (("bs: ", "'<b>junk</b>'"), ("ap", "using the first, 4"))),
    "forbidden": ("evading=true&action=shot", (("EVADING", "not allowed together"),)),
}


@pytest.mark.parametrize("name", list(BAD_LINKS))
def test_every_bad_link_keeps_a_working_page_with_a_message(page, server, name):
    bad, expected = BAD_LINKS[name]
    page.goto(f"{server.url}voila/render/changes.ipynb?{bad}&shots=3")
    page.wait_for_selector(".wb-error .wb-error-message")
    page.wait_for_selector(".wb-plot-dist .main-svg")
    message = page.inner_text(".wb-error")
    for key, shown in expected:
        assert key in message and shown in message, (key, shown, message)
    body = page.inner_text("body")
    assert "Traceback" not in body and "error when executing" not in body and ".py" not in body
    assert page.query_selector(".wb-error b") is None  # a value is shown as text, never as markup
    assert readout(page, "shots") == "3"  # the link's good value is applied
    if name == "forbidden":  # every move keeps it forbidden until the action is one the rule allows
        page.select_option(".wb-dropdown-action select", "snap")
        page.wait_for_function("() => !document.querySelector('.wb-error .wb-error-message')")
        wait_address(page, "action=snap")
    # and a slider still redraws the plot with the exact result of the page's values
    plot0 = wait_plot_changed(page, ".wb-plot-dist", "")
    press_slider(page, "shots", "ArrowRight")
    assert wait_plot_changed(page, ".wb-plot-dist", plot0, timeout=120_000) != plot0
    assert readout(page, "shots") == "4"
    wait_address(page, "shots=4")
    assert_bars_become(page, exact_pmf("changes", urllib.parse.urlsplit(page.url).query))
    if name == "junk-repeated":
        assert readout(page, "ap") == "4"
    assert re.search(r"[?&]bs=\d+(&|$)", page.url)  # the address holds a value a slider can show


def test_the_diagnostics_page_honours_its_link(page, server):
    page.goto(f"{server.url}voila/render/diagnostics.ipynb?sweep_system=antares&sweep_x=acc&sweep_y=res"
              "&sweep_shots=12")
    page.wait_for_selector(".wb-plot-heatmap .main-svg", timeout=180_000)
    page.wait_for_function("() => document.querySelector('.wb-slider-shots .widget-readout')"
                           ".textContent.trim() === '12'")
    from workbench import systems

    shown = page.eval_on_selector(".wb-dropdown-system select", "s => s.options[s.selectedIndex].text")
    assert shown.replace("\xa0", " ") == systems.get("antares").name  # ipywidgets keeps a choice on one line
    wait_address(page, "sweep_shots=12")
    z_js = "el => JSON.stringify((el._fullData || []).map(t => t.z))"
    before = wait_changed(page, ".wb-plot-heatmap", z_js, "", timeout=180_000)
    press_slider(page, "shots", "ArrowRight")
    wait_address(page, "sweep_shots=13")
    assert wait_changed(page, ".wb-plot-heatmap", z_js, before) != before
    assert address_values(page)["sweep_system"] == "antares"
