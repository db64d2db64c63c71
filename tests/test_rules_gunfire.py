"""``workbench.systems.gunfire.shooting`` and ``shooting_table`` resolve through
the system's rule file (rules/gunfire.toml) and equal the hand-written
reference resolver (tests/reference/gunfire.py) over stat grids and every
switch (die, base, the natural max / natural 1 variants, Explosive, units
without a size, the suppression fraction): every probability of the removed
count and every effect to 1e-12, the same stages, notes and inputs; sampled
within 5 standard errors. A copy of the file under another key says what the
built-in says: the same stages, stage lines and "Per shot" / "With N shots"
lines. A stage's die chosen by a stat (the format's ``die = "expression"``) is
checked against a brute force over every face."""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest

from pmfcheck import assert_same_outcome
from reference import gunfire as ref
from workbench import rules
from workbench.errors import InputError
from workbench.systems import gunfire

RULES = Path(__file__).resolve().parents[1] / "rules"
TOL = 1e-12
EFFECTS = ("suppressed", "hits", "penetrating_hits")


def test_opposed_tests_and_division_equal_the_reference():
    for bs, ev, ap, av, s, t, models in product((0, 3, 8), (1, 4, 12), (2, 5), (0, 6), (0, 5), (1, 3),
                                                (None, 4)):
        kw = dict(bs=bs, ev=ev, ap=ap, av=av, s=s, t=t, shots=5, models=models)
        assert_same_outcome(gunfire.shooting(**kw), ref.shooting(**kw))


#: the weapon and unit settings each combination of the switches is tried with (in turn)
SETTINGS = [dict(explosive=None, suppression_fraction=0.1, models=None, hit_mod=0, pen_mod=0),
            dict(explosive=3, suppression_fraction=0.5, models=7, hit_mod=4, pen_mod=-1),
            dict(explosive=1, suppression_fraction=1.0, models=1, hit_mod=-3, pen_mod=2),
            dict(explosive=None, suppression_fraction=0.25, models=7, hit_mod=0, pen_mod=5)]


def test_every_switch_equals_the_reference():
    for i, (die, base, nmax, n1) in enumerate(product(gunfire.DICE, (-2, 6, 15), (False, True), (False, True))):
        for extra in (SETTINGS[i % 4], SETTINGS[(i + 1) % 4]):
            kw = dict(bs=4, ev=3, ap=3, av=5, s=6, t=2, shots=6, die=die, base=base, natural_max_always_succeeds=nmax,
                      natural_1_always_fails=n1, **extra)
            assert_same_outcome(gunfire.shooting(**kw), ref.shooting(**kw))


def test_many_shots_equal_the_reference():
    for shots, models in ((60, 40), (200, None), (1000, 1000)):
        kw = dict(bs=4, ev=3, ap=3, av=3, s=1, t=1, shots=shots, models=models, suppression_fraction=0.3)
        assert_same_outcome(gunfire.shooting(**kw), ref.shooting(**kw))


def test_tables_equal_the_reference():
    kw = dict(bs=np.arange(0, 11)[:, None, None], ev=3, ap=np.array([1, 4, 9])[None, :, None], av=3,
              s=np.array([1, 2, 5])[None, None, :], t=2, shots=np.array([1, 4, 7])[None, None, :])
    for extra in (dict(models=5, explosive=2, suppression_fraction=0.5), dict(models=None),
                  dict(models=np.array([1, 3, 6])[None, None, :], die=6, base=4, natural_1_always_fails=True)):
        want, got = ref.shooting_table(**kw, **extra), gunfire.shooting_table(**kw, **extra)
        assert got["pmf"].shape == want["pmf"].shape
        np.testing.assert_allclose(got["pmf"], want["pmf"], rtol=0, atol=TOL)
        for name in EFFECTS:
            np.testing.assert_allclose(got["effects"][name], want["effects"][name], rtol=0, atol=TOL)


def test_sampled_shooting_agrees_with_the_reference_exact():
    n = 40_000
    for kw in (dict(bs=4, ev=3, ap=3, av=3, s=1, t=1, shots=10, models=10),
               dict(bs=2, ev=4, ap=5, av=3, s=3, t=2, shots=6, die=6, base=4, explosive=2,
                    natural_max_always_succeeds=True),
               dict(bs=5, ev=3, ap=3, av=6, s=1, t=3, shots=8, suppression_fraction=0.5, models=4, die=20)):
        got = gunfire.shooting(**kw, method="sampled", samples=n, seed=4)
        want = ref.shooting(**kw)
        assert got.pmf.size == want.pmf.size and got.stages == want.stages
        assert np.all(np.abs(got.pmf - want.pmf) <= 5 * np.sqrt(want.pmf * (1 - want.pmf) / n) + 1e-12)
        for name in EFFECTS:
            spread = max(got.effects_stderr[name], np.sqrt(want.effects[name] * max(0.0, 1 - want.effects[name]) / n)
                         if name == "suppressed" else 0.0)
            assert abs(got.effects[name] - want.effects[name]) <= 5 * spread + 1e-12, name


def test_a_die_outside_the_switch_is_refused_by_name():
    with pytest.raises(InputError, match=r"die: expected one of 6, 8, 10, 12, 20, got 7"):
        gunfire.shooting(bs=4, ev=3, ap=3, av=3, s=1, t=1, die=7)



# -- a copy of the file says what the built-in says ---------------------------------------------
#: the built-in's arguments; each switch that changes a stage's words is set in one of them (a modifier
#: of either sign, the highest face, a natural 1, both, a roll out of reach, every roll passing)
WORDED = [dict(bs=4, ev=3, ap=3, av=3, s=1, t=1, shots=10),
          dict(bs=3, ev=3, ap=4, av=3, s=1, t=2, shots=6, models=7, hit_mod=2, pen_mod=-1),
          dict(bs=0, ev=12, ap=3, av=5, s=6, t=2, shots=4, die=6, base=4, explosive=3,
               natural_max_always_succeeds=True),
          dict(bs=12, ev=0, ap=2, av=2, s=1, t=3, shots=5, models=5, die=20, natural_1_always_fails=True),
          dict(bs=5, ev=4, ap=1, av=6, s=2, t=2, shots=3, die=12, base=9, hit_mod=-3, pen_mod=4,
               natural_max_always_succeeds=True, natural_1_always_fails=True),
          dict(bs=0, ev=12, ap=20, av=0, s=1, t=1, shots=2, die=8)]


def _file_stats(kw: dict) -> dict:
    """The built-in's arguments as the file's stats: a die by its option's name, Explosive None as 1."""
    return dict(kw, die=f"d{kw.get('die', gunfire.DIE)}", explosive=kw.get("explosive") or 1)


def _said(o) -> list[str]:
    """An outcome's explain() lines of its stages and of one attack and all of them ("Per shot",
    "With 6 shots")."""
    heads = tuple(f"{s.name[0].upper()}{s.name[1:]}:" for s in o.stages) + ("Per ", "With ")
    return [line for line in o.explain().splitlines() if line.startswith(heads)]


@pytest.fixture()
def copied(tmp_path, monkeypatch):
    """rules/gunfire.toml as a designer copies it, under the key my_gunfire, loaded from WORKBENCH_RULES."""
    from workbench import systems
    text = (RULES / "gunfire.toml").read_text(encoding="utf-8")
    assert text.count('key = "gunfire"') == 1
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "my_gunfire.toml").write_text(text.replace('key = "gunfire"', 'key = "my_gunfire"'), encoding="utf-8")
    monkeypatch.setenv(systems.RULES_ENV, str(mine))
    assert systems.broken() == ()
    return systems.get("my_gunfire")


@pytest.mark.parametrize("kw", WORDED, ids=[str(i) for i in range(len(WORDED))])
def test_a_copy_of_the_file_says_what_the_builtin_says(copied, kw):
    """The built-in's stages are its file's (their says and the engine's words): a copy under another
    key shows the same stages, stage lines and "Per shot" / "With N shots" lines."""
    builtin, copy = gunfire.shooting(**kw), copied.attack(**_file_stats(kw))
    assert [s.detail for s in builtin.stages] == [s.detail for s in copy.stages]
    assert builtin.stages == copy.stages
    lines = _said(builtin)
    assert len(lines) == 4 and lines[2].startswith("Per shot:") and lines[3].startswith(f"With {kw['shots']} shots:")
    assert lines == _said(copy)


def test_a_copy_says_what_the_builtin_says_when_sampled(copied):
    kw = dict(WORDED[1], method="sampled", samples=4_000, seed=3)
    builtin, copy = gunfire.shooting(**kw), copied.attack(**_file_stats(kw))
    assert builtin.stages == copy.stages and _said(builtin) == _said(copy) and len(_said(copy)) == 4



def test_a_copy_words_each_stages_passes_as_the_hits_they_are(copied):
    """A copy's side effects hold each stage's passes beside the tallies: the file words them as hits."""
    (line,) = [x for x in copied.attack().explain().splitlines() if x.startswith("Side effects:")]
    assert "expected to hit" not in line and "expected to penetrate" not in line
    assert line.count("expected hits: 6.000") == 2 and line.count("expected hits that penetrate: 3.000") == 2


# -- the format: a stage's die chosen by a stat ------------------------------------------------
SWITCHED = """\
[system]
key = "switched"
name = "A die switch"
die = 6

[stats.die]
options = { d4 = 4, d6 = 6, d8 = 8 }
default = "d6"

[stats.skill]
min = 1
max = 8
default = 3

[stats.shots]
min = 0
max = 3
default = 2

[attack]
count = "shots"

[[stages]]
name = "to hit"
die = "die"
target = "skill"
always_fail = [1]
reroll = "ones"

[[stages]]
name = "to wound"
die = "die - 2"
target = "3"
critical = [2]
on_critical = "extra"

[removal]
models = "3"
"""


def _brute(die: int, skill: int, shots: int) -> list[Fraction]:
    """Every face of every die: to hit on a d``die`` (a 1 fails and is rolled again once), to wound on
    a d(``die`` - 2) at 3+ where a 2 is a critical success that is one more success."""
    def one_hit():
        out: dict[int, Fraction] = {}
        for f in range(1, die + 1):
            for g in (range(1, die + 1) if f == 1 else [f]):
                w = Fraction(1, die) * (Fraction(1, die) if f == 1 else 1)
                ok = g != 1 and g >= skill
                out[ok] = out.get(ok, 0) + w
        return out[True] if True in out else Fraction(0)

    p_hit, wd = one_hit(), die - 2
    per = {0: 1 - p_hit, 1: Fraction(0), 2: Fraction(0)}
    for f in range(1, wd + 1):
        k = 2 if f == 2 else int(f >= 3)
        per[k] += p_hit * Fraction(1, wd)
    dist = {0: Fraction(1)}
    for _ in range(shots):
        new: dict[int, Fraction] = {}
        for a, pa in dist.items():
            for b, pb in per.items():
                new[a + b] = new.get(a + b, 0) + pa * pb
        dist = new
    pmf = [Fraction(0)] * 4
    for k, p in dist.items():
        pmf[min(k, 3)] += p
    return pmf


def test_a_stage_die_chosen_by_a_stat_equals_a_brute_force():
    sysm = rules.loads(SWITCHED, "switched.toml")
    for die, skill, shots in product(("d4", "d6", "d8"), (1, 3, 6, 8), (0, 1, 3)):
        sides = int(die[1:])
        want = [float(x) for x in _brute(sides, skill, shots)]
        np.testing.assert_allclose(sysm.attack(die=die, skill=skill, shots=shots).pmf, want, rtol=0, atol=TOL)
        o = sysm.attack(die=die, skill=skill, shots=shots)
        assert [s.faces for s in o.stages] == [sides, sides - 2]
        assert f"a d{sides}" in o.stages[0].detail and f"a d{sides - 2}" in o.stages[1].detail
    table = sysm.attack_table(die="d8", skill=np.array([1, 5, 8]), shots=3)
    for i, skill in enumerate((1, 5, 8)):
        np.testing.assert_allclose(table["pmf"][i], [float(x) for x in _brute(8, skill, 3)], rtol=0, atol=TOL)


def test_a_stage_die_chosen_by_a_stat_is_sampled_with_that_die():
    sysm = rules.loads(SWITCHED, "switched.toml")
    n = 40_000
    for die in ("d4", "d8"):
        got = sysm.attack(die=die, skill=4, shots=3, method="sampled", samples=n, seed=2)
        want = np.array([float(x) for x in _brute(int(die[1:]), 4, 3)])
        assert np.all(np.abs(got.pmf - want) <= 5 * np.sqrt(want * (1 - want) / n) + 1e-12)


def test_a_die_switch_that_cannot_hold_a_stages_faces_is_refused_by_name():
    text = SWITCHED.replace('options = { d4 = 4, d6 = 6, d8 = 8 }', 'options = { d2 = 2, d6 = 6 }') \
                   .replace('target = "skill"\nalways_fail = [1]', 'target = "skill"\nalways_fail = [5]')
    sysm = rules.loads(text, "small.toml")
    with pytest.raises(InputError, match=r"stages\[0\]\.die: expected a die with face 5"):
        sysm.attack(die="d2")
    with pytest.raises(InputError, match=r"stages\[1\]\.die: expected faces of a die from 2 to 100"):
        rules.loads(text.replace('always_fail = [5]', 'always_fail = [1]'), "small.toml").attack(die="d2")


@pytest.mark.parametrize("kw", [dict(bs=4, ev=3, ap=3, av=5), dict(bs=2, ev=6, ap=6, av=1, die=6, base=4,
                                                                  natural_max_always_succeeds=True)])
def test_stage_pmfs_are_the_hits_and_penetrating_hits_by_brute_force(kw):
    die, base, nmax = kw.get("die", 10), kw.get("base", 6), kw.get("natural_max_always_succeeds", False)

    def ok(face: int, attacker: int, defender: int) -> bool:
        return (nmax and face == die) or face >= base + defender - attacker

    shots = 2 if die > 6 else 3
    want = {"to hit": [Fraction(0)] * (shots + 1), "to penetrate": [Fraction(0)] * (shots + 1)}
    for faces in product(range(1, die + 1), repeat=2 * shots):
        hits = [ok(faces[2 * i], kw["bs"], kw["ev"]) for i in range(shots)]
        pens = [h and ok(faces[2 * i + 1], kw["ap"], kw["av"]) for i, h in enumerate(hits)]
        want["to hit"][sum(hits)] += Fraction(1, die ** (2 * shots))
        want["to penetrate"][sum(pens)] += Fraction(1, die ** (2 * shots))
    o = gunfire.shooting(**kw, s=1, t=1, shots=shots, models=2)
    assert set(o.stage_pmfs) == set(want)
    for name, pmf in want.items():
        got = np.asarray(o.stage_pmfs[name])
        assert not got[shots + 1:].any()
        np.testing.assert_allclose(got[: shots + 1], [float(x) for x in pmf], rtol=0, atol=TOL)


def test_two_nested_counts_over_many_attacks_equal_the_repeated_convolution():
    """The joint distribution of a count and one inside it (hits and penetrating hits): the closed
    form (a binomial, then a binomial of it) equals convolving one attack's distribution."""
    from workbench.rules import tally
    rng = np.random.default_rng(3)
    h = rng.random((3, 2, 2))
    h[:, 0, 1] = 0.0                      # the second count never without the first
    h /= h.sum(axis=(1, 2), keepdims=True)
    count = np.array([0, 5, 30])
    want = np.zeros((3, 31, 31))
    for c in range(3):
        p = np.ones((1, 1))
        for _ in range(int(count[c])):
            q = np.zeros((p.shape[0] + 1, p.shape[1] + 1))
            for i, j in ((0, 0), (1, 0), (1, 1)):
                q[i: i + p.shape[0], j: j + p.shape[1]] += h[c, i, j] * p
            p = q
        want[c, : p.shape[0], : p.shape[1]] = p
    np.testing.assert_allclose(tally._nested_power(h, count), want, rtol=0, atol=TOL)
    flipped = np.swapaxes(h, 1, 2).copy()  # the first count inside the second
    np.testing.assert_allclose(tally._nested_power(flipped, count), np.swapaxes(want, 1, 2), rtol=0, atol=TOL)
