"""The Changes turn page in a real browser (Debian's Chromium through Playwright).

The page renders its plots; a control moved as a person would redraws them
with the simulator's result for the values in the address bar (the turns are
replayed here with :func:`workbench.turn.study` on forces built from the
profile, not through the page's code); a copied link restores every value;
a bad link keeps a working page with a message naming each bad value. (The
phone check is test_phone.py's, which loops over every dashboard.)
"""
from __future__ import annotations

import urllib.parse

import numpy as np
import pytest

from workbench.turn import from_profile, study

from browserkit import off_machine, screenshot_path
from test_dashboards import plotly_el, press_slider, readout, wait_changed

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.xdist_group("full-server")]

PAGE = "voila/render/changes_turn.ipynb"
BARS_JS = "el => JSON.stringify((el._fullData || []).map(t => Array.from(t.y || [])))"
#: the unit pickers' values -> the profile's gun (written out here, not read from the page's code)
GUNS = {"space-marine.boltgun": "Boltgun", "space-marine.heavy-bolter": "Heavy Bolter"}


def simulated(query: str) -> dict[str, list[list[float]]]:
    """What the two distribution plots must show for the link's values: per plot,
    the share of turns with k models lost, Changes turn (your answer) then I-go-you-go."""
    q = dict(urllib.parse.parse_qsl(query.lstrip("?")))
    forces = []
    for side in "ab":
        forces.append([from_profile("Space Marine", name=f"{side.upper()}{i}", models=int(q[f"{side}{i}_models"]),
                                    weapons=[GUNS[q[f"{side}{i}_unit"]], "Combat Knife"],
                                    cover=int(q[f"{side}{i}_cover"]))
                       for i in range(1, int(q[f"{side}_units"]) + 1)])
    pols = []
    for side in "ab":
        opts = {"kill_probability": int(q[f"{side}_kill"]) / 100} if q[f"{side}_plan"] == "greedy" else {}
        if side == "b":
            opts["response"] = q["b_answer"]
        pols.append((q[f"{side}_plan"], opts))
    turns = int(q["turns"])
    kw = dict(policy_a=pols[0], policy_b=pols[1], turns=turns, seed=int(q["seed"]), progress=False)
    runs = [study(*forces, **kw), study(*forces, mode="igougo", **kw)]
    out = {}
    for plot, col in (("lost-active", "lost_A"), ("lost-passive", "lost_B")):
        width = max(int(df[col].max()) for df in runs) + 1
        out[plot] = [list(np.bincount(df[col].to_numpy(), minlength=width)[:width] / turns) for df in runs]
    return out


def drawn(page, plot: str) -> list[list[float]]:
    return page.eval_on_selector_all(plotly_el(f".wb-plot-{plot}"),
                                     "els => (els[0]._fullData || []).map(t => Array.from(t.y || []))")


def assert_draws_the_simulation(page) -> None:
    want = simulated(urllib.parse.urlsplit(page.url).query)
    for plot, traces in want.items():
        got = drawn(page, plot)
        assert len(got) == 2, (plot, got)
        for g, w in zip(got, traces):
            np.testing.assert_allclose(g, w, rtol=0, atol=1e-12)


def open_turn_page(page, server, query: str = "") -> str:
    page.goto(f"{server.url}{PAGE}{query}")
    page.wait_for_selector(".wb-plot-lost-active .main-svg", timeout=180_000)
    return wait_changed(page, ".wb-plot-lost-active", BARS_JS, "", timeout=180_000)


def wait_address(page, piece: str, timeout: float = 30_000) -> None:
    page.wait_for_function("piece => window.location.search.includes(piece)", arg=piece, timeout=timeout)


def test_the_page_renders_the_simulated_turns(page, server):
    open_turn_page(page, server, "?turns=200&seed=5")
    for plot in ("lost-active", "lost-passive", "exchange", "wasted", "engage"):
        wait_changed(page, f".wb-plot-{plot}", BARS_JS, "")
    wait_address(page, "turns=200")
    status = page.inner_text(".wb-turn-status")
    assert "Based on 200 simulated turns" in status
    table = page.inner_text(".wb-turn-numbers")
    assert "Expected models the active player loses" in table and "I-go-you-go" in table and "%" in table
    assert_draws_the_simulation(page)
    body = page.inner_text("body")
    assert "Traceback" not in body and "lost_A" not in body and "policy" not in body
    assert page.query_selector_all('[title="null"]') == []
    assert off_machine(page.seen_urls) == []
    page.screenshot(path=str(screenshot_path("changes_turn")), full_page=True)


def test_a_control_redraws_the_plots_and_a_copied_link_restores_them(page, server):
    before = open_turn_page(page, server, "?turns=200&seed=2")
    page.evaluate("window.__same_page = 1")
    press_slider(page, "a1_models", "ArrowRight")
    wait_address(page, "a1_models=6")
    after = wait_changed(page, ".wb-plot-lost-active", BARS_JS, before, timeout=120_000)
    assert after != before and readout(page, "a1_models") == "6"
    page.select_option(".wb-dropdown-a_plan select", label="Focus fire")
    wait_address(page, "a_plan=focus")
    wait_changed(page, ".wb-plot-lost-active", BARS_JS, after, timeout=120_000)
    press_slider(page, "b2_cover", "ArrowLeft")
    wait_address(page, "b2_cover=1")
    page.wait_for_timeout(500)
    page.wait_for_function("() => !document.querySelector('.wb-error .wb-error-message')")
    assert page.evaluate("window.__same_page") == 1  # no reload: the address follows the controls
    # the drawn plots are the simulator's for the address bar's values (once the last redraw arrived)
    want = simulated(urllib.parse.urlsplit(page.url).query)
    page.wait_for_function("([sel, want]) => { const el = document.querySelector(sel);"
                           " const y = ((el && el._fullData) || []).map(t => Array.from(t.y || []));"
                           " return JSON.stringify(y.map(r => r.map(v => v.toFixed(9)))) ==="
                           " JSON.stringify(want.map(r => r.map(v => v.toFixed(9)))); }",
                           arg=[plotly_el(".wb-plot-lost-passive"), want["lost-passive"]], timeout=120_000)
    assert_draws_the_simulation(page)
    shown = page.inner_text(".wb-link .wb-link-href").strip()
    assert shown == page.url

    other = page.context.new_page()
    other.set_default_timeout(180_000)
    open_turn_page(other, server, "?" + urllib.parse.urlsplit(shown).query)
    assert (readout(other, "a1_models"), readout(other, "b2_cover"), readout(other, "turns")) == ("6", "1", "200")
    plan = other.eval_on_selector(".wb-dropdown-a_plan select", "s => s.options[s.selectedIndex].text")
    assert " ".join(plan.split()) == "Focus fire"  # the page shows no-break spaces
    assert other.url == shown
    for plot in ("lost-active", "lost-passive"):
        np.testing.assert_allclose(drawn(other, plot), drawn(page, plot), rtol=0, atol=1e-12)
    assert off_machine(page.seen_urls) == []


def test_a_bad_link_keeps_a_working_page_with_a_message(page, server):
    bad = "?turns=inf&seed=1e400&a1_models=" + "9" * 5000 + "&colour=%3Cb%3Ered%3C/b%3E&b1_models=7&a_kill=87"
    page.goto(f"{server.url}{PAGE}{bad}")
    page.wait_for_selector(".wb-error .wb-error-message", timeout=180_000)
    before = wait_changed(page, ".wb-plot-lost-active", BARS_JS, "", timeout=180_000)
    message = page.inner_text(".wb-error")
    for piece in ("turns", "'inf'", "seed", "'1e400'", "a1_models", "(5,000 characters)", "colour", "a_kill",
                  "in steps of 5"):
        assert piece in message, (piece, message)
    assert page.query_selector(".wb-error b") is None  # a value is shown as text, never as markup
    body = page.inner_text("body")
    assert "Traceback" not in body and "error when executing" not in body and ".py" not in body
    assert readout(page, "b1_models") == "7"  # the link's good value is applied
    press_slider(page, "b1_models", "ArrowRight")
    wait_address(page, "b1_models=8")
    wait_changed(page, ".wb-plot-lost-active", BARS_JS, before, timeout=120_000)
    page.wait_for_function("() => !document.querySelector('.wb-error .wb-error-message')")
    assert_draws_the_simulation(page)
