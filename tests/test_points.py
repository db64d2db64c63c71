"""Points efficiency: models removed per 100 points, checked by hand.

Every expected number here is worked out from the profile files' numbers
(read with tomllib, not through workbench.profiles) and the rules of
RULES.md, with Fractions and binomial sums written out below, never from the
code under test.
"""
from __future__ import annotations

import math
import re
import tomllib
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from workbench import points, profiles
from workbench.errors import InputError, ProfileError
from workbench.systems import changes

PROFILES = Path(__file__).resolve().parents[1] / "profiles"


def unit_file(system: str, key: str) -> dict:
    return tomllib.loads((PROFILES / system / f"{key}.toml").read_text())


def binom(n: int, p: Fraction, k: int) -> Fraction:
    return math.comb(n, k) * p ** k * (1 - p) ** (n - k)


def capped_mean(n: int, p: Fraction, cap: int, per_hit=lambda k: k) -> Fraction:
    """E[min(per_hit(K), cap)], K ~ Binomial(n, p): each of n shots gets through with p."""
    return sum(binom(n, p, k) * min(per_hit(k), cap) for k in range(n + 1))


def d12(target: int) -> Fraction:
    """RULES.md 1: a D12 roll of target or more."""
    return Fraction(max(0, min(12, 13 - target)), 12)


def d10_at_least(target: int) -> Fraction:
    return Fraction(max(0, min(10, 11 - target)), 10)


def hand_matchups() -> dict[str, tuple[Fraction, int, int, int]]:
    """matchup text -> (expected removed, firers, attacker points, target points), by hand."""
    out = {}
    m = unit_file("changes", "space_marine")
    mu, mw = m["unit"], {w["name"]: w for w in m["weapons"]}
    for name in ("Boltgun", "Heavy Bolter"):
        w = mw[name]
        # hit BS (cover 0), pierce AP + Sv, wound S + T (the aimed action: no heavy penalty)
        p = d12(mu["bs"]) * d12(w["ap"] + mu["sv"]) * d12(w["s"] + mu["t"])
        shots = w["shots"] * mu["models"]
        out[f"{mu['models']} Space Marine ({name}) at Space Marine"] = (
            capped_mean(shots, p, mu["models"]), mu["models"], mu["points"], mu["points"])
    t = unit_file("forgotten", "trooper")
    tu, tw = t["unit"], t["weapons"][0]
    # SHOOT 6+ on a d10; kill: d10 - 1 (light armour) above ATTACK POWER 5, i.e. 7+
    p = d10_at_least(tu["shoot"]) * d10_at_least(tw["attack_power"] + 1 + 1)
    out["5 Trooper (Rifle) at Trooper"] = (capped_mean(tu["models"], p, tu["models"]), tu["models"],
                                           tu["points"], tu["points"])
    r = unit_file("antares", "rever")
    ru, rw = r["unit"], r["weapons"][0]
    # hit: d10 <= Acc; the target fails Res + armour - SV: d10 above it
    p = Fraction(ru["acc"], 10) * Fraction(10 - (ru["res"] + ru["armour"] - rw["sv"]), 10)
    out["5 Rever (Carbine) at Rever"] = (capped_mean(ru["models"], p, ru["models"]), ru["models"],
                                         ru["points"], ru["points"])
    g = {k: unit_file("gunfire", k) for k in ("laansguard", "knights")}
    names = {"laansguard": "Laansguard", "knights": "Knights"}
    for a, t_ in (("laansguard", "laansguard"), ("laansguard", "knights"), ("knights", "laansguard"),
                  ("knights", "knights")):
        au, aw, tu_ = g[a]["unit"], g[a]["weapons"][0], g[t_]["unit"]
        # opposed d10: 6 + defender - attacker or more; S >= T: a model per penetrating hit,
        # S < T: floor(hits x S / T)
        p = d10_at_least(6 + tu_["ev"] - au["bs"]) * d10_at_least(6 + tu_["av"] - aw["ap"])
        s, tt = aw["s"], tu_["t"]
        per_hit = (lambda k: k) if s >= tt else (lambda k, s=s, tt=tt: (k * s) // tt)
        out[f"{au['models']} {names[a]} ({aw['name']}) at {names[t_]}"] = (
            capped_mean(au["models"] * aw["shots"], p, tu_["models"], per_hit), au["models"], au["points"],
            tu_["points"])
    return out


def test_every_shipped_unit_has_illustrative_points():
    for path in sorted(PROFILES.glob("*/*.toml")):
        unit = tomllib.loads(path.read_text())["unit"]
        assert isinstance(unit["points"], int) and unit["points"] > 0, path
        assert "points" in unit["illustrative"], f"{path}: the seeds give no costs"
    assert all("points" in u.illustrative for u in profiles.list_units())


def test_points_per_100_match_a_hand_calculation():
    hand = hand_matchups()
    df = points.rank()
    assert sorted(df["matchup"]) == sorted(hand)
    for row in df.itertuples():
        mean, firers, cost, target_cost = hand[row.matchup]
        spent = firers * cost
        assert row.points_spent == spent
        assert row.expected_removed == pytest.approx(float(mean), abs=1e-12)
        assert row.removed_per_100 == pytest.approx(float(100 * mean / spent), abs=1e-12)
        assert row.points_removed_per_100 == pytest.approx(float(100 * mean * target_cost / spent), abs=1e-12)
        assert row.illustrative


def test_the_reference_marine_by_hand():
    """RULES.md: 8/12 x 5/12 x 6/12 = 5/36 a shot; five marines at 18 points fire 5 shots:
    25/36 removed for 90 points = 0.7716 per 100 points, 13.89 target points per 100."""
    out, eff = points.matchup("changes", "space_marine", "Boltgun", "space_marine")
    assert out.attacks == 5 and eff.points_spent == 90
    assert eff.removed_per_100 == pytest.approx(100 * 25 / 36 / 90)
    assert eff.points_removed_per_100 == pytest.approx(100 * 25 / 36 * 18 / 90)
    # the same outcome read directly: 10 shots of a one-shot gun were fired by 10 models
    marine = profiles.get_unit("changes", "space_marine")
    ten = changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=10)
    e = points.efficiency(ten, marine, weapon="Boltgun")
    assert e.firers == 10 and e.points_spent == 180
    assert e.removed_per_100 == pytest.approx(100 * 10 * 5 / 36 / 180)
    assert e.points_removed_per_100 is None  # no target given


def test_rank_order_follows_the_hand_numbers_best_first():
    hand = hand_matchups()
    for by in ("removed_per_100", "points_removed_per_100"):
        def key(m, by=by):
            mean, firers, cost, tcost = hand[m]
            return 100 * mean / (firers * cost) * (tcost if by == "points_removed_per_100" else 1)
        order = ["changes", "forgotten", "gunfire", "antares"]  # ties: the systems' order
        system = {m: ("changes" if "Marine" in m else "forgotten" if "Trooper" in m else
                      "antares" if "Rever" in m else "gunfire") for m in hand}
        expected = sorted(hand, key=lambda m: (-key(m), order.index(system[m])))
        df = points.rank(by=by)
        assert list(df["matchup"]) == expected
        assert list(df["rank"]) == list(range(1, len(hand) + 1))
        assert df[by].is_monotonic_decreasing
        # all four systems side by side in one ranking
        assert set(df["system"]) == {"changes", "forgotten", "gunfire", "antares"}


def test_an_exact_tie_ranks_in_the_systems_order_whatever_the_float_noise(monkeypatch):
    """Two matchups worth exactly 30 models per 100 points (Fractions), as a float
    pipeline may hand them over: the later system a few units of 1e-14 above the
    earlier one on one machine, below it on another. Either way it is a tie, and
    the earlier system ranks first."""
    exact = Fraction(30)
    for noisy in ((29.99999999999999, 29.999999999999982), (29.999999999999982, 29.99999999999999)):
        assert float(exact) not in noisy and noisy[0] != noisy[1]
        values = dict(zip(("antares", "changes"), noisy))

        def matchup(key, attacker, weapon, target, firers=None, values=values):
            spent = 10 * 18
            mean = values[key] * spent / 100
            eff = points.Efficiency(system=key, attacker=attacker, weapon=weapon, target=target, firers=10,
                                    points_per_model=18, points_spent=spent, expected_removed=mean,
                                    removed_per_100=values[key], target_points_per_model=18,
                                    points_removed_per_100=values[key] * 18, illustrative=True)
            return changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=10), eff

        monkeypatch.setattr(points, "matchup", matchup)
        pairs = [("antares", "A", "gun", "T"), ("changes", "C", "gun", "T")]  # the later system given first
        for by in points.BY:
            df = points.rank(pairs, by=by)
            assert list(df["system"]) == ["changes", "antares"], (by, noisy)


def test_rank_of_chosen_matchups_and_firers():
    df = points.rank([("antares", "rever", "Carbine", "rever"), ("forgotten", "trooper", "Rifle", "trooper")],
                     firers=1)
    # one firer: 3/10 of 1 removed for 12 points; 1/5 for 10 points
    assert list(df["system"]) == ["antares", "forgotten"]
    assert df["removed_per_100"].tolist() == pytest.approx([100 * 0.3 / 12, 100 * 0.2 / 10])


def test_table_html_shows_the_ranking_and_says_points_are_illustrative():
    df = points.rank()
    text = points.table_html(df, top=3)
    assert text.count("<tr class=") == 3
    assert "illustrative" in text
    assert f"{df['removed_per_100'].iloc[0]:.2f}" in text
    assert text.index(df["system_name"].iloc[0]) < text.index(df["system_name"].iloc[2])


def test_bad_input_names_the_field(tmp_path):
    with pytest.raises(InputError, match=r"^by: expected one of 'removed_per_100'"):
        points.rank(by="kills")
    with pytest.raises(InputError, match=r"^pairs\[0\]: expected a \(system, attacker, weapon, target\) tuple"):
        points.rank([("changes", "space_marine")])
    with pytest.raises(InputError, match=r"^firers: expected a number of firing models above 0, got 0"):
        points.efficiency(changes.shooting(bs=5, s=5, ap=5, t=2, sv=3), profiles.get_unit("changes", "space_marine"),
                          firers=0)
    with pytest.raises(InputError, match=r"^outcome: expected a workbench Outcome"):
        points.efficiency({"mean": 1}, profiles.get_unit("changes", "space_marine"), firers=1)
    with pytest.raises(InputError, match=r"^df: expected a ranking"):
        points.table_html(pd.DataFrame({"x": [1]}))
    # a unit without points: the efficiency says which file lacks them
    src = (PROFILES / "antares" / "rever.toml").read_text().replace("points = 12\n", "").replace(
        'illustrative = ["models", "points"]', 'illustrative = ["models"]')
    (tmp_path / "antares").mkdir()
    (tmp_path / "antares" / "rever.toml").write_text(src)
    rever = profiles.load_unit(tmp_path / "antares" / "rever.toml")
    assert rever.points is None
    with pytest.raises(InputError, match=r"^attacker\.points: expected a points cost per model"):
        points.efficiency(changes.shooting(bs=5, s=5, ap=5, t=2, sv=3), rever, firers=1)
    (tmp_path / "antares" / "rever.toml").write_text(src.replace("models = 5", "models = 5\npoints = 0"))
    with pytest.raises(ProfileError, match=r"unit\.points: expected a whole number from 1 to 10000"):
        profiles.load_unit(tmp_path / "antares" / "rever.toml")


def test_compare_dashboard_shows_removed_per_100_points_by_hand():
    """The compare page's basic changes matchup at 10 shots: ten one-shot marines (10 x 18 points)
    fire at a unit of 5: E[min(Binomial(10, 5/36), 5)] removed per 180 points."""
    from workbench.ui.compare import CompareDashboard

    d = CompareDashboard()
    assert d.values()["shots"] == 10 and d.values()["models"] == 5
    row = re.search(r'<tr class="wb-row-changes">(.*?)</tr>', d.table.value).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    head = re.findall(r"<th>(.*?)</th>", d.table.value)
    per_100 = float(cells[head.index("models removed per 100 points")])
    hand = 100 * capped_mean(10, Fraction(5, 36), 5) / 180
    assert per_100 == pytest.approx(float(hand), abs=0.005)
    assert d.points.value == points.table_html(points.rank())


def test_diagnostics_points_tab_ranks_by_the_chosen_measure():
    from workbench.ui.diagnostics import DiagnosticsDashboard

    d = DiagnosticsDashboard("antares")
    assert d.tabs.get_title(4) == "Points"
    d.pt_by.value = "points_removed_per_100"
    assert d.pt_table.value == points.table_html(points.rank(by="points_removed_per_100"))
    assert "Ranked by target points removed per 100 points" in d.pt_table.value
