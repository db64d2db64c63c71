"""``workbench.systems.changes.shooting`` and ``shooting_table`` resolve through
the system's rule file (rules/changes/shooting.toml) and equal the hand-written
reference resolver (tests/reference/changes.py) over stat grids and every
switch (actions and weapons, the target and the firer gone to ground, both
readings of a heavy weapon's SHOT and of the firer's cover, the natural 12 / 1
variants, units with and without a size): every probability of the removed
count and every effect to 1e-12, the same stages, notes and inputs; sampled
within 5 standard errors. The per-stage pass distributions and the format's
chance over the unit size are checked against brute forces over every face."""
from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import brute_changes as brute
from pmfcheck import assert_same_outcome
from reference import changes as ref
from workbench import rules
from workbench.errors import InputError
from workbench.systems import changes

RULES = Path(__file__).resolve().parents[1] / "rules"
TOL = 1e-12
CAPPED = ("hits", "pierced", "unsaved_wounds", "wasted_wounds", "destroyed")


def test_roll_stats_and_modifiers_equal_the_reference():
    grid = itertools.product((1, 7, 13), (3, 9), (2, 11), (-3, 2), (-2, 5), (0, 3), (-1, 4),
                             ((None, 1), (3, 2), (None, 3)))
    for bs, s, ap, t, sv, inv, cover, (models, wounds) in grid:
        kw = dict(bs=bs, s=s, ap=ap, t=t, sv=sv, inv=inv, cover=cover, shots=6, models=models, wounds=wounds)
        assert_same_outcome(changes.shooting(**kw), ref.shooting(**kw))


ACTIONS = [("light", "snap"), ("light", "shot"), ("light", "aimed"), ("heavy", "shot"), ("heavy", "aimed")]


def test_every_switch_equals_the_reference():
    for (weapon, action), gtg, n12, n1, shots, (models, wounds), heavy_shot in itertools.product(
            ACTIONS, (False, True), (False, True), (False, True), (0, 9), ((1, 1), (4, 3), (None, 2)),
            ("bs_plus_4", "flat_4")):
        kw = dict(bs=6, s=4, ap=8, t=2, sv=3, cover=1, inv=2, shots=shots, models=models, wounds=wounds,
                  weapon=weapon, action=action, go_to_ground=gtg, natural_12_always_succeeds=n12,
                  natural_1_always_fails=n1, heavy_shot=heavy_shot)
        assert_same_outcome(changes.shooting(**kw), ref.shooting(**kw))
    for firer_cover, evading, gtg, rule, models in itertools.product((-2, 0, 3, 6), (False, True), (False, True),
                                                                     ("same", "better"), (None, 2)):
        if evading and gtg:  # one status marker per unit
            continue
        kw = dict(bs=3, s=10, ap=2, t=5, sv=-1, cover=2, shots=5, models=models, wounds=2, action="snap",
                  firer_gone_to_ground=True, firer_cover=firer_cover, evading=evading, go_to_ground=gtg,
                  firer_cover_rule=rule)
        assert_same_outcome(changes.shooting(**kw), ref.shooting(**kw))


@pytest.mark.parametrize("kw", [dict(shots=1000, models=1000), dict(shots=10_000), dict(shots=2500, wounds=7),
                                dict(shots=300, models=40, wounds=5)])
def test_many_shots_equal_the_reference(kw):
    assert_same_outcome(changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, **kw), ref.shooting(bs=5, s=5, ap=5, t=2, sv=3, **kw))


def _same_table(got: dict, want: dict) -> None:
    assert got["pmf"].shape == want["pmf"].shape
    np.testing.assert_allclose(got["pmf"], want["pmf"], rtol=0, atol=TOL)
    assert set(got["effects"]) == set(want["effects"])
    for name, x in want["effects"].items():
        assert np.shape(got["effects"][name]) == np.shape(x), name
        np.testing.assert_allclose(got["effects"][name], x, rtol=0, atol=TOL)


def test_tables_equal_the_reference():
    kw = dict(bs=np.arange(1, 14)[:, None, None], s=5, ap=np.array([2, 6, 11])[None, :, None], t=1, sv=2,
              shots=np.array([0, 4, 9])[None, None, :])
    for extra in (dict(models=5, wounds=2), dict(models=None), dict(models=None, wounds=np.array([1, 2, 3])),
                  dict(models=np.array([1, 3, 6])[None, None, :], wounds=3, natural_1_always_fails=True),
                  dict(weapon="heavy", action="shot", heavy_shot="flat_4", cover=np.array([0, 2, 5])[None, :, None]),
                  dict(action="snap", firer_gone_to_ground=True, firer_cover=np.array([-2, 1, 4]), models=4,
                       firer_cover_rule="better", natural_12_always_succeeds=True)):
        _same_table(changes.shooting_table(**kw, **extra), ref.shooting_table(**kw, **extra))
    # one cell, 0-d arrays and lists
    _same_table(changes.shooting_table(bs=np.array(4), s=[3, 8], ap=5, models=[2, 9]),
                ref.shooting_table(bs=np.array(4), s=[3, 8], ap=5, models=[2, 9]))


def _sampled_agrees(got, want, n: int) -> None:
    """A sampled outcome of ``n`` samples agrees with the exact one: the same stages, effects and inputs, every
    probability and effect within 5 standard errors."""
    assert got.pmf.size == want.pmf.size and got.stages == want.stages and set(got.effects) == set(want.effects)
    assert dict(got.inputs) == dict(want.inputs, method="sampled", samples=n)
    assert np.all(np.abs(got.pmf - want.pmf) <= 5 * np.sqrt(want.pmf * (1 - want.pmf) / n) + 1e-12)
    for name in want.effects:
        if name == "destroyed":
            spread = np.sqrt(want.effects[name] * (1 - want.effects[name]) / n)
        else:   # a count rarely above 0 may show no spread at all in the samples: its variance is about its mean
            spread = max(got.effects_stderr[name], np.sqrt(want.effects[name] / n))
        assert abs(got.effects[name] - want.effects[name]) <= 5 * spread + 1e-12, name


@pytest.mark.parametrize("kw", [dict(bs=5, s=5, ap=5, t=2, sv=3, shots=10, models=5),
                                dict(bs=3, s=4, ap=6, shots=8, wounds=2),
                                dict(bs=6, s=3, ap=4, cover=1, shots=7, models=3, wounds=2, weapon="heavy",
                                     action="shot", natural_12_always_succeeds=True, natural_1_always_fails=True)])
def test_sampled_shooting_agrees_with_the_reference_exact(kw):
    n = 40_000
    got = changes.shooting(**kw, method="sampled", samples=n, seed=5)
    _sampled_agrees(got, ref.shooting(**kw), n)
    # the caller's generator is the one rolled: the same seed gives the same numbers
    again = changes.shooting(**kw, method="sampled", samples=n, seed=np.random.default_rng(5))
    np.testing.assert_array_equal(again.pmf, got.pmf)


FORBIDDEN = [dict(weapon="heavy", action="snap"), dict(evading=True, action="aimed"),
             dict(firer_gone_to_ground=True, action="shot"), dict(go_to_ground=True, evading=True, action="snap")]


@pytest.mark.parametrize("kw", FORBIDDEN + [dict(bs=14), dict(shots=10_001), dict(models=0), dict(wounds=101),
                                            dict(heavy_shot="flat4"), dict(t="+2"), dict(s=None)])
def test_errors_are_the_references(kw):
    """The public function refuses what the hand-written one refused, with the same message; the four
    forbidden combinations it refuses as the rule file does (a designer's copy keeps them)."""
    _same_refusal("shooting", dict(dict(bs=4, s=4, ap=4), **kw), "changes/shooting.toml" if kw in FORBIDDEN else None)


def _same_refusal(function: str, kw: dict, file: str | None) -> None:
    """``changes.<function>`` refuses ``kw`` with the reference's message, its table with the same field; a
    forbidden combination (``file`` given) is the rule file's own refusal, word for word."""
    with pytest.raises(InputError) as want:
        if file:
            rules.load(RULES / file).attack(**kw)
        else:
            getattr(ref, function)(**kw)
    with pytest.raises(InputError) as got:
        getattr(changes, function)(**kw)
    assert str(got.value) == str(want.value)
    with pytest.raises(InputError) as got_table:
        getattr(changes, f"{function}_table")(**kw)
    assert got_table.value.field == want.value.field


def test_a_sampled_call_past_the_engines_budget_is_refused_at_once_naming_samples():
    """Shooting's dice are rolled by the rule file's engine, so its sampled budget (docs/rulefiles.md,
    "Budgets": dice rolled and successes applied) bounds the call before any die is rolled."""
    with pytest.raises(InputError) as exc:
        changes.shooting(bs=5, s=5, ap=5, shots=10, method="sampled", samples=50_000_000)
    assert exc.value.field == "samples" and "60,000,000 dice and successes" in str(exc.value)
    ok = changes.shooting(bs=5, s=5, ap=5, shots=10, method="sampled", samples=1000, seed=1)
    assert ok.pmf.sum() == pytest.approx(1.0)


def _stage_totals(targets, attacks: int, n12: bool = False, n1: bool = False) -> dict:
    """Every face of one attack's three dice (itertools) at the three ``targets``, then ``attacks`` attacks
    added up in Fractions: the joint distribution of (hits, pierced, unsaved wounds)."""
    one: dict = {}
    for faces in itertools.product(brute.FACES, repeat=3):
        h = brute.passes(faces[0], targets[0], n12, n1)
        p = h and brute.passes(faces[1], targets[1], n12, n1)
        w = p and brute.passes(faces[2], targets[2], n12, n1)
        key = (int(h), int(p), int(w))
        one[key] = one.get(key, Fraction(0)) + Fraction(1, 12 ** 3)
    total = {(0, 0, 0): Fraction(1)}
    for _ in range(attacks):
        new: dict = {}
        for a, pa in total.items():
            for b, pb in one.items():
                k = tuple(x + y for x, y in zip(a, b))
                new[k] = new.get(k, Fraction(0)) + pa * pb
        total = new
    return total


def _stage_pmfs_are(o, total: dict, attacks: int) -> None:
    """The outcome's three stage pmfs are the brute force's counts of hits, pierced and wounds."""
    assert list(o.stage_pmfs) == ["to hit", "to pierce", "to wound"]
    for i, name in enumerate(o.stage_pmfs):
        want = [Fraction(0)] * (attacks + 1)
        for k, p in total.items():
            want[k[i]] += p
        got = np.asarray(o.stage_pmfs[name])
        assert not got[attacks + 1:].any()
        np.testing.assert_allclose(got[: attacks + 1], [float(x) for x in want], rtol=0, atol=TOL)


def test_stage_pmfs_are_hits_pierced_and_wounds_by_brute_force():
    """Every face of one shot's three dice (itertools), then the shots added up in Fractions: the
    distribution of hits, pierced and unsaved wounds over all the shots."""
    for kw, n12 in ((dict(bs=5, s=5, ap=5, t=2, sv=3, cover=1), False),
                    (dict(bs=2, s=9, ap=4, inv=3, weapon="heavy", action="shot"), True)):
        shots = 4
        total = _stage_totals(brute.shooting_targets(**kw), shots, n12)
        o = changes.shooting(**kw, shots=shots, models=3, natural_12_always_succeeds=n12)
        _stage_pmfs_are(o, total, shots)
        for i, name in enumerate(o.stage_pmfs):
            got = np.asarray(o.stage_pmfs[name])
            assert float(got @ np.arange(got.size)) == pytest.approx(o.effects[("hits", "pierced", "unsaved_wounds")[i]],
                                                                     abs=TOL)


def test_the_builtin_file_is_changes_own_and_a_copy_is_a_new_system(tmp_path, monkeypatch):
    from workbench import systems
    assert systems.keys().count("changes") == 1 and systems.broken() == ()
    assert systems.get("changes").module is changes
    text = (RULES / "changes" / "shooting.toml").read_text(encoding="utf-8")
    mine = tmp_path / "mine"
    mine.mkdir()
    edited = text.replace('key = "changes"', 'key = "my_changes"', 1).replace(
        "12 if natural_12_always_succeeds else 1000)\"\"\"", "12)\"\"\"", 1)   # a variant: a natural 12 always hits
    assert edited.count("12)\"\"\"") == 1
    (mine / "my_changes.toml").write_text(edited, encoding="utf-8")
    monkeypatch.setenv(systems.RULES_ENV, str(mine))
    assert "my_changes" in systems.keys() and systems.broken() == ()
    copy = systems.get("my_changes")
    kw = dict(bs=13, s=5, ap=5, t=2, sv=3, shots=1)
    assert copy.attack(**kw).stages[0].probability == Fraction(1, 12)
    assert changes.shooting(**kw).stages[0].probability == 0


# -- a copy of the folder says what the built-in says --------------------------------------------
#: stat sets of each switch that changes a stage's words: a heavy weapon in a SHOT action under both
#: readings, the target gone to ground, the firer gone to ground under both readings of its cover, an
#: invulnerable modifier better than cover (or dodge), the natural 12 / 1 variants, melee with dodge
SAID = [
    ("shooting", dict(bs=4, s=5, ap=5, t=2, sv=3, shots=10, models=None, weapon="heavy", action="shot")),
    ("shooting", dict(bs=6, s=5, ap=5, t=2, sv=3, shots=10, models=None, weapon="heavy", action="shot",
                      heavy_shot="flat_4")),
    ("shooting", dict(bs=5, s=4, ap=6, t=1, sv=2, cover=1, shots=7, go_to_ground=True, models=3, wounds=2)),
    ("shooting", dict(bs=4, s=5, ap=5, t=2, sv=3, cover=4, shots=5, models=None, action="snap",
                      firer_gone_to_ground=True, firer_cover=1)),
    ("shooting", dict(bs=4, s=5, ap=5, t=2, sv=3, cover=4, shots=5, models=4, action="snap",
                      firer_gone_to_ground=True, firer_cover=1, firer_cover_rule="better", go_to_ground=True)),
    ("shooting", dict(bs=5, s=5, ap=5, t=0, sv=1, cover=1, inv=3, shots=4, models=None)),
    ("shooting", dict(bs=12, s=1, ap=2, t=0, sv=-2, cover=3, shots=3, models=2, natural_12_always_succeeds=True,
                      natural_1_always_fails=True)),
    ("melee", dict(ws=4, s=5, ap=5, t=2, sv=3, d=2, inv=1, attacks=6, models=None)),
    ("melee", dict(ws=3, s=6, ap=4, t=1, sv=0, d=1, inv=3, attacks=2, models=5, furious_charge=True,
                   charging_models=3)),
]


def _said(o) -> tuple[list, list[str]]:
    """An outcome's stages and the lines of its explain() that say them: one per stage, "Per ...", "With ..."."""
    lines = [x for x in o.explain().splitlines() if x.startswith(("To ", "Per ", "With "))]
    return [(s.name, s.probability, s.detail, s.faces) for s in o.stages], lines


@pytest.fixture()
def copied(tmp_path, monkeypatch):
    """rules/changes/ copied under the key my_changes, unchanged: a designer's new system."""
    import shutil
    from workbench import systems
    shutil.copytree(RULES / "changes", tmp_path / "my_changes")
    for part in ("shooting", "melee", "turn"):
        path = tmp_path / "my_changes" / f"{part}.toml"
        text = path.read_text(encoding="utf-8")
        assert text.count('key = "changes"') == 1
        path.write_text(text.replace('key = "changes"', 'key = "my_changes"'), encoding="utf-8")
    monkeypatch.setenv(systems.RULES_ENV, str(tmp_path))
    return systems.get("my_changes")


@pytest.mark.parametrize("function,kw", SAID)
def test_a_copy_of_the_folder_says_every_stage_as_the_built_in_does(copied, function, kw):
    """The built-in's stages are its files' (the engine's words after each stage's says), so an unchanged
    copy reads the same, stage by stage, in explain() and per attack, on both paths."""
    mine, theirs = getattr(copied, function)(**kw), getattr(changes, function)(**kw)
    stages, lines = _said(theirs)
    assert _said(mine) == (stages, lines)
    assert len(stages) == 3 and all(d.startswith(("BS ", "flat 4+ ", "WS ", "AP ", "S ")) and " a d12" in d
                                    for _, _, d, _ in stages)   # the file's says, then the engine's words
    assert lines[3].startswith("Per shot: " if function == "shooting" else "Per attack: ")
    assert lines[4].startswith(f"With {theirs.attacks} ")
    sampled = dict(kw, method="sampled", samples=2_000, seed=4)
    assert _said(getattr(copied, function)(**sampled))[0] == _said(getattr(changes, function)(**sampled))[0] == stages


def test_a_copys_volley_says_its_stages_and_each_units_as_the_built_in_does(copied):
    rs = rules.load_system(RULES / "changes").part("shooting")
    mine = rules.load_system(copied.path).part("shooting")
    units = [dict(bs=4, s=5, ap=5, shots=3, weapon="heavy", action="shot"), dict(bs=4, s=5, ap=5, shots=5)]
    target = dict(t=1, sv=2, cover=1, models=4, heavy_shot="flat_4", go_to_ground=True)
    alike = changes.volley([units[1], units[1]], **target)
    assert _said(alike)[0] == _said(mine.volley([units[1], units[1]], **target))[0] != []
    # the units' chances are alike (flat 4+ and BS 4+), their words not: no one stage speaks for both,
    # and each unit's stages are in the notes, in the file's words
    differ = changes.volley(units, **target)
    assert differ.stages == () == mine.volley(units, **target).stages
    for i, unit in enumerate(units):
        words = "; ".join(f"{s.name} {s.detail}" for s in rs.stages_at(**target, **unit))
        assert words == "; ".join(f"{s.name} {s.detail}" for s in mine.stages_at(**target, **unit))
        assert any(n.startswith(f"attackers[{i}]: {unit['shots']} shots; {words}; per shot ") for n in differ.notes)
    assert "flat 4+ (heavy weapon" in differ.notes[-2] and "BS 4+ against cover +3 (gone to ground)" in differ.notes[-1]


# -- the format: a chance over the unit size, left out for a unit without one --------------------
SIZED = """\
[system]
key = "sized"
name = "A chance over the unit size"
die = 6

[stats.skill]
min = 1
max = 7
default = 4

[stats.shots]
min = 0
max = 4
default = 3

[stats.models]
optional = true
min = 1
max = 5
default = 2

[stats.wounds]
min = 1
max = 3
default = 2

[attack]
count = "shots"

[[stages]]
name = "to hit"
target = "skill"
reroll = "ones"
critical = [6]
on_critical = "extra"

[removal]
models = "models"
wounds = "wounds"

[[chances]]
name = "destroyed"
label = "the whole unit is destroyed"
when = "removed >= models"

[[chances]]
name = "two_or_more"
label = "two or more hits"
when = "successes >= 2"
"""


def _sized_brute(skill: int, shots: int, models: int | None, wounds: int) -> tuple[list[Fraction], Fraction | None,
                                                                                    Fraction]:
    """Every face of every die: a d6 at ``skill``+ where a 1 is rolled again once and a 6 is two
    successes; each success one wound, ``wounds`` a model, capped at ``models``. Returns the pmf of
    models removed, P(destroyed) (None without a size) and P(2 or more successes)."""
    per: dict[int, Fraction] = {}
    for f in range(1, 7):
        for g in (range(1, 7) if f == 1 else [f]):
            w = Fraction(1, 6) * (Fraction(1, 6) if f == 1 else 1)
            k = 2 if g == 6 else int(g >= skill)
            per[k] = per.get(k, Fraction(0)) + w
    pmf: dict[int, Fraction] = {}
    destroyed, two = Fraction(0), Fraction(0)
    for ks in itertools.product(sorted(per), repeat=shots):
        p = Fraction(1)
        for k in ks:
            p *= per[k]
        hits = sum(ks)
        removed = hits // wounds if models is None else min(models, hits // wounds)
        pmf[removed] = pmf.get(removed, Fraction(0)) + p
        destroyed += p if models is not None and removed >= models else 0
        two += p if hits >= 2 else 0
    width = (models + 1) if models is not None else max(pmf) + 1
    return [pmf.get(i, Fraction(0)) for i in range(width)], (None if models is None else destroyed), two


def test_a_chance_over_the_unit_size_equals_a_brute_force_and_is_left_out_without_a_size():
    sysm = rules.loads(SIZED, "sized.toml")
    with_tally = rules.loads(SIZED.replace('on_critical = "extra"', 'on_critical = "extra"\ntally = "hits"'),
                             "tallied.toml")  # a tally sends every cell through the general path
    for skill, shots, models, wounds in itertools.product((1, 4, 7), (0, 1, 3), (None, 1, 3), (1, 2)):
        pmf, destroyed, two = _sized_brute(skill, shots, models, wounds)
        for s in (sysm, with_tally):
            o = s.attack(skill=skill, shots=shots, models=models, wounds=wounds)
            np.testing.assert_allclose(o.pmf[: len(pmf)], [float(x) for x in pmf], rtol=0, atol=TOL)
            assert not o.pmf[len(pmf):].any()
            assert o.effects["two_or_more"] == pytest.approx(float(two), abs=TOL)
            if models is None:
                assert "destroyed" not in o.effects
            else:
                assert o.effects["destroyed"] == pytest.approx(float(destroyed), abs=TOL)
    table = sysm.attack_table(skill=np.array([1, 4, 7]), shots=3, models=np.array([1, 3, 2]), wounds=2)
    for i, (skill, models) in enumerate(((1, 1), (4, 3), (7, 2))):
        pmf, destroyed, two = _sized_brute(skill, 3, models, 2)
        assert table["effects"]["destroyed"][i] == pytest.approx(float(destroyed), abs=TOL)
        assert table["effects"]["two_or_more"][i] == pytest.approx(float(two), abs=TOL)
    assert "destroyed" not in sysm.attack_table(skill=np.array([1, 4]), models=None)["effects"]


def test_a_chance_over_the_unit_size_is_sampled_within_5_standard_errors():
    sysm = rules.loads(SIZED, "sized.toml")
    n = 40_000
    for models in (1, 3, None):
        got = sysm.attack(skill=4, shots=3, models=models, wounds=1, method="sampled", samples=n, seed=3)
        pmf, destroyed, two = _sized_brute(4, 3, models, 1)
        want = np.array([float(x) for x in pmf])
        assert np.all(np.abs(got.pmf[: want.size] - want) <= 5 * np.sqrt(want * (1 - want) / n) + 1e-12)
        assert abs(got.effects["two_or_more"] - float(two)) <= 5 * np.sqrt(float(two) * (1 - float(two)) / n)
        if models is None:
            assert "destroyed" not in got.effects
        else:
            d = float(destroyed)
            assert abs(got.effects["destroyed"] - d) <= 5 * np.sqrt(d * (1 - d) / n) + 1e-12


@pytest.mark.parametrize("old, new, field", [
    ('when = "removed >= models"', 'when = "removed >= models + skill"', None),           # fine: the size and a stat
    ('when = "successes >= 2"', 'when = "successes >= 2 + (wounds if models else 0)"', None),
    ('models = "models"\nwounds', 'models = "min(models, 4)"\nwounds', "chances[0].when"),  # no size stat
])
def test_only_the_unit_size_stat_itself_may_be_read_by_a_chance(old, new, field):
    assert old in SIZED
    text = SIZED.replace(old, new, 1)
    if field is None:
        rules.loads(text, "ok.toml")
        return
    with pytest.raises(rules.RuleFileError) as exc:
        rules.loads(text, "bad.toml")
    assert exc.value.field == field


def test_a_chance_may_not_read_an_optional_stat_that_is_not_the_unit_size():
    text = SIZED.replace("[stats.wounds]\nmin = 1", "[stats.wounds]\noptional = true\nmin = 1").replace(
        'wounds = "wounds"', 'wounds = "2"').replace('when = "successes >= 2"', 'when = "successes >= wounds"')
    with pytest.raises(rules.RuleFileError) as exc:
        rules.loads(text, "bad.toml")
    assert exc.value.field == "chances[1].when" and "optional" in str(exc.value)


def test_ten_thousand_attacks_resolve_and_more_are_refused_by_name():
    big = SIZED.replace("max = 4\ndefault = 3", "max = 20000\ndefault = 3").replace(
        'critical = [6]\non_critical = "extra"\n', "")
    sysm = rules.loads(big, "big.toml")
    o = sysm.attack(skill=4, shots=10_000, models=None, wounds=1)
    assert o.mean == pytest.approx(10_000 * (Fraction(1, 6) * Fraction(3, 6) + Fraction(3, 6)), rel=1e-9)
    with pytest.raises(InputError) as exc:
        sysm.attack(skill=4, shots=10_001)
    assert exc.value.field == "attack.count"


# -- volleys: each unit's unsaved wounds from the rule file, added up before the fold ------------------
UNITS = [dict(bs=5, s=5, ap=5, shots=6), dict(bs=3, s=6, ap=4, shots=4, weapon="heavy", action="shot"),
         dict(bs=8, s=2, ap=9, shots=3, weapon="heavy"), dict(bs=4, s=4, ap=4, shots=0)]


def test_volleys_equal_the_reference():
    for n_units, (models, wounds), (t, sv, inv, cover), gtg, n12, n1, heavy_shot in itertools.product(
            (1, 2, 4), ((1, 1), (4, 2), (12, 3)), ((0, -1, 0, 2), (2, 3, 4, 0)), (False, True), (False, True),
            (False, True), ("bs_plus_4", "flat_4")):
        kw = dict(t=t, sv=sv, inv=inv, cover=cover, models=models, wounds=wounds, go_to_ground=gtg,
                  natural_12_always_succeeds=n12, natural_1_always_fails=n1, heavy_shot=heavy_shot)
        assert_same_outcome(changes.volley(UNITS[:n_units], **kw), ref.volley(UNITS[:n_units], **kw))
    snap = [dict(bs=4, s=5, ap=5, shots=5, action="snap", firer_gone_to_ground=True, firer_cover=fc)
            for fc in (-2, 1, 5)]
    for rule, evading in itertools.product(("same", "better"), (False, True)):
        kw = dict(t=1, sv=2, cover=3, models=5, wounds=2, firer_cover_rule=rule, evading=evading)
        assert_same_outcome(changes.volley(snap, **kw), ref.volley(snap, **kw))


def test_sampled_volley_agrees_with_the_reference_exact():
    n = 40_000
    kw = dict(t=2, sv=1, models=4, wounds=2)
    got = changes.volley(UNITS[:3], **kw, method="sampled", samples=n, seed=9)
    want = ref.volley(UNITS[:3], **kw)
    assert got.pmf.size == want.pmf.size and set(got.effects) == set(want.effects)
    assert np.all(np.abs(got.pmf - want.pmf) <= 5 * np.sqrt(want.pmf * (1 - want.pmf) / n) + 1e-12)
    for name in want.effects:
        if name == "destroyed":
            spread = np.sqrt(want.effects[name] * (1 - want.effects[name]) / n)
        else:
            spread = max(got.effects_stderr.get(name, 0.0), np.sqrt(abs(want.effects[name]) / n))
        assert abs(got.effects[name] - want.effects[name]) <= 5 * spread + 1e-12, name


@pytest.mark.parametrize("attackers, kw", [([dict(bs=5, s=5, ap=5, weapon="heavy", action="snap")], {}),
                                           ([dict(bs=5, s=5, ap=5)], dict(evading=True)),
                                           ([dict(bs=5, s=5, ap=5, shots=6000)] * 2, {}),
                                           ([dict(BS=5, s=5, ap=5)], {}), ([], {})])
def test_volley_errors_are_the_references(attackers, kw):
    with pytest.raises(InputError) as want:
        ref.volley(attackers, models=3, **kw)
    with pytest.raises(InputError) as got:
        changes.volley(attackers, models=3, **kw)
    assert str(got.value) == str(want.value)


# -- melee: the system's second file (rules/changes/melee.toml), keyed "changes" and listed nowhere ------------
FURIOUS = [dict(), dict(furious_charge=True, charging_models=3), dict(furious_charge=True, charging_models=0),
           dict(furious_charge=True, charging_models=4, blocked=True)]


def test_melee_stats_equal_the_reference():
    grid = itertools.product((1, 7, 13), (3, 9), (2, 11), (-3, 2), (-2, 5), (0, 3), (-1, 4),
                             ((None, 1), (3, 2), (None, 3)))
    for ws, s, ap, t, sv, inv, d, (models, wounds) in grid:
        kw = dict(ws=ws, s=s, ap=ap, t=t, sv=sv, inv=inv, d=d, attacks=6, models=models, wounds=wounds)
        assert_same_outcome(changes.melee(**kw), ref.melee(**kw))


def test_every_melee_switch_equals_the_reference():
    for extra, n12, n1, attacks, (models, wounds) in itertools.product(
            FURIOUS, (False, True), (False, True), (0, 1, 9), ((1, 1), (4, 3), (None, 2), (None, 1))):
        kw = dict(ws=6, s=4, ap=8, t=2, sv=3, d=1, inv=2, attacks=attacks, models=models, wounds=wounds,
                  natural_12_always_succeeds=n12, natural_1_always_fails=n1, **extra)
        assert_same_outcome(changes.melee(**kw), ref.melee(**kw))


@pytest.mark.parametrize("kw", [dict(attacks=1000, models=1000), dict(attacks=9990, furious_charge=True,
                                                                      charging_models=10),
                                dict(attacks=300, models=40, wounds=5, furious_charge=True, charging_models=20)])
def test_many_melee_attacks_equal_the_reference(kw):
    base = dict(ws=5, s=5, ap=5, d=2, t=2, sv=3)
    assert_same_outcome(changes.melee(**base, **kw), ref.melee(**base, **kw))


def test_melee_tables_equal_the_reference():
    kw = dict(ws=np.arange(1, 14)[:, None, None], s=5, ap=np.array([2, 6, 11])[None, :, None], t=1, sv=2,
              attacks=np.array([0, 4, 9])[None, None, :])
    for extra in (dict(models=5, wounds=2), dict(models=None), dict(models=None, wounds=np.array([1, 2, 3])),
                  dict(models=np.array([1, 3, 6])[None, None, :], wounds=3, natural_1_always_fails=True),
                  dict(d=np.array([-2, 1, 5])[None, :, None], inv=3, furious_charge=True,
                       charging_models=np.array([0, 2, 7]), models=4),
                  dict(furious_charge=True, blocked=True, charging_models=5, natural_12_always_succeeds=True)):
        _same_table(changes.melee_table(**kw, **extra), ref.melee_table(**kw, **extra))
    _same_table(changes.melee_table(ws=np.array(4), s=[3, 8], ap=5, models=[2, 9]),
                ref.melee_table(ws=np.array(4), s=[3, 8], ap=5, models=[2, 9]))


@pytest.mark.parametrize("kw", [dict(ws=5, s=5, ap=5, d=2, t=2, sv=3, attacks=10, models=5),
                                dict(ws=3, s=4, ap=6, attacks=5, wounds=2, furious_charge=True, charging_models=3),
                                dict(ws=6, s=3, ap=4, inv=1, attacks=7, models=3, wounds=2, furious_charge=True,
                                     blocked=True, natural_12_always_succeeds=True, natural_1_always_fails=True)])
def test_sampled_melee_agrees_with_the_reference_exact(kw):
    n = 40_000
    got = changes.melee(**kw, method="sampled", samples=n, seed=5)
    want = ref.melee(**kw)
    _sampled_agrees(got, want, n)
    assert got.attacks == want.attacks and got.notes == want.notes
    assert got.effects["free_attacks"] == want.effects["free_attacks"]


@pytest.mark.parametrize("kw", [dict(blocked=True), dict(ws=14), dict(attacks=10_001), dict(models=0),
                                dict(wounds=101), dict(d="+2"), dict(s=None), dict(charging_models=-1),
                                dict(furious_charge="yes"),
                                dict(attacks=9_999, furious_charge=True, charging_models=2)])
def test_melee_errors_are_the_references(kw):
    # the file refuses a block without a Furious Charge too (a designer's copy keeps the rule)
    _same_refusal("melee", dict(dict(ws=4, s=4, ap=4), **kw), "changes/melee.toml" if kw == dict(blocked=True) else None)


def test_a_sampled_melee_past_the_engines_budget_is_refused_at_once_naming_samples():
    """Melee's dice are rolled by its rule file's engine, so the engine's sampled budget bounds it, free
    attacks included, before any die is rolled."""
    with pytest.raises(InputError) as exc:
        changes.melee(ws=5, s=5, ap=5, attacks=5, furious_charge=True, charging_models=5, method="sampled",
                      samples=50_000_000)
    assert exc.value.field == "samples" and "60,000,000 dice and successes" in str(exc.value)
    ok = changes.melee(ws=5, s=5, ap=5, attacks=10, method="sampled", samples=1000, seed=1)
    assert ok.pmf.sum() == pytest.approx(1.0)


def test_melee_stage_pmfs_are_hits_pierced_and_wounds_by_brute_force():
    """Every face of one attack's three dice (itertools) at WS + max(D, Inv), AP + Sv and S + T, then the
    attacks and Furious Charge's free attacks added up in Fractions."""
    for kw, n12, n1 in ((dict(ws=5, s=5, ap=5, t=2, sv=3, d=1), False, False),
                        (dict(ws=2, s=9, ap=4, d=1, inv=3, furious_charge=True, charging_models=2), True, False),
                        (dict(ws=4, s=3, ap=1, d=-3, furious_charge=True, charging_models=2, blocked=True), False, True)):
        targets = (kw["ws"] + max(kw["d"], kw.get("inv", 0)), kw["ap"] + kw.get("sv", 0), kw["s"] + kw.get("t", 0))
        attacks = 3 + (kw.get("charging_models", 0) if kw.get("furious_charge") and not kw.get("blocked") else 0)
        total = _stage_totals(targets, attacks, n12, n1)
        o = changes.melee(**kw, attacks=3, models=4, natural_12_always_succeeds=n12, natural_1_always_fails=n1)
        assert o.attacks == attacks
        _stage_pmfs_are(o, total, attacks)
        removed = [Fraction(0)] * 5
        for k, p in total.items():
            removed[min(4, k[2])] += p
        np.testing.assert_allclose(o.pmf, [float(x) for x in removed], rtol=0, atol=TOL)


def test_the_melee_file_is_changes_own_and_listed_nowhere():
    """rules/changes/melee.toml, a part of the folder rules/changes/ keyed "changes": the registry counts the
    folder as the built-in's own, so no list (systems, broken files, served rule pages) shows a second
    Changes; a copy under a new key is a new system (tests/test_rule_folders.py)."""
    from workbench import systems
    assert rules.load(RULES / "changes" / "melee.toml").key == "changes"
    assert rules.load_system(RULES / "changes").functions == ("shooting", "melee")
    assert systems.keys().count("changes") == 1 and systems.broken() == ()
    assert systems.get("changes").module is changes
    shipped = (RULES / "changes", RULES / "changes" / "melee.toml", RULES / "changes" / "shooting.toml")
    assert all(getattr(systems.get(k), "path", None) not in shipped for k in systems.keys())
