"""Dashboards without a browser: controls -> one exact resolution -> figures.

Expected numbers come from binomials written here with ``fractions.Fraction``
over per-shot probabilities counted by hand from RULES.md (the changes
reference 8/12 x 5/12 x 6/12 = 5/36, the antares reference 5/10 x 6/10), or
from calling the system's stat-level function directly with the values the
test set (never from the dashboard's own numbers).
"""
from __future__ import annotations

import inspect
import json
import math
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from workbench.errors import InputError
from workbench.systems import antares, changes, forgotten, gunfire
from workbench.systems.changes_volley import ATTACKER_KEYS
from workbench.ui import CompareDashboard, SystemDashboard, compare_kwargs, concept_table, format_query, parse_query
from workbench.ui.dashboard import SAMPLED_SAMPLES, SAMPLED_SEED, plain_words
from workbench.ui.guard import plain_message
from workbench.ui.plotwidget import Plot
from workbench.controls import RESERVED
from widgetkit import received, sent_messages

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ("changes", "forgotten", "gunfire", "antares")


def binomial(n: int, p: Fraction, cap: int | None = None) -> list[float]:
    """P(k successes of n), Fractions, the tail above ``cap`` folded into it."""
    pmf = [Fraction(math.comb(n, k)) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
    if cap is not None and cap < n:
        pmf = pmf[:cap] + [sum(pmf[cap:], Fraction(0))]
    return [float(x) for x in pmf]


def bars(dash) -> np.ndarray:
    return np.asarray(dash.fig_dist.data[0].y, dtype=float)


def assert_pmf(dash, expected) -> None:
    got = bars(dash)
    expected = np.asarray(expected, dtype=float)
    width = max(got.size, expected.size)
    got = np.pad(got, (0, width - got.size))
    expected = np.pad(expected, (0, width - expected.size))
    np.testing.assert_allclose(got, expected, atol=1e-12)
    assert list(dash.fig_dist.data[0].x) == list(range(bars(dash).size))


@pytest.fixture(scope="module")
def dashboards():
    return {s: SystemDashboard(s) for s in SYSTEMS}


# -- every argument has a control ----------------------------------------------
@pytest.mark.parametrize("system", SYSTEMS)
def test_every_argument_of_every_function_has_a_control(system):
    dash = SystemDashboard(system, profiles=False)
    module = dash.module
    expected_modes = {"changes": {"shooting", "melee", "volley"}, "forgotten": {"shooting", "close_combat"},
                      "gunfire": {"shooting"}, "antares": {"shooting"}}[system]
    assert set(dash.modes) == expected_modes
    for mode in dash.modes.values():
        params = set(inspect.signature(getattr(module, mode.function)).parameters) - set(RESERVED)
        if mode.key == "volley":  # attackers: up to three units, each key written u<i>_<key>
            params = (params - {"attackers"}) | {"units"} | {
                f"u{i}_{k}" for i in (1, 2, 3) for k in ATTACKER_KEYS}
        assert {c.name for c in mode.controls} == params
        box = dash.mode_box(mode.key)
        for name in params:
            assert dash.controls[name] in box.children
            assert f"wb-control-{name}" in dash.controls[name]._dom_classes


# -- slider -> figure equals the exact result -----------------------------------
def test_changes_bs_slider_updates_distribution_stages_and_numbers(dashboards):
    dash = dashboards["changes"]
    dash.reset()
    # defaults: the RULES.md reference marine vs marine, 10 shots at 10 models: 5/36 per shot
    assert_pmf(dash, binomial(10, Fraction(8, 12) * Fraction(5, 12) * Fraction(6, 12)))
    before = dash.recomputes
    dash.controls["bs"].value = 4  # the viewer drags BS to 4+
    assert dash.recomputes == before + 1
    p = Fraction(9, 12) * Fraction(5, 12) * Fraction(6, 12)
    assert_pmf(dash, binomial(10, p))
    assert list(dash.fig_stages.data[0].text) == ["9/12", "5/12", "6/12"]
    np.testing.assert_allclose(dash.fig_stages.data[0].y, [9 / 12, 5 / 12, 6 / 12])
    curve = np.cumsum(binomial(10, p)[::-1])[::-1]
    np.testing.assert_allclose(dash.fig_at_least.data[0].y, curve, atol=1e-12)
    direct = changes.shooting(bs=4, s=5, ap=5, t=2, sv=3, shots=10, models=10)
    assert_pmf(dash, direct.pmf)
    assert f">{direct.mean:.2f}<" in dash.effects.value  # expected models removed, two decimals
    assert "Expected models removed" in dash.effects.value
    assert "wb-effect-wasted-wounds" in dash.effects.value


def test_antares_slider(dashboards):
    dash = dashboards["antares"]
    dash.reset()
    assert_pmf(dash, binomial(10, Fraction(5, 10) * Fraction(6, 10)))  # RULES.md: 3/10 per shot
    dash.controls["acc"].value = 7
    assert_pmf(dash, binomial(10, Fraction(7, 10) * Fraction(6, 10)))
    assert list(dash.fig_stages.data[0].text) == ["7/10", "6/10"]
    assert_pmf(dash, antares.shooting(acc=7, res=5, sv=1, shots=10, models=10).pmf)
    assert "wb-effect-critical-hits" in dash.effects.value


def test_gunfire_slider(dashboards):
    dash = dashboards["gunfire"]
    dash.reset()
    # d10 >= 6 + defender - attacker: BS 4 v Ev 3 -> 5+ (6/10), AP 3 v AV 3 -> 6+ (5/10); S1 >= T1
    assert_pmf(dash, binomial(10, Fraction(6, 10) * Fraction(5, 10)))
    dash.controls["bs"].value = 6  # -> 3+ (8/10)
    assert_pmf(dash, binomial(10, Fraction(8, 10) * Fraction(5, 10)))
    direct = gunfire.shooting(bs=6, ev=3, ap=3, av=3, s=1, t=1, shots=10, models=10)
    assert_pmf(dash, direct.pmf)
    assert "wb-effect-suppressed" in dash.effects.value


def test_forgotten_slider_and_close_combat(dashboards):
    dash = dashboards["forgotten"]
    dash.reset()
    dash.set_values(mode="shooting")
    # SHOOT 6, no modifiers: 6+ on a d10 (5/10); d10 - light armour 1 > ATTACK POWER 5: 7+ (4/10)
    assert_pmf(dash, binomial(5, Fraction(5, 10) * Fraction(4, 10)))
    dash.controls["shoot"].value = 4
    assert_pmf(dash, binomial(5, Fraction(7, 10) * Fraction(4, 10)))
    assert_pmf(dash, forgotten.shooting(shoot=4, attack_power=5, shots=5, models=5, armour="light").pmf)
    assert "wb-effect-shock" in dash.effects.value
    dash.set_values(mode="close_combat", response="counter")
    direct = forgotten.close_combat(attacker_cqc=6, defender_cqc=6, attacker_phys=6, defender_phys=6,
                                    attacker_armour="light", defender_armour="light", response="counter")
    assert_pmf(dash, direct.pmf)
    assert dash.current_outcome().function == "close_combat"
    assert dash.mode_boxes["shooting"].layout.display == "none"
    assert dash.mode_boxes["close_combat"].layout.display == "flex"
    assert dash.controls["attacker_cqc"] in dash.mode_boxes["close_combat"].children
    assert dash.controls["shoot"] not in dash.mode_boxes["close_combat"].children


def test_changes_melee_with_furious_charge(dashboards):
    dash = dashboards["changes"]
    dash.reset()
    before = dash.recomputes
    dash.set_values(mode="melee", furious_charge=True, charging_models=5, attacks=5)
    assert dash.recomputes == before + 1  # several controls, one recompute
    direct = changes.melee(ws=5, s=5, ap=5, attacks=5, d=2, t=2, sv=3, models=10, furious_charge=True,
                           charging_models=5)
    assert_pmf(dash, direct.pmf)
    # brute force: 10 attacks (5 + 5 free), WS 5+ against D +2 = 7+ (6/12), 5/12, 6/12
    assert_pmf(dash, binomial(10, Fraction(6, 12) * Fraction(5, 12) * Fraction(6, 12)))
    dash.set_values(mode="shooting")


def convolve(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def test_changes_volley_two_units_resolved_together(dashboards):
    dash = dashboards["changes"]
    dash.reset()
    dash.set_values(mode="volley", units=2, u1_shots=4, u2_shots=3, models=5)
    # unit 1: BS 5+ (8/12), AP 5+ vs Sv +3 = 8+ (5/12), S 5+ vs T +2 = 7+ (6/12)
    # unit 2: heavy, aimed: BS 5+ (8/12), AP 4+ vs +3 = 7+ (6/12), S 4+ vs +2 = 6+ (7/12)
    p1 = Fraction(8, 12) * Fraction(5, 12) * Fraction(6, 12)
    p2 = Fraction(8, 12) * Fraction(6, 12) * Fraction(7, 12)
    b = lambda n, p: [Fraction(math.comb(n, k)) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
    wounds = convolve(b(4, p1), b(3, p2))  # 0..7 wounds
    removed = wounds[:5] + [sum(wounds[5:], Fraction(0))]
    assert_pmf(dash, [float(x) for x in removed])
    wasted = sum((k - 5) * w for k, w in enumerate(wounds) if k > 5)
    assert abs(dash.current_outcome().effects["wasted_wounds"] - float(wasted)) < 1e-12
    direct = changes.volley([dict(bs=5, s=5, ap=5, shots=4, weapon="light", action="aimed"),
                             dict(bs=5, s=4, ap=4, shots=3, weapon="heavy", action="aimed")],
                            t=2, sv=3, models=5)
    assert_pmf(dash, direct.pmf)
    assert "mode=volley" in dash.query_string() and "u2_weapon=heavy" in dash.query_string()
    dash.set_values(units=1)
    assert_pmf(dash, binomial(4, p1))
    dash.reset()


def test_every_control_moves_to_a_direct_call(dashboards):
    """For each control of each mode: move it one notch; the plot equals the
    function called directly with the dashboard's arguments (or the error is
    the one the function raises)."""
    for system, dash in dashboards.items():
        for mode in dash.modes.values():
            dash.reset()
            dash.set_values(mode=mode.key)
            for c in mode.controls:
                w = dash.controls[c.name]
                old = w.value
                if c.kind in ("int", "optint", "float"):
                    new = old + c.step if old + c.step <= w.max else old - c.step
                elif c.kind == "bool":
                    new = not old
                else:
                    new = [v for _, v in w.options if v != old][0]
                w.value = new
                kwargs = dash.values()
                try:
                    expected = mode.run(dash.module, kwargs)
                except InputError as exc:
                    assert _html(plain_words(plain_message(exc), dash.specs)) in dash.error.value
                else:
                    assert dash.error.value == "", (system, c.name, dash.error.value)
                    assert_pmf(dash, expected.pmf)
                w.value = old


def _html(text: str) -> str:
    import html
    return html.escape(text)


def _text(value: str) -> str:
    """What a reader sees of an HTML value: tags dropped, entities read."""
    import html
    import re
    return html.unescape(re.sub(r"<[^>]+>", "", value)).strip()


# -- a forbidden combination ----------------------------------------------------
def test_forbidden_combination_shows_message_and_keeps_the_plot(dashboards):
    dash = dashboards["changes"]
    dash.reset()
    assert dash.controls["action"].value == "aimed"
    kept = bars(dash).copy()
    kept_stages = list(dash.fig_stages.data[0].text)
    kept_outcome = dash.current_outcome()
    dash.controls["evading"].value = True  # aimed shot at an EVADING target: forbidden
    assert "EVADING" in dash.error.value and "wb-error-message" in dash.error.value
    assert "action" in dash.error.value
    np.testing.assert_array_equal(bars(dash), kept)
    assert list(dash.fig_stages.data[0].text) == kept_stages
    assert dash.current_outcome() is kept_outcome
    # in a playtester's words, and every result greyed as the last allowed settings' own
    shown = _text(dash.error.value)
    assert '"target EVADING" ticked' in shown and "=" not in shown and "True" not in shown, shown
    assert "last settings that were allowed" in shown
    assert all("wb-stale" in w._dom_classes for w in dash.results)
    assert "evading=true" not in dash.link.query and "evading=false" in dash.link.query
    dash.controls["action"].value = "snap"  # a valid change: the dashboard keeps working
    assert dash.error.value == ""
    assert not any("wb-stale" in w._dom_classes for w in dash.results)
    assert "evading=true" in dash.link.query and "action=snap" in dash.link.query
    assert_pmf(dash, changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=10, models=10, evading=True,
                                      action="snap").pmf)
    dash.reset()


def test_set_values_rejects_bad_names_and_values_before_changing_anything():
    dash = SystemDashboard("gunfire", profiles=False)
    with pytest.raises(InputError, match=r"argument: expected one of bs, ev.*got 'bogus'"):
        dash.set_values(bogus=1)
    with pytest.raises(InputError, match=r"bs: expected a whole number from 0 to 12, got 99"):
        dash.set_values(ev=5, bs=99)
    assert dash.controls["ev"].value == 3


# -- sampled overlay -------------------------------------------------------------
def test_sampled_overlay_matches_a_direct_sampled_call_and_the_exact_result():
    dash = SystemDashboard("antares", profiles=False)
    assert dash.fig_dist.data[1].visible is False
    dash.sampled_toggle.value = True
    dots = dash.fig_dist.data[1]
    assert dots.visible is True
    direct = antares.shooting(acc=5, res=5, sv=1, shots=10, models=10, method="sampled",
                              samples=SAMPLED_SAMPLES, seed=SAMPLED_SEED)
    np.testing.assert_allclose(dots.y, direct.pmf)
    np.testing.assert_allclose(dots.error_y.array, 2 * np.asarray(direct.pmf_stderr))
    exact = np.asarray(binomial(10, Fraction(3, 10)))
    se = np.sqrt(exact * (1 - exact) / SAMPLED_SAMPLES)
    assert np.all(np.abs(np.asarray(dots.y) - exact) <= 5 * se + 1e-12)  # within 5 standard errors
    assert "wb-sampled-mean" in dash.effects.value
    dash.sampled_toggle.value = False
    assert dash.fig_dist.data[1].visible is False


# -- the query string ------------------------------------------------------------
def test_parse_query_reads_stat_level_names():
    got = parse_query("changes", "?bs=4&ap=6&shots=10&action=snap&models=none&evading=true&mode=shooting")
    assert got == {"bs": 4, "ap": 6, "shots": 10, "action": "snap", "models": None, "evading": True,
                   "mode": "shooting"}
    assert parse_query("gunfire", "suppression_fraction=0.5&die=12&explosive=2") == {
        "suppression_fraction": 0.5, "die": 12, "explosive": 2}
    assert parse_query("forgotten", "aimed=hit&cover=0&mode=close_combat") == {
        "aimed": "hit", "cover": False, "mode": "close_combat"}
    assert parse_query("antares", "") == {}


@pytest.mark.parametrize("qs, message", [
    ("bs=99", r"bs: expected a whole number from 1 to 13, got 99"),
    ("bs=4.5", r"bs: expected a whole number from 1 to 13, got 4.5"),
    ("bs=nan", r"bs: expected a whole number from 1 to 13, got 'nan'"),
    ("action=charge", r"action: expected one of snap, shot, aimed, got 'charge'"),
    ("evading=maybe", r"evading: expected true or false, got 'maybe'"),
    ("models=-3", r"models: expected a whole number from 1 to 40 or 'none', got -3"),
    ("bogus=1", r"bogus: expected the name of a control on this page, got 'bogus=1'"),
    ("mode=volley2", r"mode: expected one of shooting, melee, volley, got 'volley2'"),
    # numbers that float() reads but no slider can hold: refused by name, never overflowed
    ("bs=inf", r"bs: expected a whole number from 1 to 13, got 'inf'"),
    ("bs=-inf", r"bs: expected a whole number from 1 to 13, got '-inf'"),
    ("bs=1e400", r"bs: expected a whole number from 1 to 13, got '1e400'"),
    ("bs=" + "7" * 5000, r"bs: expected a whole number from 1 to 13, got '777777777777…7777 \(5,000 characters\)'"),
    ("bs=0x10", r"bs: expected a whole number from 1 to 13, got '0x10'"),
    ("bs=1_0", r"bs: expected a whole number from 1 to 13, got '1_0'"),
    ("bs=\uff14", r"bs: expected a whole number from 1 to 13, got '\uff14'"),
    ("models=" + "1" * 40, r"models: expected a whole number from 1 to 40 or 'none', got '111111111111…1111"),
    ("suppression_fraction=nan", None),
])
def test_parse_query_bad_values(qs, message):
    if message is None:  # a gunfire key on the changes dashboard
        message = r"suppression_fraction: expected the name of a control on this page, got 'suppression_fraction=nan'"
    with pytest.raises(InputError, match=message):
        parse_query("changes", qs)
    errors: list[str] = []
    assert parse_query("changes", qs + "&shots=7", errors) == {"shots": 7}
    assert len(errors) == 1


def test_parse_query_repeated_key_takes_the_first_value_and_says_so():
    errors: list[str] = []
    assert parse_query("changes", "?bs=4&bs=5&shots=3", errors) == {"bs": 4, "shots": 3}
    assert errors == ["bs: expected one value, got '4, 5' (the link gives bs 2 times; using the first, 4)"]
    with pytest.raises(InputError, match="bs 2 times"):
        parse_query("changes", "bs=4&bs=5")
    # a bad first value is refused by name; the repeat is not read instead
    errors = []
    assert parse_query("changes", "bs=inf&bs=5", errors) == {}
    assert errors == ["bs: expected a whole number from 1 to 13, got 'inf'"]


def test_parse_query_skips_the_server_token_and_empty_pairs():
    errors: list[str] = []
    assert parse_query("antares", "?token=abc123&acc=7&&=", errors) == {"acc": 7}
    assert errors == []


@pytest.mark.parametrize("system, qs", [
    ("changes", "bs=inf&shots=3"), ("changes", "bs=-inf&shots=3"), ("changes", "bs=nan&shots=3"),
    ("changes", "bs=1e400&shots=3"), ("changes", "bs=" + "9" * 5000 + "&shots=3"),
    ("changes", "bs=junk&shots=3"), ("changes", "bs=4&bs=5&shots=3"), ("changes", "nope=1&shots=3"),
    ("gunfire", "suppression_fraction=inf&shots=3"), ("gunfire", "suppression_fraction=1e-400&shots=3"),
    ("forgotten", "models=1e400&shots=3"), ("compare", "accuracy=inf&shots=3"),
    ("compare", "models=" + "9" * 5000 + "&shots=3"),
])
def test_every_bad_link_keeps_a_working_dashboard_with_a_message(system, qs):
    """Each bad value is named in the message, the good ones are applied, and a
    later change still recomputes."""
    dash = CompareDashboard(query=qs) if system == "compare" else SystemDashboard(system, profiles=False, query=qs)
    message = _text(dash.error.value)
    assert message.startswith("\u26a0 Link: "), message
    bad_key = qs.split("=", 1)[0]
    assert bad_key in message
    if "9" * 5000 not in qs:
        shown = qs.split("=", 1)[1].split("&", 1)[0]
        assert shown in message, (shown, message)
    assert dash.controls["shots"].value == 3
    before = dash.recomputes
    dash.controls["shots"].value = 4
    assert dash.recomputes == before + 1 and dash.values()["shots"] == 4


def test_link_round_trips_through_a_new_dashboard():
    a = SystemDashboard("forgotten", profiles=False)
    a.set_values(shoot=4, moved="stationary", aimed="damage", shots=1, models=None, cover=True)
    qs = a.query_string()
    assert qs.startswith("?mode=shooting&shoot=4&")
    assert "aimed=damage" in qs and "models=none" in qs and "cover=true" in qs
    assert a.link.query == qs
    b = SystemDashboard("forgotten", profiles=False, query=qs)
    assert b.values() == a.values()
    np.testing.assert_allclose(bars(b), bars(a))
    assert b.error.value == ""


def test_query_on_construction_and_fallbacks():
    dash = SystemDashboard("changes", profiles=False, query="?bs=4&ap=6&shots=12&action=snap")
    assert (dash.controls["bs"].value, dash.controls["ap"].value, dash.controls["shots"].value) == (4, 6, 12)
    assert dash.controls["action"].value == "snap"
    assert_pmf(dash, changes.shooting(bs=4, s=5, ap=6, t=2, sv=3, shots=12, models=10, action="snap").pmf)
    # an invalid value: message shown, that value falls back to its default, the rest is applied
    bad = SystemDashboard("changes", profiles=False, query="?bs=99&shots=3")
    assert "bs: expected a whole number from 1 to 13, got 99" in bad.error.value
    assert bad.controls["bs"].value == 5 and bad.controls["shots"].value == 3
    assert_pmf(bad, binomial(3, Fraction(5, 36)))
    # values that are each fine but forbidden together: the rule's message, and every value kept
    # (as moving the controls there would: the last valid plot, here the defaults', stays)
    forbidden = SystemDashboard("changes", profiles=False, query="?evading=true&action=aimed&bs=3")
    assert "EVADING" in forbidden.error.value and "not allowed together" in forbidden.error.value
    assert (forbidden.values()["evading"], forbidden.values()["action"], forbidden.values()["bs"]) == (
        True, "aimed", 3)
    assert forbidden.query_string() == format_query(
        {**forbidden.defaults(), "evading": True, "action": "aimed", "bs": 3}, forbidden.specs, "shooting")
    assert_pmf(forbidden, binomial(10, Fraction(5, 36)))
    forbidden.set_values(action="snap")  # the viewer fixes it: the message goes, the plot follows
    assert forbidden.error.value == ""
    assert_pmf(forbidden, changes.shooting(bs=3, s=5, ap=5, t=2, sv=3, shots=10, models=10, action="snap",
                                           evading=True).pmf)


def test_show_reads_query_string_from_the_environment(monkeypatch):
    monkeypatch.setenv("QUERY_STRING", "acc=8&shots=4")
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    dash = SystemDashboard("antares", profiles=False)
    dash.show()
    assert dash.controls["acc"].value == 8 and dash.controls["shots"].value == 4
    assert_pmf(dash, binomial(4, Fraction(8, 10) * Fraction(6, 10)))


def test_format_query_encodes():
    from workbench.controls import Control
    ctl = {"a": Control("a", "choice", "x y", options=("x y", "z"), help="a word"),
           "b": Control("b", "optint", None, 1, 5, help="a number or none")}
    assert format_query({"a": "x y", "b": None}, ctl) == "?a=x+y&b=none"


# -- profile picker ---------------------------------------------------------------
def _toml(system: str, name: str) -> dict:
    return tomllib.loads((ROOT / "profiles" / system / f"{name}.toml").read_text())


def test_profile_picker_sets_the_sliders_from_the_files():
    dash = SystemDashboard("gunfire")
    knights, guard = _toml("gunfire", "knights"), _toml("gunfire", "laansguard")
    before = dash.recomputes
    assert dash.profile_picker.attacker.label == "custom values"  # the sliders hold no unit yet
    dash.profile_picker.select("knights", "Knight Gun", "laansguard")
    assert dash.recomputes == before + 1
    gun = knights["weapons"][0]
    want = dict(bs=knights["unit"]["bs"], ev=guard["unit"]["ev"], ap=gun["ap"], av=guard["unit"]["av"],
                s=gun["s"], t=guard["unit"]["t"], shots=gun["shots"], models=guard["unit"]["models"])
    assert {k: dash.values()[k] for k in want} == want
    assert_pmf(dash, gunfire.shooting(**want).pmf)
    assert "Loaded Knights" in dash.profile_picker.message.value


def test_profile_picker_changes_heavy_weapon_and_melee():
    dash = SystemDashboard("changes")
    marine = _toml("changes", "space_marine")
    heavy = next(w for w in marine["weapons"] if w["name"] == "Heavy Bolter")
    dash.profile_picker.select("space_marine", "Heavy Bolter", "space_marine")
    u = marine["unit"]
    assert dash.values()["weapon"] == "heavy"
    assert (dash.values()["s"], dash.values()["ap"], dash.values()["shots"]) == (heavy["s"], heavy["ap"], heavy["shots"])
    assert (dash.values()["bs"], dash.values()["t"], dash.values()["sv"], dash.values()["models"]) == (
        u["bs"], u["t"], u["sv"], u["models"])
    knife = next(w for w in marine["weapons"] if w["name"] == "Combat Knife")
    dash.profile_picker.select("space_marine", "Combat Knife", "space_marine")
    assert dash.mode.key == "melee"
    assert (dash.values()["ws"], dash.values()["s"], dash.values()["ap"], dash.values()["d"]) == (
        u["ws"], knife["s"], knife["ap"], u["d"])
    assert_pmf(dash, changes.melee(ws=u["ws"], s=knife["s"], ap=knife["ap"], attacks=u["a"] * knife["shots"],
                                   d=u["d"], inv=u["inv"], t=u["t"], sv=u["sv"], wounds=u["w"],
                                   models=u["models"]).pmf)


def test_profile_picker_loads_on_choice_and_says_custom_once_a_slider_moves():
    dash = SystemDashboard("antares")
    picker = dash.profile_picker
    rever = _toml("antares", "rever")
    # a viewer picks a shooter, then a target: the trio loads as soon as it is complete
    picker.attacker.value = "rever"
    assert picker.weapon.value and picker.target.value == ""
    before = dash.recomputes
    picker.target.value = "rever"
    assert dash.recomputes == before + 1
    assert dash.values()["acc"] == rever["unit"]["acc"] and picker.holds_loaded()
    # the sliders move away from the units: the pickers say so instead of naming them
    dash.controls["acc"].value = dash.controls["acc"].value % 10 + 1
    assert (picker.attacker.label, picker.weapon.label, picker.target.label) == ("custom values",) * 3
    assert "custom" in picker.message.value and not picker.holds_loaded()
    assert dash.error.value == ""


# -- compare ------------------------------------------------------------------------
def test_compare_concepts_move_each_systems_own_stat():
    dash = CompareDashboard()
    marine, trooper = _toml("changes", "space_marine"), _toml("forgotten", "trooper")
    guard, rever = _toml("gunfire", "laansguard"), _toml("antares", "rever")
    dash.set_values(accuracy=1, penetration=1, shots=6, models=4)
    kw = {s: dash.kwargs(s) for s in dash.system_keys}
    assert kw["changes"]["bs"] == marine["unit"]["bs"] - 1
    assert kw["changes"]["ap"] == marine["weapons"][0]["ap"] - 1
    assert kw["forgotten"]["shoot"] == trooper["unit"]["shoot"] - 1
    assert kw["forgotten"]["attack_power"] == trooper["weapons"][0]["attack_power"] - 1
    assert kw["gunfire"]["bs"] == guard["unit"]["bs"] + 1 and kw["gunfire"]["ap"] == guard["weapons"][0]["ap"] + 1
    assert kw["antares"]["acc"] == rever["unit"]["acc"] + 1 and kw["antares"]["sv"] == rever["weapons"][0]["sv"] + 1
    assert all(k["shots"] == 6 and k["models"] == 4 for k in kw.values())
    # changes: BS 4+ (9/12), AP 4+ vs Sv +3 = 7+ (6/12), S5+ vs T+2 = 7+ (6/12); 6 shots at 4 models
    np.testing.assert_allclose(dash.fig_dist.data[0].y,
                               binomial(6, Fraction(9, 12) * Fraction(6, 12) * Fraction(6, 12), cap=4), atol=1e-12)
    # antares: Acc 6 (6/10), Res 5 - SV 2 = 3: fails 7/10
    np.testing.assert_allclose(dash.fig_dist.data[3].y, binomial(6, Fraction(6, 10) * Fraction(7, 10), cap=4),
                               atol=1e-12)
    for trace, s in zip(dash.fig_dist.data, dash.system_keys):
        np.testing.assert_allclose(trace.y, getattr(__import__("workbench.systems", fromlist=[s]), s)
                                   .shooting(**kw[s]).pmf, atol=1e-12)
    means = [dash.current_outcomes()[s].mean for s in dash.system_keys]
    np.testing.assert_allclose(dash.fig_means.data[0].y, means)
    assert "BS 4+" in dash.table.value and "SHOOT 5" in dash.table.value and "Acc 6" in dash.table.value
    assert dash.query_string() == "?accuracy=1&penetration=1&toughness=0&cover=0&shots=6&models=4"


def test_compare_step_out_of_range_keeps_that_system_and_updates_the_others():
    dash = CompareDashboard()
    dash.set_values(toughness=1)  # forgotten armour light -> heavy
    assert dash.kwargs("forgotten")["armour"] == "heavy"
    kept = np.asarray(dash.fig_dist.data[1].y).copy()
    dash.set_values(toughness=2)  # past heavy: forgotten cannot follow
    assert "The Forgotten" in dash.error.value and "toughness" in dash.error.value
    np.testing.assert_array_equal(dash.fig_dist.data[1].y, kept)
    assert dash.current_outcomes()["changes"].inputs["t"] == _toml("changes", "space_marine")["unit"]["t"] + 2
    dash.set_values(toughness=0, cover=2)
    assert dash.error.value == ""
    assert dash.kwargs("forgotten")["cover"] is True and dash.kwargs("forgotten")["cover_level"] == "hard"
    assert dash.kwargs("gunfire")["hit_mod"] == 2


def test_compare_query_and_concept_table():
    dash = CompareDashboard(query="?accuracy=-1&shots=3&models=99")
    assert dash.controls["accuracy"].value == -1 and dash.controls["shots"].value == 3
    assert "models: expected a whole number from 1 to 20, got 99" in dash.error.value
    concepts = concept_table(SYSTEMS)
    assert set(concepts) == {"accuracy", "penetration", "toughness", "cover"}
    assert all(set(v) == set(SYSTEMS) for v in concepts.values())
    with pytest.raises(InputError, match=r"cover: expected a step from 0 to 2 for forgotten, got -1"):
        compare_kwargs("forgotten", {"shoot": 6, "attack_power": 5}, cover=-1)


# -- figures and labels --------------------------------------------------------------
def test_figures_are_updated_in_place():
    """A move keeps the plot, its first figure (``base``) and the traces: the
    new numbers travel in ``delta`` only."""
    dash = SystemDashboard("gunfire", profiles=False)
    fig, base = dash.fig_dist, dash.fig_dist.base
    dash.controls["shots"].value = 4
    assert dash.fig_dist is fig and dash.fig_dist.base is base
    assert isinstance(fig, Plot)
    np.testing.assert_allclose(fig.data[0].y, bars(dash))
    assert set(fig.delta) <= {"data", "layout"} and set(fig.delta["data"]) == {"0"}


def test_replace_figure_restyles_in_place_and_never_sends_an_empty_plot(monkeypatch):
    """A redraw with the same traces sends only what differs (the browser
    restyles the plot it has: it never draws an empty plot in between); what
    the new figure lacks is cleared; other traces replace the figure."""
    from workbench.ui.plotwidget import Plot
    fw = Plot(go.Figure(go.Heatmap(z=[[1, 2], [3, 4]], text=[["a", "b"], ["c", "d"]])), bundle="cartesian")
    sent = sent_messages(monkeypatch)
    fw.show(go.Figure(go.Heatmap(z=[[5, 6], [7, 8]]), layout={"title": "B"}))
    states = [m["state"] for w, m in sent if w is fw]
    assert states and all(set(st) == {"delta"} for st in states)
    assert [list(r) for r in fw.data[0].z] == [[5, 6], [7, 8]]
    assert fw.data[0].text is None  # what the new figure lacks is cleared
    assert fw.figure["layout"]["title"]["text"] == "B"
    assert fw.library.bundle == "cartesian"
    # other traces (count or type): replaced
    fw.show(go.Figure([go.Bar(y=[1]), go.Bar(y=[2], name="two")]))
    assert [t.type for t in fw.data] == ["bar", "bar"] and fw.data[1].name == "two"
    assert fw.delta == {} and "base" in sent[-1][1]["state"]


def test_a_plain_figure_is_drawn_as_the_checked_one():
    """``show(figure, plain=True)`` (a figures dict, not checked again) draws and sends what the checked
    figure does, and plotly JSON with a NaN or numpy numbers is still made plain when not said plain."""
    from workbench import figures
    from workbench.ui.plotwidget import Plot
    dash = SystemDashboard("changes", profiles=False)
    first, later = dash.current_outcome(), None
    dash.set_values(bs=2)
    later = dash.current_outcome()
    checked, trusted = Plot(figures.distribution(first)), Plot(None)
    trusted.show(figures.distribution(first), plain=True)
    checked.show(figures.distribution(later))
    trusted.show(figures.distribution(later), plain=True)
    assert trusted.base == checked.base and trusted.delta == checked.delta and trusted.delta
    np.testing.assert_allclose(trusted.data[0].y, later.pmf, atol=1e-15)
    raw = Plot({"data": [{"type": "bar", "y": np.array([0.5, np.nan])}], "layout": {}})
    assert raw.figure["data"][0]["y"] == [0.5, None]


def test_a_move_sends_the_page_only_the_new_numbers(monkeypatch):
    """Moving a slider from the page: the control is not echoed back, the
    page gets one message (its feed: each widget's message costs the kernel
    as much as the numbers), in which each plot gets only its changed numbers
    and titles (never its styles, its JavaScript or plotly.js), and the
    numbers are the exact chances: gunfire BS 4 against Ev 3 on a d10 hits
    on 5+ (6/10), AP 3 against AV 3 gets through on 6+ (5/10): 3 shots at 3
    models are a binomial(3, 3/10)."""
    from workbench.ui.plotwidget import PlotlyLibrary
    dash = SystemDashboard("gunfire", profiles=False)
    dash.set_values(die=10, bs=4, ev=3, ap=3, av=3, shots=2, models=3)
    before = dict(dash.feed.frame)
    sent = sent_messages(monkeypatch)
    dash.controls["shots"].set_state({"value": 3})  # what the page sends when the slider is let go
    assert not [m for w, m in sent if w is dash.controls["shots"]]  # no echo of the viewer's own value
    assert [w for w, m in sent] == [dash.feed] and set(sent[0][1]["state"]) == {"frame"}
    plots = [dash.fig_dist, dash.fig_at_least, dash.fig_stages]
    got = {p: received(sent, p, before) for p in plots}
    for w, _ in sent:
        assert not isinstance(w, PlotlyLibrary)
    for states in got.values():
        for st in states:
            assert set(st) == {"delta"}
            changed = set(st["delta"].get("layout", {}))
            assert changed <= {"title"}, changed
            for trace in st["delta"].get("data", {}).values():
                assert set(trace) <= {"x", "y", "text", "customdata"}, trace
    assert {p for p in plots if got[p]} == {dash.fig_dist, dash.fig_at_least}  # the stages did not change
    assert [len(got[p]) for p in plots[:2]] == [1, 1]
    assert received(sent, dash.headline, before) and received(sent, dash.link, before)
    np.testing.assert_allclose(dash.fig_dist.data[0].y, binomial(3, Fraction(6, 10) * Fraction(5, 10)), atol=1e-12)
    size = sum(len(json.dumps(st)) for states in got.values() for st in states)
    assert size < 1500, size  # the numbers of a few bars and two titles, not a figure


def test_a_fed_widget_shows_its_entry_and_an_unfed_one_syncs_its_own_trait():
    """A dashboard's plots, headline, Numbers table and link send nothing of
    their own: the feed's frame holds each one's current value under its key
    (what the page draws), and a redraw that changes nothing sends nothing. A
    plot without a feed still syncs its own ``delta``."""
    from workbench.ui.plotwidget import Plot
    dash = SystemDashboard("changes", profiles=False)
    dash.set_values(bs=3)
    for w, trait in ((dash.fig_dist, "delta"), (dash.headline, "value"), (dash.effects, "value"),
                     (dash.link, "query")):
        assert trait not in w.keys and "feed" in w.keys and "key" in w.keys
        assert dash.feed.frame[w.key] == getattr(w, trait)
    assert len({w.key for w in (dash.fig_dist, dash.fig_at_least, dash.fig_stages, dash.headline, dash.link)}) == 5
    assert "bs=3" in dash.feed.frame[dash.link.key]
    assert "On average <b>" in dash.feed.frame[dash.headline.key]
    frame = dash.feed.frame
    dash.refresh()
    assert dash.feed.frame is frame  # nothing changed: no new frame, no message
    alone = Plot({"data": [{"type": "bar", "y": [1]}], "layout": {}})
    assert alone.feed is None and "delta" in alone.keys


def test_the_plots_and_the_exported_figure_are_one_description():
    """The distribution plot's bars and the at-least plot's line are the very
    traces of the figure a forum post exports (PNG, SVG and HTML)."""
    from workbench import export
    dash = SystemDashboard("changes", profiles=False)
    dash.set_values(bs=4, shots=6)
    exported = export.outcome_figure(dash.current_outcome())
    assert isinstance(exported, go.Figure)
    assert exported.data[0] == dash.fig_dist.data[0]
    assert exported.data[1] == dash.fig_at_least.data[0]
    assert exported.layout.yaxis.tickformat == dash.fig_dist.figure["layout"]["yaxis"]["tickformat"] == ".0%"


def test_stage_bars_count_faces_of_the_die_rolled():
    """Gunfire on a d6: BS 4 against Ev 3 needs 6 + 3 - 4 = 5+ (faces 5, 6), AP 3 against
    AV 3 needs 6+ (face 6): the bars read "2/6" and "1/6", not tenths of the system's d10."""
    dash = SystemDashboard("gunfire", profiles=False)
    dash.set_values(die=6, bs=4, ev=3, ap=3, av=3)
    assert list(dash.fig_stages.data[0].text) == ["2/6", "1/6"]
    dash.set_values(die=10)  # on a d10: 5+ is faces 5..10, 6+ is faces 6..10
    assert list(dash.fig_stages.data[0].text) == ["6/10", "5/10"]


def test_panels_area_takes_other_widgets():
    import ipywidgets as W
    dash = SystemDashboard("antares", profiles=False)
    extra = W.HTML("hello")
    dash.panels.children = (*dash.panels.children, extra)
    assert extra in dash.widget.children[-1].children
    assert dash.panels is dash.widget.children[-1]


def test_a_none_choice_shows_as_none_and_round_trips():
    """forgotten's aimed=None (no aimed fire) must show a selected 'none', not
    an empty dropdown (ipywidgets reads a None value as nothing selected)."""
    dash = SystemDashboard("forgotten", profiles=False)
    assert dash.controls["aimed"].label == "none" and dash.values()["aimed"] is None
    dash.set_values(aimed="hit", shots=1)
    assert dash.controls["aimed"].label == "+1 to hit" and dash.values()["aimed"] == "hit"
    assert dash.current_outcome().stages[0].probability > forgotten_hit(dash, aimed=None)
    dash.set_values(aimed=None)
    assert dash.controls["aimed"].label == "none" and dash.values()["aimed"] is None


def forgotten_hit(dash, **change):
    from workbench.systems import forgotten
    return forgotten.shooting(**{**dash.values(), **change}).stages[0].probability


# -- what a viewer can send over the websocket --------------------------------------
def _from_page(widget, **state) -> None:
    """A state update as the page's websocket delivers it to the kernel."""
    widget._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}})


def test_a_viewer_cannot_widen_a_slider_or_push_a_value_past_its_range():
    dash = SystemDashboard("changes", profiles=False)
    shots = dash.controls["shots"]
    _from_page(shots, max=5000, value=5000)
    assert (shots.min, shots.max, shots.value) == (1, 40, 40)
    assert dash.values()["shots"] == 40 and dash.error.value == ""
    assert_pmf(dash, changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=40, models=10).pmf)
    # a widget widened on the kernel side too: the declared range wins, the widget is put back
    with dash.hold():
        shots.max = 5000
        shots.value = 4000
    assert (shots.max, shots.value, dash.values()["shots"]) == (40, 40, 40)
    _from_page(shots, value=-7)
    assert shots.value == 1 and dash.values()["shots"] == 1
    # a choice: an index out of range or new options are refused, the value stays
    action = dash.controls["action"]
    _from_page(action, index=99)
    _from_page(action, _options_labels=["snap", "hack"], index=1)
    assert action.value == "shot" and dash.values()["action"] == "shot"  # index 1 of the declared options
    assert list(action.options) == [("snap", "snap"), ("shot", "shot"), ("aimed", "aimed")]
    # a bool and a float slider get junk: back to a value they can hold
    _from_page(dash.controls["evading"], value="yes please")
    assert dash.values()["evading"] is False
    gun = SystemDashboard("gunfire", profiles=False)
    frac = gun.controls["suppression_fraction"]
    with gun.hold():
        frac.value = float("nan")
    assert gun.values()["suppression_fraction"] == 0.25 and 0.05 <= frac.value <= 1.0
    _from_page(gun.controls["die"], index=-1)
    assert gun.values()["die"] == 10 and gun.error.value == ""


def test_the_mode_switch_and_the_link_take_nothing_else_from_the_page():
    dash = SystemDashboard("changes", profiles=False)
    _from_page(dash.mode_picker, _options_labels=["Shooting", "Anything"], index=5)
    assert dash.mode.key == "shooting" and dash.error.value == ""
    qs = dash.link.query
    _from_page(dash.link, query="?bs=1")
    assert dash.link.query == qs


def test_an_unexpected_failure_shows_a_plain_sentence_and_no_path(monkeypatch, capfd):
    from workbench.ui import guard
    dash = SystemDashboard("antares", profiles=False)
    bars_before = bars(dash).copy()

    def broken(*args, **kwargs):
        raise RuntimeError("boom in /srv/secret/workbench/systems/antares.py line 12")

    monkeypatch.setattr(dash.module, "shooting", broken)
    dash.controls["acc"].value = 7  # must not raise
    text = _text(dash.error.value)
    assert guard.SOMETHING_WENT_WRONG in text
    assert "/srv/secret" not in dash.error.value and "Traceback" not in dash.error.value
    np.testing.assert_array_equal(bars(dash), bars_before)  # the last valid plot stays
    assert "/srv/secret" in capfd.readouterr().err  # the details: in the server's log only
    # a bad input keeps its own message
    assert guard.plain_message(InputError("acc", "a whole number from 0 to 10", 99)) == \
        "acc: expected a whole number from 0 to 10, got 99"


# -- the diagnostics page's link -----------------------------------------------------
def test_diagnostics_link_sets_its_controls_and_follows_them():
    from workbench import compare
    from workbench.ui.diagnostics import DiagnosticsDashboard
    d = DiagnosticsDashboard("changes", query="?tab=equivalence&eq_system=antares&eq_acc=7&eq_shots=4"
                                              "&sweep_system=gunfire&sweep_x=ap&sweep_y=t&sweep_shots=12")
    assert d.message.value == ""
    assert d.tabs.selected_index == 3
    assert (d.eq_system.value, d.eq_shots.value, d.matchup()["acc"], d.matchup()["shots"]) == ("antares", 4, 7, 4)
    assert (d.sw_system.value, d.sw_x.value, d.sw_y.value, d.sw_shots.value) == ("gunfire", "ap", "t", 12)
    # the drawn sweep is the one of the link's settings
    from workbench import systems
    gunfire = systems.get("gunfire")
    grid = {**gunfire.seed_matchup, "shots": 12, "ap": list(gunfire.stat("ap").values),
            "t": list(gunfire.stat("t").values)}
    df = compare.sweep("gunfire", "shooting", progress=False, **grid)
    np.testing.assert_allclose(np.array(d.sw_heat.data[0].z, dtype=float),
                               df.pivot(index="t", columns="ap", values="mean").to_numpy(), atol=1e-12)
    # its own link reopens the same page; a moved control is in the link
    qs = d.link.query
    assert "eq_acc=7" in qs and "tab=equivalence" in qs and "sweep_x=ap" in qs
    d.eq_models.value = 9
    assert "eq_models=9" in d.link.query
    again = DiagnosticsDashboard(query=d.link.query)
    assert again.values() == d.values()


def test_diagnostics_name_systems_and_stats_as_their_dashboards_do():
    """Menus list "40k Changes", not "changes"; a stat reads as its dashboard
    label ("BS (roll needed)"), on the menus, the axes, the lines and the sliders."""
    from workbench import systems
    from workbench.ui.diagnostics import DiagnosticsDashboard
    d = DiagnosticsDashboard("changes", query="?sweep_x=bs&sweep_y=t&eq_system=gunfire")
    assert ("40k Changes", "changes") in d.sw_system.options and ("Gunfire", "gunfire") in d.p1_system.options
    assert all(label != key for label, key in d.eq_system.options)
    assert ("BS (roll needed)", "bs") in d.sw_x.options and ("T (added to S)", "t") in d.sw_y.options
    heat, lines = d.sw_heat.plotly().layout, d.sw_lines.plotly().layout
    assert (heat.xaxis.title.text, heat.yaxis.title.text) == ("BS (roll needed)", "T (added to S)")
    assert lines.xaxis.title.text == "BS (roll needed)" and lines.legend.title.text == "T (added to S)"
    assert all(tr.name.startswith("T (added to S)=") for tr in d.sw_lines.data)
    assert "bs" not in heat.title.text.split() and "t" not in heat.title.text.split()
    assert [s.description for s in d.eq_sliders.children] == [
        {c.name: c.label for c in systems.get("gunfire").controls("shooting")}[s.name]
        for s in systems.get("gunfire").stats]
    assert "Gunfire" in d.eq_msg.value
    d.eq_sliders.children[0].value = 6  # the slider still moves its stat
    assert d.matchup()[systems.get("gunfire").stats[0].name] == 6


def test_diagnostics_bad_link_names_each_bad_value_and_keeps_working():
    from workbench.ui.diagnostics import DiagnosticsDashboard
    d = DiagnosticsDashboard(query="?sweep_shots=inf&eq_acc=99&sweep_x=banana&tab=nope&eq_models=3&eq_models=4")
    text = _text(d.message.value)
    for piece in ("sweep_shots", "'inf'", "eq_acc", "sweep_x", "'banana'", "tab", "eq_models 2 times"):
        assert piece in text, (piece, text)
    assert d.eq_models.value == 3 and d.sw_shots.value == 10
    d.sw_shots.value = 11
    assert "sweep_shots=11" in d.link.query


def test_diagnostics_read_each_value_against_its_controls_declared_range():
    """As on the other pages, a widget pushed past its control's range (as a browser could send)
    reads as the declared value, in the values and in the link."""
    from workbench.ui.diagnostics import DiagnosticsDashboard
    d = DiagnosticsDashboard("changes")
    with d.held():
        d.sw_shots.max = 5000
        d.sw_shots.value = 4000
        d.eq_models.min = -50
        d.eq_models.value = -7
    values = d.values()
    assert (values["sweep_shots"], values["eq_models"]) == (30, 1)
    assert "sweep_shots=30" in d.query_string() and "eq_models=1" in d.query_string()


def test_compare_link_out_of_one_systems_range_keeps_its_values_and_says_which():
    dash = CompareDashboard(query="?toughness=4&shots=3&bogus=1")
    text = _text(dash.error.value)
    assert "bogus" in text and "The Forgotten: toughness" in text, text
    assert dash.values()["toughness"] == 4 and dash.values()["shots"] == 3
    assert "toughness=4" in dash.link.query


def test_a_figure_reaches_the_browser_as_plain_json_whatever_it_was_built_from():
    """A redraw checks that a figure is plotly JSON already (the fast path) and
    converts it otherwise: numpy numbers and arrays become lists and numbers,
    a NaN (numpy's too) becomes null, a tuple a list, and a plain figure passes
    unchanged."""
    import json

    import numpy as np

    from workbench.ui.plotwidget import as_json

    plain = {"data": [{"type": "bar", "x": [0, 1, 2], "y": [0.25, 0.5, 0.25], "name": "exact"}],
             "layout": {"title": {"text": "t"}, "showlegend": False, "bargap": None}}
    assert as_json(plain) == plain
    mixed = {"data": [{"type": "bar", "x": np.arange(3), "y": (np.float64(0.5), float("nan"), np.float64("nan")),
                       "width": np.int64(1), "uid": "dropped"}],
             "layout": {"height": np.int32(300)}}
    out = as_json(mixed)
    assert out == {"data": [{"type": "bar", "x": [0, 1, 2], "y": [0.5, None, None], "width": 1}],
                   "layout": {"height": 300}}
    json.dumps(out, allow_nan=False)  # strict JSON: what the browser parses
