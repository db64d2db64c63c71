"""Sweeps and design diagnostics.

Expected numbers: the stat-level function called on each cell (the issue's
definition of a correct sweep), and brute-force enumerations over every die
face written here (itertools, Fractions) from RULES.md.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from workbench import compare, systems
from workbench.errors import InputError, UnknownArgumentError
from workbench.systems import antares, changes, forgotten, gunfire

D12 = range(1, 13)
D10 = range(1, 11)


# -- brute force helpers (RULES.md) ----------------------------------------
def d12_at_least(target: int) -> Fraction:
    """RULES.md s.1: a D12 roll of ``target`` or more."""
    return Fraction(sum(1 for f in D12 if f >= target), 12)


def d10_opposed(attacker: int, defender: int) -> Fraction:
    """RULES.md s.3: d10 >= 6 + defender - attacker."""
    return Fraction(sum(1 for f in D10 if f >= 6 + defender - attacker), 10)


def antares_pass(value: int) -> Fraction:
    """RULES.md s.4, both dice enumerated: d10 <= value, a 10 fails, below 1 needs 1 then 1."""
    ok = 0
    for a, b in itertools.product(D10, D10):
        if value < 1:
            ok += a == 1 and b == 1
        else:
            ok += a <= value and a != 10
    return Fraction(ok, 100)


def binomial_pmf(n: int, p: float) -> np.ndarray:
    return np.array([math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)])


# -- sweep cells equal the function called on each cell ----------------------
GRIDS = {
    "changes": dict(bs=[3, 5, 9], s=[4, 5], ap=5, t=[0, 2], sv=3, shots=[1, 4], models=[None, 2],
                    action=["aimed", "shot"], weapon=["light", "heavy"]),
    "forgotten": dict(shoot=[4, 6, 9], attack_power=[3, 5], shots=[1, 4], models=[None, 2],
                      armour=["none", "light"], moved=["cautious", "normal"]),
    "gunfire": dict(bs=[2, 4, 7], ev=3, ap=[3, 6], av=5, s=[1, 2], t=[1, 2], shots=[1, 4],
                    models=[None, 3], explosive=[None, 2]),
    "antares": dict(acc=[0, 5, 9], res=[1, 5], sv=[0, 1], armour=[0, 2], shots=[1, 4], models=[None, 2],
                    critical_ignores_res=[False, True]),
}
MODULES = {"changes": changes, "forgotten": forgotten, "gunfire": gunfire, "antares": antares}


@pytest.mark.parametrize("key", list(GRIDS))
def test_sweep_cells_equal_the_function_on_each_cell(key):
    grid = GRIDS[key]
    df = compare.sweep(key, "shooting", progress=False, **grid)
    assert df.attrs["path"] == "table"
    assert len(df) == math.prod(len(v) if isinstance(v, list) else 1 for v in grid.values())
    # every cell of the cartesian grid appears once
    cells = set(map(tuple, df[list(grid)].astype(object).itertuples(index=False)))
    assert len(cells) == len(df)
    fn = MODULES[key].shooting
    at_least_cols = [c for c in df.columns if c.startswith("p_at_least_")]
    for row in df.to_dict("records"):
        kwargs = {k: row[k] for k in grid}
        kwargs = {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in kwargs.items()}
        out = fn(**kwargs)
        assert row["mean"] == pytest.approx(out.mean, abs=1e-12)
        for c in at_least_cols:
            k = int(c.rsplit("_", 1)[1])
            assert row[c] == pytest.approx(out.at_least(k), abs=1e-12), (kwargs, k)
        for name, value in out.effects.items():
            assert row[name] == pytest.approx(value, abs=1e-12), (kwargs, name)
        effect_cols = [c for c in df.columns if c not in grid and c != "mean" and c not in at_least_cols]
        for c in effect_cols:  # a column the cell does not have is NaN, never a number
            assert (c in out.effects) == (not np.isnan(row[c])), (kwargs, c)


def test_sweep_matches_brute_force_for_changes():
    """Mean and P(at least k) from per-face counting and a binomial (RULES.md s.1)."""
    df = compare.sweep("changes", "shooting", bs=list(range(1, 13)), s=5, ap=[5, 8], t=2, sv=3, shots=[1, 6],
                       progress=False)
    for row in df.to_dict("records"):
        p = d12_at_least(row["bs"]) * d12_at_least(row["ap"] + 3) * d12_at_least(5 + 2)
        pmf = binomial_pmf(row["shots"], float(p))
        assert row["mean"] == pytest.approx(float(p) * row["shots"], abs=1e-12)
        for k in range(1, row["shots"] + 1):
            assert row[f"p_at_least_{k}"] == pytest.approx(pmf[k:].sum(), abs=1e-12)
        for k in range(row["shots"] + 1, 7):
            assert row[f"p_at_least_{k}"] == 0


def test_sweep_without_a_twin_loops_and_matches_brute_force():
    df = compare.sweep("antares", "stat_test", value=list(range(0, 11)), modifier=[0, -2], progress=False)
    assert df.attrs["path"] == "loop"
    assert len(df) == 22
    for row in df.to_dict("records"):
        assert row["mean"] == pytest.approx(float(antares_pass(row["value"] + row["modifier"])), abs=1e-12)


def test_sampled_sweep_agrees_with_exact():
    exact = compare.sweep("gunfire", "shooting", bs=[3, 6], ev=3, ap=4, av=4, s=1, t=1, shots=5,
                          progress=False)
    sampled = compare.sweep("gunfire", "shooting", bs=[3, 6], ev=3, ap=4, av=4, s=1, t=1, shots=5,
                            method="sampled", samples=20_000, seed=1, progress=False)
    assert sampled.attrs["path"] == "blocks"  # sampled cells go block by block (workbench.studies)
    se = sampled["mean_stderr"].to_numpy()
    assert np.all(np.abs(sampled["mean"].to_numpy() - exact["mean"].to_numpy()) < 5 * se)


@pytest.mark.parametrize("grid, match", [
    (dict(bss=5, s=5, ap=5), r"sweep keyword: expected one of bs, s, ap.*got 'bss' \(did you mean 'bs'\?\)"),
    (dict(bs=[], s=5, ap=5), r"^bs: expected a value or a non-empty list of values, got \[\]"),
    (dict(bs=5, s=[[4, 5]], ap=5), r"^s: expected a value or a flat list"),
    (dict(bs=["five"], s=5, ap=5), r"^bs: expected"),
    (dict(bs=[3, 99], s=5, ap=5), r"^bs: expected a whole number.*got 99"),
    (dict(bs=5, s=5, ap=5, action=["aimed", "sniper"]), r"^action: expected one of 'snap', 'shot', 'aimed'"),
    (dict(s=5, ap=5), r"^bs: expected a value or a list of values \(required by changes.shooting\(\)\)"),
    (dict(bs=5, s=5, ap=5, method=["exact", "sampled"]), r"^method: expected a single value"),
    (dict(bs=5, s=5, ap=5, cover={1, 2}), r"^cover: expected a value or a list"),
])
def test_bad_grids_name_the_keyword(grid, match):
    with pytest.raises(InputError, match=match):
        compare.sweep("changes", "shooting", progress=False, **grid)


def test_bad_system_and_function():
    with pytest.raises(InputError, match=r"^system: expected one of 'changes'.*got 'chnages'"):
        compare.sweep("chnages", "shooting", bs=5)
    with pytest.raises(InputError, match=r"^function: expected one of .*got 'shoot'"):
        compare.sweep("changes", "shoot", bs=5)
    with pytest.raises(UnknownArgumentError):
        compare.sweep("gunfire", "shooting", bs=5, evv=3)


def test_forbidden_combination_in_a_grid_is_an_input_error():
    with pytest.raises(InputError, match=r"^enemy units can only fire at an EVADING unit with SNAP SHOTS "
                       r"\(action, evading: .* is true for action='aimed', evading=True\)$"):
        compare.sweep("changes", "shooting", bs=5, s=5, ap=5, evading=True, action=["snap", "aimed"],
                      progress=False)


# -- plots ----------------------------------------------------------------
def test_heatmap_and_lines_show_the_sweep_values():
    df = compare.sweep("antares", "shooting", acc=[3, 5, 7], res=[4, 6], sv=1, shots=10, progress=False)
    fig = compare.heatmap(df, "acc", "res")
    z = np.array(fig.data[0].z)
    assert z.shape == (2, 3)
    for i, res in enumerate([4, 6]):
        for j, acc in enumerate([3, 5, 7]):
            p = antares_pass(acc) * (1 - antares_pass(res - 1))
            assert z[i, j] == pytest.approx(10 * float(p), abs=1e-12)
    fig = compare.lines(df, "acc", "res", value="p_at_least_1")
    assert len(fig.data) == 2
    assert list(fig.data[0].x) == [3, 5, 7]
    p = antares_pass(3) * (1 - antares_pass(3))
    assert fig.data[0].y[0] == pytest.approx(1 - (1 - float(p)) ** 10, abs=1e-12)


def test_plots_need_the_other_swept_stats_fixed():
    df = compare.sweep("antares", "shooting", acc=[3, 5], res=[4, 6], sv=[0, 1], progress=False)
    with pytest.raises(InputError, match=r"^where: expected a value for each other swept column \(sv\)"):
        compare.heatmap(df, "acc", "res")
    fig = compare.heatmap(df, "acc", "res", where={"sv": 1})
    assert np.array(fig.data[0].z).shape == (2, 2)
    with pytest.raises(InputError, match=r"^x: expected a column of the sweep"):
        compare.lines(df, "bs", "res")


# -- value of +1 ------------------------------------------------------------
def test_value_of_plus_one_changes_bs_is_one_face_of_the_d12():
    """BS N+ -> (N-1)+ adds one face of twelve to the hit roll: 10 shots x 1/12 x 5/12 x 6/12."""
    df = compare.value_of_plus_one("changes", "bs", bs=5, s=5, ap=5, t=2, sv=3, shots=10)
    expected = 10 * float(Fraction(1, 12) * d12_at_least(8) * d12_at_least(7))
    assert set(df["stat"]) == {"bs"}
    assert list(df["value"]) == list(range(3, 13))
    assert list(df["improved"]) == list(range(2, 12))
    assert np.allclose(df["delta"], expected, atol=1e-12)


def test_value_of_plus_one_gunfire_av_from_brute_force():
    df = compare.value_of_plus_one("gunfire", "av", bs=4, ev=3, ap=3, s=1, t=1, shots=10)
    for row in df.to_dict("records"):
        before = 10 * d10_opposed(4, 3) * d10_opposed(3, row["value"])
        after = 10 * d10_opposed(4, 3) * d10_opposed(3, row["improved"])
        assert row["improved"] == row["value"] + 1
        assert row["delta"] == pytest.approx(float(after - before), abs=1e-12)


@pytest.mark.parametrize("key", systems.BUILTINS)
def test_a_plus_one_never_hurts_its_owner(key):
    df = compare.value_of_plus_one(key)
    stats = [s.name for s in systems.get(key).stats]
    assert set(df["stat"]) == set(stats)
    att = df[df["owner"] == "attacker"]["delta"]
    dfd = df[df["owner"] == "defender"]["delta"]
    assert (att >= 0).all() and (dfd <= 0).all()
    assert (df["delta"] != 0).any()
    fig = compare.value_of_plus_one_figure(df)
    assert len(fig.data) == len(stats)


def test_value_of_plus_one_rejects_unknown_stat():
    with pytest.raises(InputError, match=r"^stat: expected one of 'acc', 'sv', 'res'.*got 'ac'"):
        compare.value_of_plus_one("antares", "ac")


# -- granularity ------------------------------------------------------------
def test_granularity_changes_is_every_product_of_three_d12_tests():
    expected = {Fraction(a, 12) * Fraction(b, 12) * Fraction(c, 12)
                for a, b, c in itertools.product(range(13), repeat=3)}
    g = compare.granularity("changes")
    assert set(g.values) == expected
    assert all(isinstance(x, Fraction) for x in g.values)
    vals = sorted(expected)
    assert g.steps == tuple(b - a for a, b in zip(vals, vals[1:]))
    s = g.summary
    assert s["distinct"] == len(expected)
    assert s["min_step"] == min(g.steps) and s["max_step"] == max(g.steps)


def test_granularity_gunfire_and_antares_from_brute_force():
    gun = {d10_opposed(bs, 5) * d10_opposed(ap, 5) for bs in range(0, 11) for ap in range(0, 11)}
    assert set(compare.granularity("gunfire").values) == gun
    ant = {antares_pass(acc) * (1 - antares_pass(v)) for acc in range(0, 11) for v in range(-1, 11)}
    assert set(compare.granularity("antares").values) == ant


def test_granularity_forgotten_from_brute_force():
    """RULES.md s.2 defaults: hit on d10 >= SHOOT, kill on d10 > ATTACK POWER (no armour)."""
    exp = {Fraction(sum(f >= sh for f in D10), 10) * Fraction(sum(f > ap for f in D10), 10)
           for sh in range(0, 12) for ap in range(0, 11)}
    assert set(compare.granularity("forgotten").values) == exp
    table = compare.granularity_table()
    with_grids = [k for k in systems.keys() if systems.get(k).granularity_grid is not None]
    assert list(table["system"]) == with_grids
    assert with_grids[:4] == ["changes", "forgotten", "gunfire", "antares"] and "kill6" in with_grids
    assert (table["distinct"] > 10).all()


# -- equivalence ------------------------------------------------------------
SAME = {
    "changes": dict(bs=5, s=5, ap=5, t=2, sv=3, shots=10, models=5),
    "forgotten": dict(shoot=6, attack_power=5, armour="light", shots=10, models=5),
    "gunfire": dict(bs=4, ev=3, ap=3, av=5, s=1, t=2, shots=10, models=5),
    "antares": dict(acc=5, res=5, sv=1, shots=10, models=5),
}


@pytest.mark.parametrize("key", list(SAME))
def test_equivalent_in_the_same_system_is_the_input_at_distance_0(key):
    res = compare.equivalent(key, SAME[key], target_systems=[key])
    assert len(res) == 1
    row = res.iloc[0]
    assert row["system"] == key
    assert row["tv_distance"] == 0.0
    assert row["mean_difference"] == 0.0
    assert {k: row["setting"][k] for k in SAME[key]} == SAME[key]


def test_equivalent_distances_are_total_variation_of_the_functions_pmfs():
    src = changes.shooting(**SAME["changes"])
    res = compare.equivalent("changes", SAME["changes"], ["forgotten", "gunfire", "antares"], best=3)
    assert set(res["system"]) == {"forgotten", "gunfire", "antares"}
    assert "total variation" in res.attrs["distance"]
    for row in res.to_dict("records"):
        q = MODULES[row["system"]].shooting(**row["setting"]).pmf
        w = max(q.size, src.pmf.size)
        tv = 0.5 * np.abs(np.pad(q, (0, w - q.size)) - np.pad(src.pmf, (0, w - src.pmf.size))).sum()
        assert row["tv_distance"] == pytest.approx(tv, abs=1e-12)
        assert row["mean_difference"] == pytest.approx(q @ np.arange(q.size) - src.mean, abs=1e-12)
        assert row["setting"]["shots"] == 10 and row["setting"]["models"] == 5
    # ranked by distance within each system
    for _, part in res.groupby("system"):
        assert np.all(np.diff(part["tv_distance"].to_numpy()) >= -1e-12)  # ties within float noise
        assert list(part["rank"]) == [1, 2, 3]


def test_equivalent_finds_an_exact_match_across_systems():
    """Antares Acc 5 vs Res 5 SV 1 is 3/10 a shot (RULES.md); gunfire BS 5 vs Ev 5 (5/10) and
    AP 4 vs AV 5 (4/10)... any 3/10 setting gives the same binomial: distance 0."""
    res = compare.equivalent("antares", dict(acc=5, res=5, sv=1, shots=4), target_systems=["gunfire"])
    row = res.iloc[0]
    assert row["tv_distance"] == 0.0
    s = row["setting"]
    assert d10_opposed(s["bs"], s["ev"]) * d10_opposed(s["ap"], s["av"]) == Fraction(3, 10)


def test_equivalent_bad_input():
    with pytest.raises(InputError, match=r"^target_systems: expected one of 'changes'"):
        compare.equivalent("antares", dict(acc=5, res=5), target_systems=["warhammer"])
    with pytest.raises(InputError, match=r"^acc: expected a single value in a matchup"):
        compare.equivalent("antares", dict(acc=[5, 6], res=5))
    with pytest.raises(InputError, match=r"^matchup: expected a dict"):
        compare.equivalent("antares", [("acc", 5)])


# -- the diagnostics dashboard ----------------------------------------------
def test_diagnostics_dashboard_follows_its_controls():
    from workbench.ui.diagnostics import TABS, DiagnosticsDashboard

    d = DiagnosticsDashboard("antares")
    d.sw_x.value, d.sw_y.value = "acc", "res"
    df = d.update_sweep()
    heat = np.array(d.sw_heat.data[0].z)
    # one cell by brute force: Acc 5 vs Res 5 - SV 1, 10 shots (RULES.md: 3/10 a shot)
    antares_ = systems.get("antares")
    i, j = antares_.stat("res").values.index(5), antares_.stat("acc").values.index(5)
    assert heat[i, j] == pytest.approx(10 * 0.3, abs=1e-12)
    assert len(df) == 11 * 11
    d.sw_y.value = "acc"
    assert d.update_sweep() is None and "two different stats" in d.sw_msg.value
    d.eq_shots.value = 4
    res = d.update_equivalence()
    searchable = {k for k in systems.keys() if systems.get(k).equivalence_search}
    assert set(res["system"]) == searchable - {"antares"} and "kill6" in searchable
    assert (res["setting"].map(lambda s: s["shots"]) == 4).all()
    assert "total variation" in d.eq_msg.value
    d.p1_system.value = "gunfire"
    assert "Ev (evasion)" in d.p1_table.value
    assert len(d.gr_view.data) == 0, "the granularity waits until its tab is shown"
    d.tabs.selected_index = list(TABS).index("granularity")
    assert len(d.gr_view.data) == sum(systems.get(k).granularity_grid is not None for k in systems.keys())


def test_progress_bar_is_silent_when_quiet_and_yields_everything():
    from workbench import progress

    assert list(progress.bar(range(5), total=5)) == [0, 1, 2, 3, 4]
    with progress.quiet():
        assert not progress.active()
        assert list(progress.bar(range(3), total=3)) == [0, 1, 2]
    assert progress.active()


ARRAY_GRIDS = {
    "changes": dict(bs=[4, 6], s=5, ap=5, t=2, sv=3, shots=[3, 6], models=[2, 5], wounds=[1, 2]),
    "forgotten": dict(shoot=[5, 7], attack_power=5, shots=[3, 6], models=[2, 5]),
    "gunfire": dict(bs=[4, 6], ev=3, ap=4, av=4, s=[1, 3], t=2, shots=[3, 6], models=[2, 5],
                    suppression_fraction=[0.25, 0.5]),
    "antares": dict(acc=[4, 6], res=5, sv=1, shots=[3, 6], models=pd.Series([2, 5])),
}


@pytest.mark.parametrize("key", list(ARRAY_GRIDS))
def test_sweep_with_unit_sizes_and_shots_as_arrays(key):
    """Numeric unit sizes, shots and wounds go through the twin as arrays (or are grouped when
    the twin takes them only as scalars, like gunfire's suppression_fraction)."""
    grid = ARRAY_GRIDS[key]
    df = compare.sweep(key, "shooting", progress=False, **grid)
    assert df.attrs["path"] == "table"
    for row in df.to_dict("records"):
        out = MODULES[key].shooting(**{k: row[k] for k in grid})
        assert row["mean"] == pytest.approx(out.mean, abs=1e-12)
        for k in range(1, out.pmf.size):
            assert row[f"p_at_least_{k}"] == pytest.approx(out.at_least(k), abs=1e-12)


def test_diagnostics_forum_post_covers_the_matchup_and_its_closest_settings():
    """The equivalence tab's forum post explains the input matchup and the
    closest setting of every other system, each an exact outcome of its own
    system's function (means as the equivalence table reports them)."""
    from workbench import systems
    from workbench.ui.diagnostics import DiagnosticsDashboard

    d = DiagnosticsDashboard("antares")
    outcomes = d.equivalence_outcomes()
    m = d.matchup()
    assert list(outcomes)[0] == "antares (input)"
    np.testing.assert_allclose(outcomes["antares (input)"].pmf, systems.get("antares").shooting(**m).pmf)
    table = compare.equivalent("antares", m, best=1)
    assert sorted(k.split()[0] for k in outcomes if k.endswith("(closest)")) == sorted(table["system"])
    for row in table.itertuples():
        assert outcomes[f"{row.system} (closest)"].mean == pytest.approx(row.mean, abs=1e-12)
    post = d.eq_forum.generate(images=False)
    head = next(ln for ln in post["markdown"].splitlines() if ln.startswith("| "))  # one side-by-side table
    assert [c.strip() for c in head.strip("|").split("|")][1:] == [
        "Antares-style d10 (input)"] + [f"{systems.get(s).name} (closest)" for s in table["system"]]
    assert "Per shot: 5/10 × 6/10 = 3/10" in post["explain"]


def test_compare_page_says_why_two_systems_show_the_same_numbers():
    """Gunfire's basic matchup (BS 4 at Ev 3, AP 3 at AV 3, d10 >= 6 + defender - attacker)
    and Antares' (Acc 5 at Res 5 - SV 1, d10 roll under) both remove a model with
    3 shots in 10 (counted on the die's faces), 10 shots at 5 models each: the same
    numbers by the dice, which the page says under its table."""
    import re
    from itertools import product
    from fractions import Fraction
    from workbench.ui import CompareDashboard

    d10 = range(1, 11)
    gunfire = Fraction(sum(1 for h, p in product(d10, d10) if h >= 6 + 3 - 4 and p >= 6 + 3 - 3), 100)
    antares = Fraction(sum(1 for h, r in product(d10, d10) if h <= 5 and r > 5 - 1), 100)
    assert gunfire == antares == Fraction(3, 10)
    dash = CompareDashboard()
    notes = re.findall(r"<p class='wb-same-numbers'>(.*?)</p>", dash.table.value)
    assert len(notes) == 1 and notes[0].startswith("Gunfire and Antares-style d10 show the same numbers")
    assert "3/10" in notes[0] and "10 shots at 5 models" in notes[0]
    assert dash._outcomes["gunfire"].pmf.tolist() == pytest.approx(dash._outcomes["antares"].pmf.tolist())
    dash.controls["accuracy"].value = 1  # a step of accuracy moves them apart: no note
    assert "wb-same-numbers" not in dash.table.value
