"""Stage by stage: how many get through each step over all the attacks, one small chart per step.

The numbers are checked against a brute force (tests/brute_rules.py: every
die face with itertools and Fractions, every token followed) for the example
rule file whose every mechanism touches the counts (kill6: extra hits,
rending, devastating wounds, re-rolls, a save); the built-ins resolved by
their rule files (Gunfire, Antares) have their stage_pmfs checked against a
brute force in their own tests, and here the charts' numbers against those.
The section of the dashboard is checked without a browser: folded it costs
nothing (no plot, the stage counts never computed), opened it draws a chart
per step, and a move sends the plot its new numbers and titles only.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from brute_rules import stage, stage_pmfs
from workbench import figures, rules, systems
from workbench.teach import pct
from workbench.ui import SystemDashboard
from workbench.ui.stagecharts import SECTION_TITLE
from widgetkit import received, sent_messages

RULES = Path(__file__).resolve().parents[1] / "rules"

#: kill6 at BS 4 in light cover, stationary (+1), AP 4, S4 against T4, save 5+ (as tests/test_rules.py reads it)
KILL6_ARGS = dict(cover="light", stationary=True, models=3, wounds=2, bs=4, ap=4, s=4, t=4, sv=5)
KILL6_STAGES = [
    stage(name="to hit", target=5, modifier=1, always_fail=(1,), critical=(6,), on_critical="extra", extra=1,
          reroll="ones"),
    stage(name="to pierce", target=4, always_fail=(1,), critical=(6,), on_critical="skip_next"),
    stage(name="to wound", target=4, always_fail=(1,), critical=(6,), on_critical="to_end", reroll="failed"),
    stage(name="save", target=5, always_fail=(1,), passes_on="fail"),
]


def brute_stage_pmfs(stages: list[dict], count: int) -> list[list[Fraction]]:
    """P(k tokens pass stage i over ``count`` attacks) as a list per stage, k = 0, 1, ..."""
    return [[w.get(k, Fraction(0)) for k in range(max(w) + 1)] for w in stage_pmfs(stages, count)]


def assert_same(got, want) -> None:
    got = np.asarray(got, dtype=float)
    want = np.asarray([float(x) for x in want])
    width = max(got.size, want.size)
    np.testing.assert_allclose(np.pad(got, (0, width - got.size)), np.pad(want, (0, width - want.size)),
                               atol=1e-12)


def charts(figure: dict) -> list[tuple[str, list[int], list[float]]]:
    """Each small chart of the stage-by-stage figure: (its title's first line, x, y), checking that
    each bar trace has axes of its own, titled by the annotation over it."""
    out = []
    assert len(figure["layout"]["annotations"]) == len(figure["data"])
    for i, (bar, note) in enumerate(zip(figure["data"], figure["layout"]["annotations"])):
        assert bar["type"] == "bar"
        axis = "" if i == 0 else str(i + 1)
        assert (bar["xaxis"], bar["yaxis"]) == (f"x{axis}", f"y{axis}")
        assert figure["layout"][f"yaxis{axis}"]["tickformat"] == ".0%" and "%{y:.1%}" in bar["hovertemplate"]
        out.append((note["text"].split("<br>")[0].removeprefix("<b>").removesuffix("</b>"), bar["x"], bar["y"]))
    return out


@pytest.mark.parametrize("shots", [1, 2, 3])
def test_kill6_stage_counts_and_their_charts_equal_a_brute_force(shots):
    k6 = rules.load(RULES / "kill6.toml")
    o = k6.attack(shots=shots, **KILL6_ARGS)
    want = brute_stage_pmfs(KILL6_STAGES, shots)
    assert list(o.stage_pmfs) == [st["name"] for st in KILL6_STAGES]
    for name, w in zip(o.stage_pmfs, want):
        assert_same(o.stage_pmfs[name], w)
    figure = figures.stage_by_stage(o)
    shown = charts(figure)
    assert len(shown) == 4
    for (_label, x, y), w in zip(shown, want):
        assert x == list(range(len(y)))
        assert_same(y, w)  # the tail left off is below one in a million: none at these few shots
    # a save is a roll the target fails: its chart reads as what gets through it
    assert [label for label, _x, _y in shown] == ["to hit", "to pierce", "to wound", "save failed"]
    mean = float(sum(k * p for k, p in enumerate(want[3])))
    at_least_one = float(1 - want[3][0])
    assert figure["layout"]["annotations"][3]["text"] == \
        f"<b>save failed</b><br>on average {mean:.2f} · at least one {pct(at_least_one)}"


@pytest.mark.parametrize("key, kwargs", [("gunfire", dict(bs=4, ev=3, ap=3, av=3, s=4, t=4, shots=7)),
                                         ("antares", dict(acc=6, res=5, sv=2, shots=9)),
                                         ("kill6", dict(shots=40, bs=2, ap=2, s=8, t=4, sv=7))])
def test_the_charts_are_the_outcomes_stage_counts_in_percentages(key, kwargs):
    o = systems.get(key).module.shooting(**kwargs) if key != "kill6" else systems.get(key).module.attack(**kwargs)
    figure = figures.stage_by_stage(o)
    shown = charts(figure)
    assert len(shown) == len(o.stage_pmfs) == len(o.stages) > 0
    for (label, x, y), name, st, note in zip(shown, o.stage_pmfs, o.stages, figure["layout"]["annotations"]):
        pmf = np.asarray(o.stage_pmfs[name])
        assert x == list(range(len(y)))
        np.testing.assert_allclose(y, pmf[:len(y)], atol=1e-15)
        assert (pmf[len(y):] < figures.STAGE_TAIL).all() and y[-1] >= figures.STAGE_TAIL
        assert label == st.name
        assert f"on average {pmf @ np.arange(pmf.size):.2f} · at least one {pct(1 - pmf[0])}" in note["text"]


def test_an_outcome_without_stage_counts_has_no_charts():
    from workbench.systems import changes
    o = changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=10, models=5)
    if o.stage_pmfs is not None:
        o = o.replace(stage_pmfs=None)
    assert figures.stage_passes(o) == () and figures.stage_by_stage(o)["data"] == []


def test_the_stage_charts_export_as_they_are_drawn():
    from workbench import export
    o = rules.load(RULES / "kill6.toml").attack(shots=4, **KILL6_ARGS)
    figure = figures.stage_by_stage(o)
    fig = export.as_figure(figure)
    assert [list(t.y) for t in fig.data] == [t["y"] for t in figure["data"]]
    assert [a.text for a in fig.layout.annotations] == [a["text"] for a in figure["layout"]["annotations"]]
    # each chart has its own rows of the figure, one under the other, none overlapping
    domains = [fig.layout[f"yaxis{'' if i == 0 else i + 1}"].domain for i in range(4)]
    assert all(hi > lo >= 0 for lo, hi in domains)
    assert all(below[1] < above[0] for above, below in zip(domains, domains[1:]))


# -- the dashboard's folded section -------------------------------------------------
def test_folded_the_section_costs_nothing_opened_it_draws_a_chart_per_step(monkeypatch):
    dash = SystemDashboard("kill6", profiles=False)
    section = dash.stage_charts
    assert section.widget.layout.display != "none" and not section.opened
    assert section.widget.get_title(0) == SECTION_TITLE
    dash.set_values(shots=3, **KILL6_ARGS)
    assert section.plot is None and section.box.children == ()
    assert "_all" not in vars(dash.current_outcome().stage_pmfs)  # not even computed (a cached property)
    section.widget.set_state({"selected_index": 0})  # a viewer opens it
    assert section.box.children == (section.plot,) and "wb-plot-stage" in section.plot._dom_classes
    shown = charts(section.plot.figure)
    assert [label for label, _x, _y in shown] == ["to hit", "to pierce", "to wound", "save failed"]
    for (_label, _x, y), w in zip(shown, brute_stage_pmfs(KILL6_STAGES, 3)):
        assert_same(y, w)

    # open: a move sends the plot its new numbers and titles only, as one message
    before = dict(dash.feed.frame)
    sent = sent_messages(monkeypatch)
    dash.controls["shots"].set_state({"value": 2})
    moved = received(sent, section.plot, before)
    assert len(moved) == 1 and set(moved[0]) == {"delta"}
    assert [w for w, m in sent] == [dash.feed]  # in the page's one message
    delta = moved[0]["delta"]
    assert set(delta) <= {"data", "layout"}
    for key, change in delta.get("layout", {}).items():
        assert key == "annotations" or key.startswith("xaxis"), key
        if key == "annotations":
            assert all(set(a) == {"text"} for a in change.values()), change
    for trace in delta.get("data", {}).values():
        assert set(trace) <= {"x", "y"}, trace
    for (_label, _x, y), w in zip(charts(section.plot.figure), brute_stage_pmfs(KILL6_STAGES, 2)):
        assert_same(y, w)

    # folded again: a move sends the plot nothing; opened, it shows the current result
    section.widget.set_state({"selected_index": None})
    before = dict(dash.feed.frame)
    sent.clear()
    dash.controls["shots"].set_state({"value": 1})
    assert not [m for w, m in sent if w is section.plot or w is section.box]
    assert not received(sent, section.plot, before)
    section.widget.set_state({"selected_index": 0})
    for (_label, _x, y), w in zip(charts(section.plot.figure), brute_stage_pmfs(KILL6_STAGES, 1)):
        assert_same(y, w)


def test_the_section_is_absent_where_the_outcome_counts_no_steps():
    dash = SystemDashboard("gunfire", profiles=False)
    section = dash.stage_charts
    section.widget.set_state({"selected_index": 0})
    assert section.widget.layout.display != "none" and len(section.plot.figure["data"]) == 2
    counted = dash.current_outcome()
    section.show(counted.replace(stage_pmfs=None))
    assert section.widget.layout.display == "none"
    section.show(counted)
    assert section.widget.layout.display != "none"


@pytest.mark.parametrize("key", ["changes", "forgotten", "gunfire", "antares"])
def test_every_built_in_systems_shooting_page_has_a_chart_per_stage(key):
    """The four built-ins' shooting runs on their rule files, so each page counts its steps:
    opened, the section draws one chart per stage of the outcome, in the stage's own words."""
    dash = SystemDashboard(key, profiles=False)
    section = dash.stage_charts
    assert section.widget.layout.display != "none"
    section.widget.set_state({"selected_index": 0})
    out = dash.current_outcome()
    shown = charts(section.plot.figure)
    assert len(shown) == len(out.stage_pmfs) == len(out.stages)
    assert [label for label, _x, _y in shown] == [st.name for st in out.stages]
    for (_label, _x, y), pmf in zip(shown, out.stage_pmfs.values()):
        np.testing.assert_allclose(y, np.asarray(pmf)[:len(y)], atol=1e-15)


def test_changes_melee_page_has_a_chart_per_stage_with_furious_charge():
    """Changes' melee runs on its own second rule file, so its page counts its steps too: one chart per
    stage, and Furious Charge's free attacks widen every chart to the attacks made."""
    dash = SystemDashboard("changes", mode="melee", profiles=False)
    section = dash.stage_charts
    assert section.widget.layout.display != "none"
    section.widget.set_state({"selected_index": 0})
    assert dash.set_values(attacks=4, furious_charge=True, charging_models=3)
    out = dash.current_outcome()
    assert out.function == "melee" and out.attacks == 7
    shown = charts(section.plot.figure)
    assert [label for label, _x, _y in shown] == [st.name for st in out.stages] == ["to hit", "to pierce", "to wound"]
    for (_label, _x, y), pmf in zip(shown, out.stage_pmfs.values()):
        np.testing.assert_allclose(y, np.asarray(pmf)[:len(y)], atol=1e-15)
        assert len(y) >= 1
    hit = np.asarray(out.stage_pmfs["to hit"])
    assert hit.size >= 8 and abs(hit @ np.arange(hit.size) - out.effects["hits"]) < 1e-12


@pytest.mark.parametrize("rounds", [1, 3])
def test_forgotten_close_combat_page_has_a_chart_per_stage_over_the_whole_fight(rounds):
    """The Forgotten's close combat counts the attacker's steps over every round fought: opened, the
    section draws one chart per counted step, each equal to the brute force (tests/brute_forgotten.py),
    in the stage's own words (one round) or the steps' (the rounds after repeat them)."""
    from brute_forgotten import brute_fight_passes
    dash = SystemDashboard("forgotten", mode="close_combat", profiles=False)
    section = dash.stage_charts
    assert section.widget.layout.display != "none"
    section.widget.set_state({"selected_index": 0})
    stats = dict(attacker_cqc=5, defender_cqc=6, attacker_phys=5, defender_phys=6, attacker_armour="none",
                 defender_armour="light", defender_heroic_save=7)
    assert dash.set_values(rounds=rounds, **stats)
    out = dash.current_outcome()
    assert out.function == "close_combat" and out.inputs["rounds"] == rounds
    shown = charts(section.plot.figure)
    names = ["to hit", "not blocked", "to kill", "heroic save fails"]
    assert [label for label, _x, _y in shown] == names == list(out.stage_pmfs)
    if rounds == 1:
        assert [st.name for st in out.stages] == names
    want = brute_fight_passes(rounds, **stats)
    for (_label, x, y), step in zip(shown, ("hits", "unblocked", "kills", "unsaved")):
        assert x == list(range(len(y)))
        assert_same(y, want[step])
    assert len(shown[0][2]) == rounds + 1  # one attack die a round
    assert_same(shown[-1][2], [1 - Fraction(out.effects["defender_downed"]), out.effects["defender_downed"]])


def test_a_refused_combination_greys_the_stage_charts_too():
    dash = SystemDashboard("kill6", profiles=False)
    dash.stage_charts.widget.set_state({"selected_index": 0})
    assert not dash.set_values(cover="heavy", bs=6, stationary=False)  # the file forbids it
    assert "wb-stale" in dash.stage_charts.widget._dom_classes
    assert dash.set_values(cover="none")
    assert "wb-stale" not in dash.stage_charts.widget._dom_classes


def test_a_viewer_only_opens_and_closes_the_section():
    dash = SystemDashboard("gunfire", profiles=False)
    section = dash.stage_charts.widget
    section.set_state({"selected_index": 0, "titles": ["anything"], "children": []})
    assert dash.stage_charts.opened and section.get_title(0) == SECTION_TITLE
    assert [label for label, _x, _y in charts(dash.stage_charts.plot.figure)] == ["to hit", "to penetrate"]
    section.set_state({"selected_index": 7})  # out of range: refused, the page is sent the kernel's state
    assert section.selected_index == 0


def test_a_rule_files_served_page_has_the_section():
    from workbench.rulepages import rule_dashboard
    page = rule_dashboard("kill6", "kill6.toml")
    assert isinstance(page, SystemDashboard) and page.stage_charts.widget in page.widget.children
    assert page.stage_charts.widget.layout.display != "none"
    page.stage_charts.widget.set_state({"selected_index": 0})
    assert [label for label, _x, _y in charts(page.stage_charts.plot.figure)] == \
        ["to hit", "to pierce", "to wound", "save failed"]
