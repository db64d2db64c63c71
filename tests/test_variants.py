"""Variants side by side (workbench.variants, workbench.compare.diff): the diff of two variants
is the difference of two sweeps, a variant against itself and a switch that cannot matter give
zero, bad variants are clear errors, and the movers, verdict and forum post say the library's
numbers."""
from __future__ import annotations

import dataclasses

import itertools
import shutil

import numpy as np
import pandas as pd
import pytest

from workbench import compare, systems, variants
from workbench.errors import InputError
from workbench.variants import Variant, variant

GRID = dict(bs=list(range(1, 13)), t=list(range(-2, 5)))
HEAVY = dict(weapon="heavy", action="shot")


def sweep_pair(a_settings, b_settings, system="changes", grid=GRID, **matchup):
    """Two sweeps of the plain library, keyed by the grid's cells."""
    d = systems.get(system)
    base = {**d.seed_matchup, **matchup}
    sa = compare.sweep(system, None, progress=False, **{**base, **a_settings, **grid}).set_index(list(grid))
    sb = compare.sweep(system, None, progress=False, **{**base, **b_settings, **grid}).set_index(list(grid))
    return sa, sb


def test_diff_is_the_difference_of_two_sweeps_cell_by_cell():
    df = compare.diff(variant("changes", **HEAVY), variant("changes", heavy_shot="flat_4", **HEAVY), grid=GRID)
    sa, sb = sweep_pair(HEAVY, {**HEAVY, "heavy_shot": "flat_4"})
    assert len(df) == 12 * 7
    assert [tuple(r) for r in df[["bs", "t"]].to_numpy()] == list(itertools.product(GRID["bs"], GRID["t"]))
    key = pd.MultiIndex.from_frame(df[["bs", "t"]])
    np.testing.assert_allclose(df["mean_a"], sa.loc[key, "mean"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(df["mean_b"], sb.loc[key, "mean"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(df["mean_diff"], sb.loc[key, "mean"].to_numpy() - sa.loc[key, "mean"].to_numpy(),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(df["p_at_least_1_diff"],
                               sb.loc[key, "p_at_least_1"].to_numpy() - sa.loc[key, "p_at_least_1"].to_numpy(),
                               rtol=0, atol=1e-12)
    assert (df["mean_diff"] >= 0).all() and df["mean_diff"].max() > 2  # a flat 4+ never hits worse than BS+4


def test_one_cell_equals_two_single_calls():
    df = variants.diff("changes:weapon=heavy,action=shot", "changes:weapon=heavy,action=shot,heavy_shot=flat_4",
                       grid=GRID)
    row = df[(df.bs == 6) & (df.t == 2)].iloc[0]
    before = systems.get("changes").shooting(bs=6, s=5, ap=5, t=2, sv=3, shots=10, **HEAVY)
    after = systems.get("changes").shooting(bs=6, s=5, ap=5, t=2, sv=3, shots=10, heavy_shot="flat_4", **HEAVY)
    assert row.mean_a == pytest.approx(before.mean, abs=1e-12)
    assert row.mean_diff == pytest.approx(after.mean - before.mean, abs=1e-12)
    assert row.p_at_least_1_diff == pytest.approx(after.at_least(1) - before.at_least(1), abs=1e-12)


@pytest.mark.parametrize("system", [k for k in systems.keys()])
def test_a_variant_against_itself_is_all_zero(system):
    d = systems.get(system)
    x, y = [s.name for s in d.stats][:2]
    info = {s.name: s.values for s in d.stats}
    df = variants.diff(system, system, grid={x: info[x][:5], y: info[y][:5]})
    assert len(df) == 25
    assert (df["mean_diff"] == 0).all() and (df["p_at_least_1_diff"] == 0).all()
    assert df["mean_a"].gt(0).any()  # a real sweep, not an empty one


def test_a_switch_that_cannot_matter_gives_zero():
    # heavy_shot only reads a heavy weapon in a SHOT action: a light weapon ignores it
    df = variants.diff("changes", "changes:heavy_shot=flat_4", grid=GRID)
    assert (df["mean_diff"] == 0).all() and (df["p_at_least_1_diff"] == 0).all()
    assert "changes nothing" in variants.verdict(df)
    # the firer's own cover only counts when the firer has gone to ground
    df = variants.diff("changes", "changes:firer_cover=4", grid=GRID)
    assert (df["mean_diff"] == 0).all()


def test_a_rule_file_by_path_against_its_registered_self(tmp_path):
    path = tmp_path / "kill6.toml"
    shutil.copyfile(systems.get("kill6").path, path)
    grid = dict(bs=[2, 3, 4, 5, 6], sv=[2, 4, 7])
    assert (variants.diff("kill6", str(path), grid=grid)["mean_diff"] == 0).all()
    # one rule changed in the copy: no more re-rolls of failed wound rolls
    text = path.read_text()
    edited = text.replace('reroll = "failed"\n', "")
    assert edited != text, "the test's edit found nothing to change in kill6.toml"
    path.write_text(edited)
    d = variants.diff("kill6", str(path), grid=grid)
    assert (d["mean_diff"] <= 1e-12).all() and d["mean_diff"].lt(0).any()
    for rec in d.sample(4, random_state=1).to_dict("records"):
        from workbench import rules
        from workbench.systems.description import describe_rules
        mine = describe_rules(rules.load(path), "#000000")
        kw = {**mine.seed_matchup, "bs": rec["bs"], "sv": rec["sv"]}
        assert rec["mean_b"] == pytest.approx(mine.function("attack")(**kw).mean, abs=1e-12)


def test_variants_are_immutable_values_that_read_and_write_their_spec():
    v = Variant.parse("changes:heavy_shot=flat_4,action=shot")
    assert v == variant("changes", action="shot", heavy_shot="flat_4")
    assert v.spec == "changes:action=shot,heavy_shot=flat_4"
    assert Variant.parse(v.spec) == v
    assert hash(v) == hash(Variant.parse(v.spec))
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.function = "melee"
    assert v.replace(heavy_shot="bs_plus_4") != v
    assert "flat 4" in v.name and "_" not in v.name


@pytest.mark.parametrize("spec, field, words", [
    ("chnages", "system", "one of 'changes'"),
    ("changes:heavy_shoot=flat_4", "setting", "did you mean 'heavy_shot'"),
    ("changes:heavy_shot=flat_5", "heavy_shot", "one of bs_plus_4, flat_4"),
    ("changes:bs=14", "bs", "a whole number from 1 to 13"),
    # an infinity is a bad value like any other, never an OverflowError from int()
    ("changes:bs=inf", "bs", "a whole number from 1 to 13, got 'inf'"),
    ("changes:bs=1e400", "bs", "a whole number from 1 to 13, got '1e400'"),
    ("changes:bs", "variant", "name=value"),
    ("kill6:stationary=maybe", "stationary", "true or false"),
])
def test_a_bad_variant_is_a_clear_error(spec, field, words):
    with pytest.raises(InputError) as exc:
        Variant.parse(spec)
    assert exc.value.field == field
    assert words in str(exc.value)


def test_a_bad_grid_is_a_clear_error():
    with pytest.raises(InputError, match="^grid: expected a stat both variants take"):
        variants.diff("changes", "kill6", grid=dict(bs=[3, 4], weapon=["light"]))
    with pytest.raises(InputError, match="^grid: expected stats the variant"):
        variants.diff("changes", "changes:bs=4", grid=GRID)
    with pytest.raises(InputError, match="^grid: expected one or two stats"):
        variants.diff("changes", "changes", grid=dict(bs=[3], s=[4], ap=[5]))
    with pytest.raises(InputError, match="^bs: "):
        variants.diff("changes", "changes", grid=dict(bs=[0, 1]))


def test_movers_are_the_profile_matchups_that_move_most_with_the_librarys_numbers():
    a, b = variant("changes"), variant("changes", heavy_shot="flat_4")
    table = variants.movers(a, b)
    assert len(table) > 0
    assert (table["mean_diff"].abs().diff().dropna() <= 0).all()  # largest first
    top = table.iloc[0]
    assert top.matchup.startswith("Space Marine (Heavy Bolter) at Space Marine")
    # the heavy bolter in a SHOT action at the shipped space marine, by hand
    shoot = systems.get("changes").shooting
    kw = dict(bs=5, s=4, ap=4, t=2, sv=3, inv=0, wounds=1, weapon="heavy", shots=3, models=5, action="shot")
    plain = next(r for r in table.itertuples() if r.matchup == "Space Marine (Heavy Bolter) at Space Marine, action shot")
    assert plain.mean_a == pytest.approx(shoot(**kw).mean, abs=1e-12)
    assert plain.mean_diff == pytest.approx(shoot(**kw, heavy_shot="flat_4").mean - shoot(**kw).mean, abs=1e-12)
    assert not table["matchup"].str.contains("Boltgun").any()  # a light gun never moves


def test_without_profiles_the_movers_are_the_grid_cells():
    df = variants.diff("kill6", "kill6:stationary=true", grid=dict(bs=[2, 3, 4, 5, 6], sv=[2, 4, 7]))
    table = variants.movers(df.attrs["a"], df.attrs["b"], df)
    assert table.iloc[0]["mean_diff"] == pytest.approx(df["mean_diff"].max())
    assert table.iloc[0]["matchup"].startswith("BS ")


def test_the_verdict_says_who_gains_and_by_how_much():
    df = variants.diff("changes:weapon=heavy,action=shot", "changes:weapon=heavy,action=shot,heavy_shot=flat_4",
                       grid=GRID)
    sa, sb = sweep_pair(HEAVY, {**HEAVY, "heavy_shot": "flat_4"})
    gain = sb["mean"] - sa["mean"]
    bs, t = gain.idxmax()
    line = variants.verdict(df)
    assert line.startswith("heavy weapon in a SHOT action: flat 4 helps most at ")
    assert f"BS {bs}+, T {t:+d}, by +{gain.max():.2f} models removed at 10 shots" in line
    assert line.endswith("hurts none.")
    assert "_" not in line and "True" not in line and "None" not in line


def test_the_heatmaps_are_centred_on_zero_with_values_on_hover():
    df = variants.diff("changes:weapon=heavy,action=shot", "changes:weapon=heavy,action=shot,heavy_shot=flat_4",
                       grid=GRID)
    fig = variants.diff_figure(df)
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    for trace, col, scale in zip(fig.data, ("mean_diff", "p_at_least_1_diff"), (1, 100)):
        assert trace.zmid == 0 and trace.zmin == -trace.zmax
        z = np.asarray(trace.z, dtype=float)
        assert z.shape == (7, 12)  # t down, bs across
        assert z[list(GRID["t"]).index(2)][list(GRID["bs"]).index(6)] == pytest.approx(
            scale * df[(df.bs == 6) & (df.t == 2)][col].iloc[0])
        assert "%{z" in trace.hovertemplate and "customdata" in trace.hovertemplate
    assert np.asarray(fig.data[0].customdata)[0][0][0] == "BS 1+, T -2"
