"""The Changes turn page (workbench.ui.turn) without a browser.

Its numbers are checked against the simulator called directly with forces
built here from the profile (never through the page's own code), its words
against code vocabulary, its link against a round trip and bad values, and
its controls against what a viewer can send over the websocket.
"""
from __future__ import annotations

import html
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from workbench.turn import from_profile, study
from workbench.ui import guard
from workbench.ui.turn import SCENARIOS, TurnDashboard
from workbench.ui.turncontrols import DEFAULT_TURNS

#: what a playtester must never read on the page
CODE_WORDS = re.compile(r"lost_[AB]|policy|under_fire|go_to_ground|igougo|exchange_ratio|kill_probability|"
                        r"_se\b|None|nan|inf\b|Traceback|\.py\b|null")


def _text(value: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", value))


def _force(side: str, units):
    """``units``: (models, gun, cover) per unit; each with the profile's combat knife."""
    return [from_profile("Space Marine", name=f"{side}{i}", models=m, weapons=[g, "Combat Knife"], cover=c)
            for i, (m, g, c) in enumerate(units, start=1)]


DEFAULT_A = _force("A", [(5, "Boltgun", 0), (10, "Boltgun", 0), (5, "Boltgun", 0)])
DEFAULT_B = _force("B", [(5, "Boltgun", 0), (10, "Heavy Bolter", 2), (5, "Boltgun", 0)])


@pytest.fixture(scope="module")
def page():
    return TurnDashboard(turns=200, seed=3)


def test_the_page_speaks_a_playtesters_words(page):
    assert page.error.value == ""
    words = " ".join(_text(w.value) for w in page.widget.children
                     if isinstance(getattr(w, "value", None), str) and "wb-style" not in w._dom_classes)
    words += " " + _text(page.table.value) + " " + _text(page.status.value)
    words += " " + " ".join(w.description + " " + w.tooltip for w in page.widgets.values())
    words += " " + " ".join(str(o[0]) for k in ("a_plan", "b_answer", "a1_unit") for o in page.widgets[k].options)
    for fw in page.figures.values():
        lay = go.Layout(fw.figure["layout"])
        words += " " + " ".join(str(x) for x in (lay.title.text, lay.xaxis.title.text,
                                                  lay.yaxis.title.text) if x is not None)
        words += " " + " ".join(t.name for t in fw.data if t.name) + " " + " ".join(
            str(x) for t in fw.data if t.type == "bar" and isinstance(t.x[0], str) for x in t.x)
    assert not CODE_WORDS.search(words), CODE_WORDS.search(words)
    assert all(w.tooltip for w in page.widgets.values())  # every control says what it means
    assert "Based on 200 simulated turns" in _text(page.status.value)
    table = _text(page.table.value)
    assert "Expected models the active player loses" in table and "Chance a turn has shots" in table
    assert re.search(r"\d+\.\d %", table)  # chances are percentages
    for name in SCENARIOS.values():
        assert name in table
    assert "Engage" in " ".join(label for label, _ in page.widgets["b_answer"].options)


def test_the_numbers_and_the_plots_are_the_simulators(page):
    """Every scenario equals the simulator run here on the same forces and seed."""
    turns, seed = 200, 3
    pol_a = ("greedy", {"kill_probability": 0.8})
    direct = {answer: study(DEFAULT_A, DEFAULT_B, policy_a=pol_a, policy_b=("focus", {"response": answer}),
                            turns=turns, seed=seed, progress=False) for answer in ("engage", "under_fire")}
    direct["igougo"] = study(DEFAULT_A, DEFAULT_B, policy_a=pol_a, policy_b=("focus", {"response": "engage"}),
                             mode="igougo", turns=turns, seed=seed, progress=False)
    n = page.numbers.set_index("scenario")
    for key, df in (("chosen", direct["engage"]), ("engage", direct["engage"]),
                    ("under_fire", direct["under_fire"]), ("igougo", direct["igougo"])):
        a, b = df["lost_A"].to_numpy(), df["lost_B"].to_numpy()
        assert n.loc[key, "turns"] == turns
        assert n.loc[key, "lost_active"] == pytest.approx(a.mean(), abs=1e-12)
        assert n.loc[key, "lost_passive"] == pytest.approx(b.mean(), abs=1e-12)
        assert n.loc[key, "lost_active_margin"] == pytest.approx(2 * a.std(ddof=1) / np.sqrt(turns), abs=1e-12)
        assert n.loc[key, "exchange"] == pytest.approx(b.mean() / a.mean(), abs=1e-12)
        assert n.loc[key, "p_wasted_turn"] == pytest.approx((df["shots_wasted"] > 0).mean(), abs=1e-12)
        assert n.loc[key, "wasted_share"] == pytest.approx(df["shots_wasted"].sum() / df["shots"].sum(), abs=1e-12)
        assert 0 <= n.loc[key, "p_wasted_turn"] <= 1
    # under I-go-you-go nothing is shot at a unit already destroyed: the units shoot one at a time,
    # each seeing the previous results (docs/rules/changes_turn.md); the seed's turn wastes some here
    assert n.loc["igougo", "p_wasted_turn"] == 0 and n.loc["igougo", "wasted_share"] == 0
    assert n.loc["chosen", "p_wasted_turn"] > 0
    # the distributions drawn: share of turns with k models lost, Changes turn then I-go-you-go
    for fig, col in (("lost-active", "lost_A"), ("lost-passive", "lost_B")):
        changes_bars, igougo_bars = page.figures[fig].data
        for bars, df in ((changes_bars, direct["engage"]), (igougo_bars, direct["igougo"])):
            want = np.bincount(df[col].to_numpy()) / turns
            got = np.asarray(bars.y)
            assert got.sum() == pytest.approx(1.0, abs=1e-12)
            np.testing.assert_allclose(got[:want.size], want, rtol=0, atol=1e-12)
            assert not got[want.size:].any()
    engage = page.figures["engage"].data
    assert [t.name for t in engage] == ["active player loses", "passive player loses"]
    np.testing.assert_allclose(engage[1].y, [direct["engage"]["lost_B"].mean(), direct["under_fire"]["lost_B"].mean()])


def test_each_control_reaches_the_simulator():
    page = TurnDashboard(turns=100, seed=5)
    assert page.set_values(a_units=2, b_units=1, a1_models=12, a2_unit="space-marine.heavy-bolter", a2_cover=1,
                           b1_models=7, b1_cover=3, a_plan="spread", b_plan="greedy", b_kill=60,
                           b_answer="go_to_ground", turns=100, seed=9)
    a, b = page.forces()
    assert [(u.name, u.models, u.cover, [w.name for w in u.guns]) for u in a] == \
        [("A1", 12, 0, ["Boltgun"]), ("A2", 10, 1, ["Heavy Bolter"])]
    assert [(u.name, u.models, u.cover) for u in b] == [("B1", 7, 3)]
    assert page.policies() == (("spread", {}), ("greedy", {"kill_probability": 0.6, "response": "go_to_ground"}))
    fa = _force("A", [(12, "Boltgun", 0), (10, "Heavy Bolter", 1)])
    fb = _force("B", [(7, "Boltgun", 3)])
    pol_b = ("greedy", {"kill_probability": 0.6, "response": "go_to_ground"})
    df = study(fa, fb, policy_a="spread", policy_b=pol_b, turns=100, seed=9, progress=False)
    assert (df["went_to_ground"] >= 1).all()  # its one unit is attacked every turn, and goes to ground
    row = page.numbers.set_index("scenario").loc["chosen"]
    assert row["lost_passive"] == pytest.approx(df["lost_B"].mean(), abs=1e-12)
    assert row["lost_active"] == pytest.approx(df["lost_A"].mean(), abs=1e-12)
    # the rows of units not on the table are hidden, and the 'just enough' target only shows with that plan
    assert [r.layout.display for r in page.unit_rows["a"]] == ["flex", "flex", "none"]
    assert [r.layout.display for r in page.unit_rows["b"]] == ["flex", "none", "none"]
    assert page.widgets["a_kill"].layout.display == "none" and page.widgets["b_kill"].layout.display == "flex"
    assert "goes to ground" in _text(page.table.value) or "go to ground" in _text(page.table.value)


def test_the_default_sample_is_the_documented_one():
    page = TurnDashboard()
    assert page.values()["turns"] == DEFAULT_TURNS
    assert f"Based on {DEFAULT_TURNS} simulated turns" in _text(page.status.value)
    assert set(page.numbers["scenario"]) == set(SCENARIOS)
    assert page.controls["a_plan"].options == ("focus", "spread", "greedy")
    assert page.controls["b_answer"].options == ("engage", "under_fire", "go_to_ground")


def test_a_link_round_trips_through_a_new_page():
    page = TurnDashboard(turns=100)
    page.set_values(a_plan="focus", a_units=1, a1_models=9, a1_unit="space-marine.heavy-bolter", b2_cover=4,
                    seed=42, turns=200, b_answer="under_fire")
    qs = page.query_string()
    assert qs.startswith("?") and "a1_models=9" in qs and "seed=42" in qs and "a2_models" not in qs
    assert "a_kill" not in qs  # the 'just enough' target is only in a link with that plan
    again = TurnDashboard(turns=100, query=qs)  # the link must bring its 200 over the 100 given
    assert again.error.value == ""
    assert again.recomputes == 1  # drawn once, with the link's settings: never first at the others
    assert {k: again.values()[k] for k in ("a_plan", "a_units", "a1_models", "a1_unit", "b2_cover", "seed", "turns",
                                           "b_answer")} == \
        {"a_plan": "focus", "a_units": 1, "a1_models": 9, "a1_unit": "space-marine.heavy-bolter", "b2_cover": 4,
         "seed": 42, "turns": 200, "b_answer": "under_fire"}
    assert again.numbers.equals(page.numbers)
    assert page.link.query == qs


BAD = {
    "turns=inf": ("turns", "'inf'"),
    "turns=1e400": ("turns", "'1e400'"),
    "turns=150": ("turns", "in steps of 100"),
    "turns=100000": ("turns", "100 to 2000"),
    "seed=" + "9" * 5000: ("seed", "(5,000 characters)"),
    "a1_unit=%3Cb%3Eork%3C/b%3E": ("a1_unit", "'<b>ork</b>'"),
    "a_plan=berserk": ("a_plan", "one of focus, spread, greedy"),
    "b_answer=flee": ("b_answer", "'flee'"),
    "a1_models=4&a1_models=6": ("a1_models", "using the first, 4"),
    "colour=red": ("colour", "colour=red"),
    "a_kill=87": ("a_kill", "in steps of 5"),
    "a_kill=97": ("a_kill", "from 50 to 95"),
}


@pytest.mark.parametrize("bad", list(BAD))
def test_a_bad_link_keeps_a_working_page_with_a_message(bad):
    key, shown = BAD[bad]
    extra = "&b1_models=7" + ("" if bad.startswith("turns") else "&turns=100")
    # drawn at 100 turns (the page's default 500 would play the same turns five times longer);
    # a bad number of turns keeps those
    page = TurnDashboard(turns=100, query=f"?{bad}{extra}")
    assert page.recomputes == 1
    message = _text(page.error.value)
    assert "Link:" in message
    assert key in message and shown in message, message
    assert "<b>" not in page.error.value  # a value is shown as text, never as markup
    assert page.values()["b1_models"] == 7  # the link's good value is applied
    assert page.numbers is not None and len(page.figures["lost-active"].data) == 2
    if bad.startswith("a1_models"):
        assert page.values()["a1_models"] == 4
    # and a control still redraws with the simulator's numbers
    before = page.numbers.copy()
    page.widgets["a1_models"].value = 3
    assert page.error.value == "" and not page.numbers.equals(before)


def _from_page(widget, **state) -> None:
    """A state update as the page's websocket delivers it to the kernel."""
    widget._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}})


def test_a_viewer_cannot_push_a_control_past_its_range():
    page = TurnDashboard(turns=100)
    turns = page.widgets["turns"]
    with page.hold():  # widened on the kernel side too: the declared range wins
        page.widgets["a1_models"].max = 5000
        page.widgets["a1_models"].value = 4000
    assert page.widgets["a1_models"].max == 20 and page.values()["a1_models"] == 20
    # the turns last: every redraw after this one plays the 2000 turns it is held to
    _from_page(turns, max=10**7, value=10**7)
    assert (turns.max, page.values()["turns"]) == (2000, 2000)
    assert page.numbers.set_index("scenario").loc["chosen", "turns"] == 2000
    with page.hold():
        turns.value = 155
    assert page.values()["turns"] == 200 and turns.value == 200  # onto a step
    plan = page.widgets["a_plan"]
    _from_page(plan, _options_labels=["Focus", "Nuke"], index=9)
    assert page.values()["a_plan"] == "greedy" and len(plan.options) == 3
    assert page.error.value == ""


def test_an_unexpected_failure_shows_a_plain_sentence(monkeypatch, capfd):
    page = TurnDashboard(turns=100)
    before, status = page.numbers.copy(), page.status.value

    def broken(*args, **kwargs):
        raise RuntimeError("boom in /srv/secret/workbench/turn/study.py")

    monkeypatch.setattr("workbench.ui.turn.study", broken)
    page.widgets["seed"].value = 8
    assert guard.SOMETHING_WENT_WRONG in _text(page.error.value)
    assert "/srv/secret" not in page.error.value
    assert page.numbers.equals(before) and page.status.value == status  # the last charts and their sample stay
    assert "/srv/secret" in capfd.readouterr().err
