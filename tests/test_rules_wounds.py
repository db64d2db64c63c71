"""Removal model by model (``[removal]`` save reading ``wounded``, tough, already_wounded):
exact against a brute force over every face (itertools, Fractions), the vectorised table
against single calls, sampled within 5 standard errors, and the file errors."""
from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from brute_rules import brute, stage, to_toml
from pmfcheck import assert_pmf_equal
from workbench import rules
from workbench.errors import InputError
from workbench.outcome import Stage
from workbench.rules.errors import RuleFileError

HIT = [stage(name="to hit", die=6, target=3), stage(name="to wound", die=4, target=2, tally="wounds")]


def _removal(models, k0, tough, save):
    out: dict = dict(models=models)
    if k0 is not None:
        out["already_wounded"] = k0
    if tough is not None:
        out["tough"] = tough
    if save is not None:
        base, step, sides = save
        out.update(save=lambda w, b=base, s=step: b + s * w, save_expr=f"{base} + {step} * wounded",
                   save_die=sides)
    return out


CASES = [(models, k0, tough, save)
         for models, k0, tough, save in itertools.product(
             (None, 1, 2, 3), (None, 0, 1, 2), (None, False, True), (None, (3, 1, 6), (5, -2, 4), (0, 7, 6)))
         if (models is None or k0 is None or k0 <= models) and not (k0 is None and tough is None and save is None)]


@pytest.mark.parametrize("count", [1, 3])
@pytest.mark.parametrize("models,k0,tough,save", CASES)
def test_model_by_model_removal_equals_brute_force(count, models, k0, tough, save):
    removal = _removal(models, k0, tough, save)
    o = rules.loads(to_toml(HIT, count, removal), "wounds.toml").attack()
    pmf, eff = brute(HIT, count, removal)
    assert o.pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert_pmf_equal(o.pmf, pmf, 1e-12)
    assert o.effects["wasted_damage"] == pytest.approx(float(eff["wasted_damage"]), abs=1e-12)
    assert o.effects["to hit"] == pytest.approx(float(eff["to hit"]), abs=1e-12)


def test_the_table_over_a_grid_equals_single_calls_and_the_brute_force():
    stats = {"n": dict(min=0, max=6, default=2), "m": dict(min=1, max=6, default=3),
             "k": dict(min=0, max=6, default=1), "phys": dict(min=0, max=8, default=4),
             "hero": dict(kind="bool", default=True), "t": dict(kind="bool", default=True)}
    removal = dict(models="m", already_wounded=0, wounded_expr="k", tough=True, tough_expr="t",
                   save=None, save_expr="phys + wounded if hero else 7", save_die=6)
    sysm = rules.loads(to_toml(HIT, "n", removal, stats=stats), "grid.toml")
    grid = [(n, m, min(k, m), phys) for n, m, k, phys in itertools.product([0, 1, 3], [1, 2, 3], [0, 1], [2, 4, 6])]
    n, m, k, phys = (np.array(c) for c in zip(*grid))
    for hero, tough in itertools.product((False, True), repeat=2):
        table = sysm.attack_table(n=n, m=m, k=k, phys=phys, hero=hero, t=tough)
        for i, (cn, cm, ck, cphys) in enumerate(grid):
            one = sysm.attack(n=cn, m=cm, k=ck, phys=cphys, hero=hero, t=tough)
            assert_pmf_equal(table["pmf"][i], one.pmf, 1e-12)
            if cm == 3 and cphys == 4:            # a brute force on part of the grid
                want = dict(models=cm, already_wounded=ck, tough=tough,
                            save=(lambda w: 4 + w) if hero else (lambda w: 7), save_die=6)
                assert_pmf_equal(one.pmf, brute(HIT, cn, want)[0], 1e-12)


@pytest.mark.parametrize("models,k0,tough,save,count", [
    (3, 1, True, (4, 1, 6), 6), (None, 2, True, (3, 1, 6), 5), (2, 0, False, (5, -2, 4), 4)])
def test_sampled_agrees_with_exact_within_five_standard_errors(models, k0, tough, save, count):
    sysm = rules.loads(to_toml(HIT, count, _removal(models, k0, tough, save)), "sampled.toml")
    exact = sysm.attack()
    sampled = sysm.attack(method="sampled", samples=40_000, seed=3)
    n = max(exact.pmf.size, sampled.pmf.size)
    want, got = np.zeros(n), np.zeros(n)
    want[: exact.pmf.size], got[: sampled.pmf.size] = exact.pmf, sampled.pmf
    se = np.sqrt(np.maximum(want * (1 - want), 1e-12) / 40_000)
    assert np.all(np.abs(got - want) <= 5 * se + 1e-9), (got, want)
    assert abs(sampled.effects["wasted_damage"] - exact.effects["wasted_damage"]) <= \
        5 * np.sqrt(count * count / 4 / 40_000) + 1e-9


def _file(removal_lines: str, stats: str = "") -> str:
    return ('[system]\nkey = "w"\nname = "W"\ndie = 6\n' + stats + '[attack]\ncount = "2"\n'
            '[[stages]]\nname = "hit"\ntarget = "4"\n[removal]\n' + removal_lines)


@pytest.mark.parametrize("lines,field", [
    ('save = "4"\nwounds = "2"\n', "removal.wounds"),
    ('tough = "1"\nremoved = "successes"\n', "removal.removed"),
    ('save_die = 6\n', "removal.save_die"),
    ('save = "4 + wounds_left"\n', "removal.save"),
])
def test_a_model_by_model_removal_refuses_what_does_not_go_with_it(lines, field):
    with pytest.raises(RuleFileError) as e:
        rules.loads(_file(lines), "bad.toml")
    assert e.value.field == field


def test_a_stat_named_wounded_cannot_sit_beside_a_save_reading_wounded():
    with pytest.raises(RuleFileError) as e:
        rules.loads(_file('save = "4 + wounded"\n', '[stats.wounded]\nmin = 0\nmax = 1\ndefault = 0\n'), "w.toml")
    assert e.value.field == "removal.save" and "wounded" in str(e.value)


def test_more_wounded_models_than_the_unit_has_is_an_input_error():
    sysm = rules.loads(_file('models = "2"\nalready_wounded = "k"\n',
                             '[stats.k]\nmin = 0\nmax = 5\ndefault = 0\n'), "w.toml")
    with pytest.raises(InputError) as e:
        sysm.attack(k=3)
    assert e.value.field == "removal.already_wounded" and "3" in str(e.value)


SHOTS = [stage(name="to hit", die=6, target=4, tally="hits", near_miss_tally="nears"),
         stage(name="to kill", die=4, target=3)]
JOINT = [("removed >= 1 or hits + nears - removed >= 2", lambda h, n, r: r >= 1 or h + n - r >= 2),
         ("hits - removed == 1", lambda h, n, r: h - r == 1),
         ("removed + nears >= 2 and hits < 2", lambda h, n, r: r + n >= 2 and h < 2)]


@pytest.mark.parametrize("when,pred", JOINT)
@pytest.mark.parametrize("count", [1, 2, 4])
@pytest.mark.parametrize("models,k0,tough,save", [(None, 0, True, (4, 1, 6)), (2, 1, True, (3, 2, 6)),
                                                   (3, 0, False, (5, -1, 6)), (1, 1, False, None)])
def test_a_chance_reading_removed_beside_tallies_equals_brute_force(when, pred, count, models, k0, tough, save):
    removal = _removal(models, k0, tough, save)
    up = 2
    chances = [dict(name="c", when=when, up_to=up)]
    text = to_toml(SHOTS, count, removal, chances=chances)
    o = rules.loads(text, "joint.toml").attack()
    cap = lambda x: min(x, up)
    _, eff = brute(SHOTS, count, removal, chances=[
        ("c", lambda k: pred(cap(k["hits"]), cap(k["nears"]), cap(k["removed"])))])
    assert o.effects["c"] == pytest.approx(float(eff["c"]), abs=1e-12)
    grid = rules.loads(text, "joint.toml").attack_table()
    assert float(np.ravel(grid["effects"]["c"])[0]) == pytest.approx(float(eff["c"]), abs=1e-12)
    s = rules.loads(text, "joint.toml").attack(method="sampled", samples=20_000, seed=5)
    p = float(eff["c"])
    assert abs(s.effects["c"] - p) <= 5 * np.sqrt(max(p * (1 - p), 1e-6) / 20_000) + 1e-9


@pytest.mark.parametrize("removal,chance,field", [
    (dict(models=2, wounds=1), dict(name="c", when="removed + hits >= 2", up_to=2), "chances[0].when"),
    (dict(models=2, tough=True), dict(name="c", when="removed + hits >= 2"), "chances[0].up_to"),
])
def test_removed_beside_tallies_needs_a_model_by_model_removal_and_up_to(removal, chance, field):
    with pytest.raises(RuleFileError) as e:
        rules.loads(to_toml(SHOTS, 2, removal, chances=[chance]), "bad.toml")
    assert e.value.field == field


def test_a_joint_chance_over_a_grid_of_attacks_and_units_equals_single_calls():
    stats = {"n": dict(min=0, max=40, default=2), "m": dict(min=1, max=9, default=3),
             "k": dict(min=0, max=9, default=1)}
    removal = dict(models="m", already_wounded=0, wounded_expr="k", tough=True, save=None,
                   save_expr="3 + 2 * wounded", save_die=6)
    text = to_toml(SHOTS, "n", removal, stats=stats, chances=[dict(name="c", when=JOINT[0][0], up_to=2)])
    sysm = rules.loads(text, "grid.toml")
    grid = [(n, m, min(k, m)) for n, m, k in itertools.product([0, 1, 5, 40], [1, 2, 9], [0, 1, 3])]
    n, m, k = (np.array(c) for c in zip(*grid))
    table = sysm.attack_table(n=n, m=m, k=k)
    for i, (cn, cm, ck) in enumerate(grid):
        one = sysm.attack(n=cn, m=cm, k=ck)
        assert table["effects"]["c"][i] == pytest.approx(one.effects["c"], abs=1e-12)
        assert_pmf_equal(table["pmf"][i], one.pmf, 1e-12)
    small = dict(models=2, already_wounded=1, tough=True, save=lambda w: 3 + 2 * w, save_die=6)
    _, eff = brute(SHOTS, 3, small, chances=[("c", lambda c: JOINT[0][1](c["hits"], c["nears"], c["removed"]))])
    assert sysm.attack(n=3, m=2, k=1).effects["c"] == pytest.approx(float(eff["c"]), abs=1e-12)


def test_a_joint_chance_where_every_blow_removes_alike_equals_brute_force_over_a_grid():
    """Saves that never differ from blow to blow (all fresh, or every model in front wounded), a
    grid of attacks, units (below and above up_to) and saves: each cell against the brute force."""
    stats = {"n": dict(min=0, max=9, default=2), "m": dict(min=1, max=9, default=3),
             "k": dict(min=0, max=9, default=0), "phys": dict(min=0, max=9, default=4)}
    removal = dict(models="m", already_wounded=0, wounded_expr="k", save=None, save_expr="phys + 2 * wounded",
                   save_die=6)
    when, pred = JOINT[0]
    sysm = rules.loads(to_toml(SHOTS, "n", removal, stats=stats, chances=[dict(name="c", when=when, up_to=2)]),
                       "alike.toml")
    grid = [(n, m, k, phys) for n, m, phys in itertools.product([0, 1, 3], [1, 3], [2, 5, 7]) for k in (0, m)]
    n, m, k, phys = (np.array(c) for c in zip(*grid))
    table = sysm.attack_table(n=n, m=m, k=k, phys=phys)
    cap = lambda x: min(x, 2)
    for i, (cn, cm, ck, cp) in enumerate(grid):
        unit = dict(models=cm, already_wounded=ck, save=lambda w, b=cp: b + 2 * w, save_die=6)
        _, eff = brute(SHOTS, cn, unit, chances=[("c", lambda c: pred(cap(c["hits"]), cap(c["nears"]),
                                                                      cap(c["removed"])))])
        assert table["effects"]["c"][i] == pytest.approx(float(eff["c"]), abs=1e-12)
        assert sysm.attack(n=cn, m=cm, k=ck, phys=cp).effects["c"] == pytest.approx(float(eff["c"]), abs=1e-12)


def _binomial_removal(count: int, p, models) -> list:
    """P(k removed) when each of ``count`` attacks removes a model with chance ``p``, capped at ``models``."""
    from math import comb
    p = Fraction(p)
    pmf = [comb(count, k) * p ** k * (1 - p) ** (count - k) for k in range(count + 1)]
    if models is not None and models < count:
        pmf = pmf[:models] + [sum(pmf[models:])]
    return pmf


@pytest.mark.parametrize("count", [1, 3])
@pytest.mark.parametrize("models,k0,tough,save", CASES)
def test_the_save_is_a_stage_where_one_chance_per_attack_removes_a_model(count, models, k0, tough, save):
    # where the removal shows no 'blows vary', the stages' product is each attack's one chance of a removal:
    # the brute force equals independent attacks at that chance; where it does, no save stage is shown
    removal = _removal(models, k0, tough, save)
    o = rules.loads(to_toml(HIT, count, removal), "wounds.toml").attack()
    want = brute(HIT, count, removal)[0]
    names = [s.name for s in o.stages]
    if o.blows_vary:
        assert names == ["to hit", "to wound"]
        assert "so there is no one chance per attack of a model removed" in o.explain()
        return
    assert_pmf_equal(np.array([float(x) for x in _binomial_removal(count, o.per_attack, models)]), want, 1e-12)
    if save is not None:
        base, step, sides = save
        wounded = int(bool(k0) and k0 >= min(models or count, count))
        saved = min(max(sides - (base + step * wounded) + 1, 0), sides)
        if saved:
            assert names == ["to hit", "to wound", "save failed"]
            assert o.stages[-1].probability == 1 - Fraction(saved, sides)
            return
    assert names == ["to hit", "to wound"]


def test_the_save_stage_says_the_files_words_and_its_name():
    text = _file('models = "3"\nsave = "4 + wounded"\nsave_name = "armour save"\n'
                 'save_says = ["armour {4}", { text = "(wounded)", when = "wounded" }]\nalready_wounded = "k"\n',
                 '[stats.k]\nmin = 0\nmax = 3\ndefault = 0\n')
    sysm = rules.loads(text, "w.toml")
    fresh, wounded = sysm.attack(k=0), sysm.attack(k=3)
    assert fresh.stages[-1] == Stage("armour save failed", Fraction(3, 6),
                                     "armour 4 needs 4+ on a d6: goes on 3/6", faces=6)
    assert wounded.stages[-1] == Stage("armour save failed", Fraction(4, 6),
                                       "armour 4 (wounded) needs 5+ on a d6: goes on 4/6", faces=6)
    assert "Per attack: 3/6 × 3/6 = 1/4 (25.0 %)." in fresh.explain()
    assert sysm.attack(k=1).blows_vary and len(sysm.attack(k=1).stages) == 1   # 2 blows: wounded, then fresh


@pytest.mark.parametrize("lines, field, said", [
    ('save_name = "armour save"\n', "removal.save_name", "a save beside save_name"),
    ('save_says = "armour"\n', "removal.save_says", "a save beside save_says"),
    ('save = "4"\nsave_says = "armour {nope}"\n', "removal.save_says", "nope"),
    ('save = "4"\nsave_name = ""\n', "removal.save_name", "non-empty"),
    ('save = "4"\nsave_says = 3\n', "removal.save_says", "{ text, when }"),
    ('models = "2"\n[view]\ntoken = ""\n', "view.token", "non-empty"),
])
def test_broken_words_of_a_save_or_a_token_are_refused_naming_the_field(lines, field, said):
    with pytest.raises(RuleFileError) as e:
        rules.loads(_file(lines), "bad.toml")
    assert e.value.field == field and said in str(e.value)
