"""``workbench.systems.antares.shooting`` and ``shooting_table`` resolve through
the system's rule file (rules/antares.toml) and equal the hand-written
reference resolver (tests/reference/antares.py) over stat grids, with and
without the critical variant, blast weapons and units without a size
included: every probability of the removed count and every effect to 1e-12,
the same stages (Fractions and words), notes, inputs and attacks; sampled
within 5 standard errors of the reference's exact numbers. A copy of the file
under another key, run by the engine alone, says what the built-in says: its
stages, and explain()'s stage, per-shot and totals lines."""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest

from pmfcheck import assert_same_outcome
from reference import antares as ref
from workbench import rules
from workbench.systems import antares

FILE = Path(__file__).resolve().parents[1] / "rules" / "antares.toml"
TOL = 1e-12
EFFECTS = ("hits", "critical_hits", "any_critical")


@pytest.fixture(scope="module")
def system():
    return rules.load(FILE)


@pytest.mark.parametrize("variant", [False, True])
def test_the_table_equals_the_reference_over_a_stat_grid(variant):
    axes = dict(acc=np.arange(0, 13), res=np.arange(0, 13), sv=np.array([0, 1, 4]), armour=np.array([0, 2]),
                cover=np.array([0, 1]), acc_mod=np.array([-3, 0, 2]), shots=np.array([1, 4, 9]),
                models=np.array([1, 3, 10]))
    grids = np.meshgrid(*axes.values(), indexing="ij")
    flat = {k: g.ravel() for k, g in zip(axes, grids)}
    for kw in (flat, {k: x for k, x in flat.items() if k != "models"}):  # and a unit without a size
        want = ref.shooting_table(**kw, critical_ignores_res=variant)
        got = antares.shooting_table(**kw, critical_ignores_res=variant)
        assert got["pmf"].shape == want["pmf"].shape
        np.testing.assert_allclose(got["pmf"], want["pmf"], rtol=0, atol=TOL)
        assert set(got["effects"]) == set(want["effects"])
        for name in EFFECTS:
            np.testing.assert_allclose(got["effects"][name], want["effects"][name], rtol=0, atol=1e-10)


def test_a_table_of_broadcast_grids_equals_the_reference():
    kw = dict(acc=np.arange(0, 11)[:, None, None], res=np.array([0, 4, 9])[None, :, None],
              shots=np.array([1, 3, 8])[None, None, :], sv=1)
    for models in (None, 5, np.array([1, 2, 9])[None, None, :]):
        want, got = ref.shooting_table(**kw, models=models), antares.shooting_table(**kw, models=models)
        assert got["pmf"].shape == want["pmf"].shape
        np.testing.assert_allclose(got["pmf"], want["pmf"], rtol=0, atol=TOL)


def test_shooting_equals_the_reference_over_stats_and_switches():
    for acc, res, sv, acc_mod, shots, models, variant in product(range(0, 12, 3), (0, 5, 11), (0, 3), (-2, 3),
                                                                 (1, 7), (None, 4), (False, True)):
        kw = dict(acc=acc, res=res, sv=sv, acc_mod=acc_mod, shots=shots, models=models,
                  critical_ignores_res=variant, armour=1, cover=acc % 3)
        assert_same_outcome(antares.shooting(**kw), ref.shooting(**kw))


@pytest.mark.parametrize("blast", ["D3", "D4", "D5", "D6", "D8", "D12"])
def test_blast_weapons_equal_the_reference(blast):
    for acc, mod, res, sv, models, variant in product((0, 2, 6, 11), (-2, 0), (0, 9), (2,), (1, None),
                                                      (False, True)):
        kw = dict(acc=acc, acc_mod=mod, res=res, sv=sv, models=models, critical_ignores_res=variant, shots=blast)
        assert_same_outcome(antares.shooting(**kw), ref.shooting(**kw))


def _within(got, want, n: int) -> None:
    """The sampled ``got`` within 5 standard errors of the exact ``want``."""
    assert got.pmf.size <= want.pmf.size
    pe, ps = want.pmf, np.zeros(want.pmf.size)
    ps[: got.pmf.size] = got.pmf
    assert np.all(np.abs(ps - pe) <= 5 * np.sqrt(pe * (1 - pe) / n) + 1e-12)
    for name in EFFECTS:
        assert abs(got.effects[name] - want.effects[name]) <= 5 * got.effects_stderr[name] + 1e-12, name
    assert got.stages == want.stages and got.method == "sampled" and got.samples == n


def test_sampled_shooting_agrees_with_the_reference_exact():
    n = 40_000
    for kw in (dict(acc=5, res=5, sv=1, shots=10, models=10, critical_ignores_res=True),
               dict(acc=0, res=0, sv=0, shots=3, models=3), dict(acc=7, res=2, shots=6),
               dict(acc=6, res=3, sv=1, shots="D8", models=5)):
        _within(antares.shooting(**kw, method="sampled", samples=n, seed=4), ref.shooting(**kw), n)


def test_the_file_is_the_system_and_a_dashboard_key(system):
    assert system.key == "antares" and system.name == antares.NAME
    got = system.attack(acc=4, res=6, sv=2, blast="D6", models=3)
    want = ref.shooting(acc=4, res=6, sv=2, shots="D6", models=3)
    np.testing.assert_allclose(got.pmf[: want.pmf.size], want.pmf, rtol=0, atol=TOL)
    assert not got.pmf[want.pmf.size:].any()


def test_stage_words_say_the_roll_under_rules(system):
    low = system.attack(acc=0, res=5, sv=0)
    assert "needs a 1 then another 1" in low.stages[0].detail
    assert "no critical" in system.attack(acc=1, res=5).stages[0].detail
    assert "critical success" in system.attack(acc=5, res=5).stages[0].detail
    assert "_" not in low.stages[0].detail and "None" not in low.stages[0].detail


def _one_shot(acc: int, res: int, variant: bool) -> dict[tuple[int, int], Fraction]:
    """Every face of a shot's dice (the hit die and its second die, the Res die and its second die):
    P(hit, model removed)."""
    def test(value: int, f1: int, f2: int) -> bool:
        if f1 == 10:
            return False
        return f1 <= value if value >= 1 else (f1 == 1 and f2 == 1)

    out: dict[tuple[int, int], Fraction] = {}
    for f1, f2, g1, g2 in product(range(1, 11), repeat=4):
        hit = test(acc, f1, f2)
        crit = hit and f1 == 1 and acc >= 2
        removed = hit and ((crit and variant) or not test(res, g1, g2))
        key = (int(hit), int(removed))
        out[key] = out.get(key, Fraction(0)) + Fraction(1, 10 ** 4)
    return out


@pytest.mark.parametrize("acc, res, variant", [(5, 4, False), (5, 4, True), (0, 9, False), (11, 0, True)])
def test_stage_pmfs_are_the_counts_passing_each_stage_by_brute_force(acc, res, variant):
    shots = 3
    per = _one_shot(acc, res, variant)
    want = {"to hit": [Fraction(0)] * (shots + 1), "Res test": [Fraction(0)] * (shots + 1)}
    for combo in product(per, repeat=shots):
        p = Fraction(1)
        for key in combo:
            p *= per[key]
        want["to hit"][sum(h for h, _ in combo)] += p
        want["Res test"][sum(r for _, r in combo)] += p
    o = antares.shooting(acc=acc, res=res, shots=shots, critical_ignores_res=variant)
    assert set(o.stage_pmfs) == set(want)
    for name, pmf in want.items():
        got = np.asarray(o.stage_pmfs[name])
        assert not got[shots + 1:].any()
        np.testing.assert_allclose(got[: shots + 1], [float(x) for x in pmf], rtol=0, atol=TOL)


# -- a volley of mixed weapons: the file's [volley] against the hand-written convolution and cap ----------------
WEAPONS = [dict(acc=5, sv=1, shots=3, name="carbines"), dict(acc=7, sv=4, acc_mod=-2, shots="D3"),
           dict(acc=0, sv=0, shots=2), dict(acc=11, sv=2, acc_mod=1, shots="D8")]


def test_volleys_equal_the_reference_over_stats_and_switches():
    for n, res, armour, cover, models, variant in product((1, 2, 4), (0, 5, 11), (0, 2), (0, 1), (None, 1, 4, 30),
                                                          (False, True)):
        kw = dict(res=res, armour=armour, cover=cover, models=models, critical_ignores_res=variant)
        assert_same_outcome(antares.volley(WEAPONS[:n], **kw), ref.volley(WEAPONS[:n], **kw))
    same = [dict(acc=6, sv=1, shots=2), dict(acc=6, sv=1, shots=5)]   # one set of stages: the outcome keeps them
    got = antares.volley(same, res=4, models=3)
    assert got.stages and got.attacks == 7
    assert_same_outcome(got, ref.volley(same, res=4, models=3))


def test_sampled_volley_agrees_with_the_reference_exact():
    n = 40_000
    for weapons, kw in ((WEAPONS[:2], dict(res=5, models=3, critical_ignores_res=True)),
                        (WEAPONS, dict(res=2, armour=1))):
        got = antares.volley(weapons, **kw, method="sampled", samples=n, seed=8)
        want = ref.volley(weapons, **kw)
        assert got.pmf.size <= want.pmf.size and set(got.effects) == set(want.effects)
        ps = np.zeros(want.pmf.size)
        ps[: got.pmf.size] = got.pmf
        assert np.all(np.abs(ps - want.pmf) <= 5 * np.sqrt(want.pmf * (1 - want.pmf) / n) + 1e-12)
        for name in want.effects:
            spread = max(got.effects_stderr[name], np.sqrt(abs(want.effects[name]) / n))
            assert abs(got.effects[name] - want.effects[name]) <= 5 * spread + 1e-12, name


@pytest.mark.parametrize("weapons, kw", [([dict(acc=5, shots="D7")], dict(res=5)), ([dict(sv=1)], dict(res=5)),
                                         ([dict(acc=5, SV=1)], dict(res=5)), ([], dict(res=5)),
                                         ([dict(acc=5, shots=600)] * 2, dict(res=5)),
                                         ([dict(acc=5)], dict(res=5, models=0))])
def test_volley_errors_are_the_references(weapons, kw):
    with pytest.raises(Exception) as want:
        ref.volley(weapons, **kw)
    with pytest.raises(type(want.value)) as got:
        antares.volley(weapons, **kw)
    assert str(got.value) == str(want.value)


# -- a copy of the file under another key says what the built-in says ----------------------------------------
#: stat sets that change the words: the defaults, each modifier, criticals possible or not, the variant, a
#: blast weapon, a unit's size, and Acc and Res at the roll-under extremes (below 1: a 1 then another 1;
#: 10 and over: only a 10 fails)
SAID = [dict(acc=5, res=5, sv=1, shots=10),
        dict(acc=5, res=5, sv=1, armour=1, cover=2, acc_mod=2, shots=4, models=3),
        dict(acc=3, res=6, sv=3, acc_mod=-4, shots=2),
        dict(acc=1, res=12, sv=0, shots=3),
        dict(acc=0, res=0, sv=2, shots=3),
        dict(acc=12, res=9, sv=0, cover=3, shots=5, critical_ignores_res=True),
        dict(acc=7, res=4, armour=2, sv=1, acc_mod=1, shots=6, critical_ignores_res=True),
        dict(acc=6, res=3, sv=1, blast="D6", models=5),
        dict(acc=2, res=10, sv=0, blast="D3", critical_ignores_res=True)]


@pytest.fixture()
def copied(tmp_path, monkeypatch):
    """The built-in's file copied under the key "my_antares" into a designer's folder (WORKBENCH_RULES):
    the copy's description, resolved by the engine alone."""
    from workbench import systems
    text = FILE.read_text(encoding="utf-8").replace('key = "antares"', 'key = "my_antares"', 1)
    assert 'key = "my_antares"' in text
    (tmp_path / "my_antares.toml").write_text(text, encoding="utf-8")
    monkeypatch.setenv(systems.RULES_ENV, str(tmp_path))
    assert systems.broken() == ()
    return systems.get("my_antares")


def _said_lines(o) -> list[str]:
    """explain()'s lines of the stages, the shot and the shots: from the first stage to the totals."""
    lines = o.explain().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(o.stages[0].name[:1].upper()))
    last = next(i for i, line in enumerate(lines) if line.startswith(("With ", "In all")))
    return lines[first:last + 1]


@pytest.mark.parametrize("stats", SAID, ids=[str(i) for i in range(len(SAID))])
def test_a_copy_of_the_file_says_what_the_builtin_says(copied, stats):
    stats = dict({"models": None}, **stats)   # the built-in's unit has no size unless given
    kw = {("shots" if k == "blast" else k): x for k, x in stats.items()}
    builtin = antares.shooting(**kw)
    copy = copied.function("attack")(**stats)
    assert [(s.name, s.probability, s.detail, s.faces) for s in copy.stages] == \
        [(s.name, s.probability, s.detail, s.faces) for s in builtin.stages]
    assert _said_lines(copy) == _said_lines(builtin)
    assert any(line.startswith("Per shot: ") for line in _said_lines(builtin))
    # the file's own words are there: what the roll is made against
    assert builtin.stages[0].detail.startswith(f"Acc {stats['acc']}")
    assert builtin.stages[1].detail.startswith(f"Res {stats['res']} + armour {stats.get('armour', 0)}")


def test_a_copy_of_the_file_says_what_the_builtin_volley_says(copied):
    weapons = [dict(acc=6, sv=1, acc_mod=-1, shots=2), dict(acc=6, sv=1, acc_mod=-1, shots=5)]
    builtin = antares.volley(weapons, res=4, armour=1, models=3, critical_ignores_res=True)
    copy = copied.module.volley(weapons, res=4, armour=1, models=3, critical_ignores_res=True)
    assert builtin.stages and copy.stages == builtin.stages
    assert _said_lines(copy) == _said_lines(builtin)


def test_the_page_quotes_the_reference_matchup_as_explain_says_it():
    page = (FILE.parents[1] / "docs" / "rules" / "antares.md").read_text(encoding="utf-8")
    quoted = page.split("so that a copy of the file reads as the\nbuilt-in does:\n\n```\n", 1)[1].split("```", 1)[0]
    assert quoted.splitlines() == _said_lines(antares.shooting(acc=5, res=5, sv=1, shots=10))[:3]


def _shot_by_brute_force(acc: int, res: int) -> Fraction:
    """P(one shot removes a model), every face of both d10s counted: a hit on a roll of acc or under
    (a 10 always fails; acc of 1 or more here), then a failed Res test, a roll over res (a 10 always
    fails the test: res of 1 to 9 here)."""
    faces = range(1, 11)
    return Fraction(sum(1 for h, r in product(faces, faces) if h <= acc and h != 10 and (r > res or r == 10)), 100)


@pytest.mark.parametrize("method", ["exact", "sampled"])
@pytest.mark.parametrize("blast, acc, res", [("D6", 5, 4), ("D3", 8, 2), ("D12", 3, 7)])
def test_a_blast_says_what_one_shot_does_and_how_many_shots_it_fires(blast, acc, res, method):
    # a blast weapon fires once and rolls how many shots: the stages and 'Per shot' say one shot, and the
    # totals the blast's 1 to N shots; its mean is one shot's chance times (N + 1) / 2
    n = antares.BLAST_DICE[blast][0]
    o = antares.shooting(acc=acc, res=res, shots=blast, method=method, samples=40_000, seed=3)
    shot = _shot_by_brute_force(acc, res)
    assert (o.tokens, o.token, o.per_attack) == (n, "shot", shot)
    lines = o.explain().splitlines()
    assert f"Per shot: {acc}/10 × {10 - res}/10 = {shot.numerator}/{shot.denominator} ({float(shot):.1%}".replace(
        "%", " %") in "\n".join(lines)
    totals = next(line for line in lines if line.startswith("In all"))
    assert totals.startswith(f"In all (1 to {n} shots, each number equally likely): expected ")
    assert not any(line.startswith(("With ", "Per shot (")) for line in lines)   # no '1 shot', no second line
    mean, any_one = o.per_attack_of_tokens()
    assert mean == shot * Fraction(n + 1, 2)
    assert any_one == 1 - sum((1 - shot) ** j for j in range(1, n + 1)) / n
    if method == "exact":
        assert o.mean == pytest.approx(float(mean), abs=TOL) and o.at_least(1) == pytest.approx(float(any_one), abs=TOL)
    else:
        assert abs(o.mean - float(mean)) < 5 * o.mean_stderr
