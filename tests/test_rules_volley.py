"""A rule file's [volley]: several profiles at one target, summed then removed once.

Exact results against a brute force over every die face of every profile (itertools, Fractions; the
attack enumeration of tests/brute_rules.py, combined here profile by profile), sampled ones within 5
standard errors at a fixed seed, random valid files (hypothesis), and every refusal naming its field."""
from __future__ import annotations

import re
from collections import defaultdict
from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from brute_rules import BY_MODEL, _apply, _damage_faces, _repeat, apply_faces, attack_outcomes, stage, to_toml
from pmfcheck import assert_pmf_equal
from test_rules_hypothesis import removal_strategy, stages_strategy
from workbench import rules
from workbench.errors import InputError

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rulefiles.md"


def in_listed_order(removals, finals):
    """P((models removed, wasted damage)) when profile i's ``finals[i]`` successes meet its own removal
    ``removals[i]``, in listed order, on the unit as the profiles before left it: a pooled formula of its
    own successes (the unit caps the sum), or every success's damage (each profile's faces enumerated)
    applied one at a time, carrying the damaged model and the models removed from profile to profile."""
    first = removals[0]
    if any(k in first for k in BY_MODEL):   # one blow a success, whoever fired it
        return _apply(first, sum(finals))
    if "removed" in first:
        r, models = sum(rem["removed"](f) for rem, f in zip(removals, finals)), first.get("models")
        return {(r if models is None else min(r, models), 0): Fraction(1)}
    return apply_faces(first, [face for rem, f in zip(removals, finals) for face in [_damage_faces(rem)] * f])


def brute_volley(profiles, removal, chances=(), each="successes", not_needed=None, removals=None):
    """(P(k removed), expected effects) of ``profiles`` = [(stages, attacks), ...] at one target: every
    combination of every profile's attacks enumerated, the final successes summed, then the removal
    applied to the sum (``_apply``: every damage sequence). ``not_needed``: the name of the expected
    number of profiles after the first whose turn came when the earlier ones had removed the whole unit.
    ``removals``: each profile's own removal, made in listed order (:func:`in_listed_order`)."""
    n = len(profiles[0][0])
    per = [_repeat(attack_outcomes(stages), count, n) for stages, count in profiles]
    models = removal.get("models")
    pmf: dict[int, Fraction] = defaultdict(Fraction)
    eff: dict[str, Fraction] = defaultdict(Fraction)
    cache: dict[int, dict] = {}

    def removal_of(k):
        if k not in cache:
            cache[k] = _apply(removal, k)
        return cache[k]

    def removal_in_order(finals):
        key = tuple(finals)
        if key not in cache:
            cache[key] = in_listed_order(removals[: len(finals)], finals)
        return cache[key]

    for combo in product(*[d.items() for d in per]):
        p = Fraction(1)
        for _, q in combo:
            p *= q
        finals = [key[0] for key, _ in combo]
        crits = [sum(key[1][i] for key, _ in combo) for i in range(n)]
        passes = [sum(key[2][i] for key, _ in combo) for i in range(n)]
        total = sum(finals)
        counts = {"successes": total}
        stages = profiles[0][0]
        for i, s in enumerate(stages):
            eff[s["name"]] += p * passes[i]
            if s.get("tally"):
                counts[s["tally"]] = passes[i]
                eff[s["tally"]] += p * passes[i]
            if s.get("critical_tally"):
                counts[s["critical_tally"]] = crits[i]
                eff[s["critical_tally"]] += p * crits[i]
        eff["criticals"] += p * sum(crits)
        for j, f in enumerate(finals):
            eff[f"{each}[{j}]"] += p * f
        if not_needed:
            eff[not_needed] += 0
            if models is not None:
                for j in range(1, len(finals)):
                    before = removal_of(sum(finals[:j])) if removals is None else removal_in_order(finals[:j])
                    eff[not_needed] += p * sum(q for (r, _), q in before.items() if r >= models)
        after = removal_of(total) if removals is None else removal_in_order(finals)
        for (removed, wasted), q in after.items():
            pmf[removed] += p * q
            eff["wasted_damage"] += p * q * wasted
            for name, pred in chances:
                eff[name] += p * q * bool(pred(dict(counts, removed=removed)))
    for name, _ in chances:
        eff.setdefault(name, Fraction(0))
    return [pmf.get(k, Fraction(0)) for k in range(max(pmf) + 1)], dict(eff)


def docs_example() -> str:
    """The TOML block of docs/rulefiles.md's section on volleys (the test runs what the page shows)."""
    text = DOCS.read_text()
    part = text[text.index("### Several profiles at one target"):]
    return re.search(r"```toml\n(.*?)```", part, re.S).group(1)


@pytest.fixture(scope="module")
def firefight():
    return rules.loads(docs_example(), "firefight.toml")


def _firefight_stages(bs, sv):
    return [stage(name="to hit", target=bs, critical=(6,), critical_tally="sixes"),
            stage(name="save", target=sv, passes_on="fail")]


FIREFIGHT_CHANCES = [("wiped_out", lambda c: c["removed"] >= 3), ("two_sixes", lambda c: c["sixes"] >= 2)]


@pytest.mark.parametrize("bs, shots, sv, models, wounds", [
    ((3, 5), (2, 3), 4, 3, 2), ((2, 6, 4), (1, 2, 2), 5, 2, 1), ((4,), (4,), 3, 3, 3), ((6, 2), (0, 3), 7, 1, 1)])
def test_the_documented_volley_equals_a_brute_force(firefight, bs, shots, sv, models, wounds):
    o = firefight.volley([dict(bs=b, shots=s) for b, s in zip(bs, shots)], sv=sv, models=models, wounds=wounds)
    chances = [("wiped_out", lambda c, m=models: c["removed"] >= m), FIREFIGHT_CHANCES[1]]
    pmf, eff = brute_volley([(_firefight_stages(b, sv), s) for b, s in zip(bs, shots)],
                            dict(models=models, wounds=wounds), chances, each="unsaved",
                            not_needed="profiles_not_needed")
    assert o.function == "volley" and o.pmf.size == models + 1
    assert_pmf_equal(o.pmf, pmf, 1e-12)
    assert set(o.effects) == set(eff)
    for k, x in eff.items():
        assert o.effects[k] == pytest.approx(float(x), abs=1e-12), k
    assert o.inputs["profiles"] == tuple(dict(bs=b, shots=s) for b, s in zip(bs, shots))


def test_one_profile_is_the_attack_and_splitting_a_profile_changes_nothing(firefight):
    kw = dict(sv=4, models=3, wounds=2)
    one = firefight.volley([dict(bs=3, shots=5)], **kw)
    attack = firefight.attack(bs=3, shots=5, **kw)
    np.testing.assert_allclose(one.pmf, attack.pmf, atol=1e-12)
    for k in ("wiped_out", "two_sixes", "wasted_damage", "to hit", "save", "criticals"):
        assert one.effects[k] == pytest.approx(attack.effects[k], abs=1e-12), k
    split = firefight.volley([dict(bs=3, shots=2), dict(bs=3, shots=3)], **kw)
    np.testing.assert_allclose(split.pmf, attack.pmf, atol=1e-12)
    assert split.effects["unsaved[0]"] + split.effects["unsaved[1]"] == pytest.approx(attack.effects["save"])


def test_the_sampled_volley_agrees_with_the_exact_one(firefight):
    n = 40_000
    profiles = [dict(bs=3, shots=4), dict(bs=5, shots=6), dict(bs=2, shots=2)]
    kw = dict(sv=4, models=3, wounds=2)
    e = firefight.volley(profiles, **kw)
    s = firefight.volley(profiles, **kw, method="sampled", samples=n, seed=11)
    assert s.method == "sampled" and s.pmf.size == e.pmf.size and set(s.effects) == set(e.effects)
    se = np.sqrt(e.pmf * (1 - e.pmf) / n)
    assert np.all(np.abs(s.pmf - e.pmf) <= 5 * se + 1e-12)
    for k in e.effects:
        spread = max(s.effects_stderr[k], np.sqrt(abs(e.effects[k]) / n))
        assert abs(s.effects[k] - e.effects[k]) <= 5 * spread + 1e-12, k
    again = firefight.volley(profiles, **kw, method="sampled", samples=2_000, seed=11)
    assert np.array_equal(again.pmf, firefight.volley(profiles, **kw, method="sampled", samples=2_000, seed=11).pmf)


# -- random valid files with a volley ----------------------------------------------------------------
def _volley_file(stages, removal, chances, allocation="together"):
    """``stages`` whose first stage's target is the profile stat ``skill``, ``shots`` attacks each."""
    die = stages[0]["die"]
    stats = {"skill": {"min": -1, "max": die + 3, "default": stages[0]["target"]},
             "shots": {"min": 0, "max": 6, "default": 1}}
    text = to_toml(stages, "shots", removal, die=die, stats=stats,
                   targets=["skill"] + [None] * (len(stages) - 1), chances=[c for c, _ in chances])
    return text + f'\n[volley]\nprofile = ["skill", "shots"]\nallocation = "{allocation}"\nnot_needed = "spared"\n'


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stages=stages_strategy(), removal=removal_strategy(), data=st.data())
def test_random_valid_volleys_equal_the_brute_force(stages, removal, data):
    die = stages[0]["die"]
    k = data.draw(st.integers(1, 3))
    skills = data.draw(st.lists(st.integers(-1, die + 3), min_size=k, max_size=k))
    shots = data.draw(st.lists(st.integers(0, 2), min_size=k, max_size=k))
    bound = 1
    for s in stages:
        bound *= 2 if s["on_critical"] == "extra" else 1
    assume(sum(shots) * bound <= 5)
    stages = [dict(s, tally="t0") if i == 0 else s for i, s in enumerate(stages)]
    line = data.draw(st.integers(0, 2))
    chances = [({"name": "any_removed", "when": "removed >= 1"}, lambda c: c["removed"] >= 1),
               ({"name": "many", "when": f"t0 >= {line}"}, lambda c, x=line: c["t0"] >= x),
               ({"name": "total", "when": "successes == 1"}, lambda c: c["successes"] == 1)]
    allocation = data.draw(st.sampled_from(["together", "in_order"]))
    sysm = rules.loads(_volley_file(stages, removal, chances, allocation), "random.toml")
    o = sysm.volley([dict(skill=a, shots=b) for a, b in zip(skills, shots)])
    assert o.pmf.sum() == pytest.approx(1.0, abs=1e-12)
    pmf, eff = brute_volley([([dict(s, target=a) if i == 0 else s for i, s in enumerate(stages)], b)
                             for a, b in zip(skills, shots)], removal, [(c["name"], p) for c, p in chances],
                            not_needed="spared", removals=[removal] * k if allocation == "in_order" else None)
    assert_pmf_equal(o.pmf, pmf, 1e-12)
    for name, x in eff.items():
        assert o.effects[name] == pytest.approx(float(x), abs=1e-10), name


# -- in listed order: each profile's own removal on what the earlier left -----------------------------------
ORDERED = """
[system]
key = "crossfire"
name = "Crossfire (in listed order)"
die = 6

[stats.s]
min = 0
max = 4
default = 1

[stats.t]
min = 1
max = 4
default = 2

[stats.shots]
min = 0
max = 20
default = 2

[stats.models]
min = 1
max = 6
default = 3

[attack]
count = "shots"

[[stages]]
name = "to penetrate"
target = "4"

[removal]
models = "models"
REMOVAL

[volley]
profile = ["s", "shots"]
allocation = "in_order"
not_needed = "late"
"""


@pytest.mark.parametrize("removal_text, removal_of", [
    ('removed = "successes * s // t"', lambda s, t: dict(removed=lambda n, s=s, t=t: n * s // t)),
    ('wounds = "t"\ndamage = "s"', lambda s, t: dict(wounds=t, damage=s)),
    ('wounds = "t"\ndamage = "s"\nspill = true', lambda s, t: dict(wounds=t, damage=s, spill=True)),
])
@pytest.mark.parametrize("s, shots, t, models", [((1, 3), (3, 2), 2, 3), ((2, 0, 3), (2, 2, 1), 3, 2),
                                                   ((4, 1), (1, 4), 1, 1)])
def test_in_listed_order_equals_a_brute_force(removal_text, removal_of, s, shots, t, models):
    sysm = rules.loads(ORDERED.replace("REMOVAL", removal_text), "crossfire.toml")
    o = sysm.volley([dict(s=a, shots=b) for a, b in zip(s, shots)], t=t, models=models)
    removals = [dict(removal_of(a, t), models=models) for a in s]
    pmf, eff = brute_volley([([stage(name="to penetrate", target=4)], b) for b in shots], removals[0],
                            not_needed="late", removals=removals)
    assert_pmf_equal(o.pmf, pmf, 1e-12)
    assert set(o.effects) == set(eff)
    for k, x in eff.items():
        assert o.effects[k] == pytest.approx(float(x), abs=1e-12), k
    n = 20_000
    sm = sysm.volley([dict(s=a, shots=b) for a, b in zip(s, shots)], t=t, models=models, method="sampled",
                     samples=n, seed=5)
    want = np.array([float(x) for x in pmf] + [0.0] * (sm.pmf.size - len(pmf)))
    assert np.all(np.abs(sm.pmf - want[: sm.pmf.size]) <= 5 * np.sqrt(want[: sm.pmf.size] * (1 - want[: sm.pmf.size]) / n) + 1e-12)
    for k, x in eff.items():
        assert abs(sm.effects[k] - float(x)) <= 5 * max(sm.effects_stderr[k], np.sqrt(abs(float(x)) / n)) + 1e-12, k


def test_in_listed_order_a_pooled_division_differs_from_together():
    """Two weapons of S 1 at T 2, one penetration each: together 2 x 1 // 2 = 1 model, in order 0 + 0."""
    text = ORDERED.replace("REMOVAL", 'removed = "successes * s // t"').replace('target = "4"', 'target = "1"')
    ordered = rules.loads(text, "a.toml")
    # together the formula is made once on the sum, so it may not read a profile's S: both weapons are S 1
    together = rules.loads(text.replace('removed = "successes * s // t"', 'removed = "successes // t"').replace(
        'profile = ["s", "shots"]', 'profile = ["shots"]').replace('"in_order"', '"together"'), "b.toml")
    two = [dict(s=1, shots=1), dict(s=1, shots=1)]
    assert ordered.volley(two, t=2).pmf[0] == pytest.approx(1.0)
    assert together.volley([dict(shots=1), dict(shots=1)], t=2).pmf[1] == pytest.approx(1.0)


def test_in_listed_order_a_removal_of_shared_stats_is_the_same_as_together():
    text = ORDERED.replace("REMOVAL", 'wounds = "t"\ndamage = "2"')
    ordered = rules.loads(text, "a.toml")
    together = rules.loads(text.replace('allocation = "in_order"', 'allocation = "together"'), "b.toml")
    profiles = [dict(s=1, shots=3), dict(s=2, shots=4), dict(s=3, shots=2)]
    a, b = ordered.volley(profiles, t=3, models=4), together.volley(profiles, t=3, models=4)
    np.testing.assert_allclose(a.pmf, b.pmf, atol=1e-12)
    for k in b.effects:
        assert a.effects[k] == pytest.approx(b.effects[k], abs=1e-12), k


def test_in_listed_order_the_unit_states_are_bounded_before_the_work():
    text = ORDERED.replace("REMOVAL", 'wounds = "t"\ndamage = "s"').replace("max = 20\n", "max = 5000\n").replace(
        "max = 6\n", "max = 10000\n").replace("max = 4\ndefault = 2", "max = 100\ndefault = 2")
    sysm = rules.loads(text, "big.toml")
    with pytest.raises(rules.BudgetError) as exc:
        sysm.volley([dict(s=1, shots=5000), dict(s=1, shots=5000)], t=100, models=10_000)
    assert exc.value.field == "removal" and "method='sampled'" in str(exc.value)


# -- refusals -------------------------------------------------------------------------------------------
def test_a_file_without_a_volley_says_so():
    plain = rules.loads(to_toml([stage(name="hit")], "2", dict(models=2)), "plain.toml")
    with pytest.raises(rules.RuleFileError) as exc:
        plain.volley([{}])
    assert exc.value.field == "volley"


@pytest.mark.parametrize("profiles, kw, field", [
    ([dict(bs=3, shots=2), dict(bs=9, shots=2)], {}, "profiles[1].bs"),
    ([dict(bs=3, shots=-1)], {}, "profiles[0].shots"),
    ([dict(bs=3, sv=4)], {}, "profiles[0] key"),
    ([dict(bs=3)], dict(bs=4), "bs"),
    ([dict(bs=3)], dict(sv=9), "sv"),
    ([dict(bs=3)], dict(armour=1), "argument name"),
    ([], {}, "profiles"),
    (dict(bs=3), {}, "profiles"),
    (["bs"], {}, "profiles[0]"),
    ([dict(bs=3)] * 21, {}, "profiles"),
])
def test_bad_volleys_are_refused_naming_the_field(firefight, profiles, kw, field):
    with pytest.raises(InputError) as exc:
        firefight.volley(profiles, **kw)
    assert exc.value.field == field


def test_a_volley_is_bounded_before_it_starts(firefight):
    big = docs_example().replace("max = 20\n", "max = 10000\n", 1)
    sysm = rules.loads(big, "big.toml")
    assert sysm.stat("shots").max == 10_000
    with pytest.raises(rules.BudgetError) as exc:   # every profile alone is allowed; together they are not
        sysm.volley([dict(shots=6_000), dict(shots=6_000)])
    assert exc.value.field == "attack.count"
    with pytest.raises(rules.BudgetError) as exc:
        sysm.volley([dict(shots=5_000), dict(shots=5_000)], method="sampled", samples=1_000_000)
    assert exc.value.field == "samples"


def test_a_forbidden_profile_names_the_profile():
    text = docs_example() + '\n[[forbid]]\nwhen = "bs == 2 and shots > 10"\nmessage = "no"\n'
    sysm = rules.loads(text, "forbid.toml")
    with pytest.raises(InputError, match=r"^no \(profiles\[1\]: bs, shots"):
        sysm.volley([dict(bs=3, shots=11), dict(bs=2, shots=11)])


@pytest.mark.parametrize("old, new, field", [
    ('profile = ["bs", "shots"]', 'profile = ["bs", "nope"]', "volley.profile[1]"),
    ('profile = ["bs", "shots"]', 'profile = ["bs", "bs"]', "volley.profile"),
    ('profile = ["bs", "shots"]', "profile = []", "volley.profile"),
    ('models = "models"', 'models = "models + shots"', "removal.models"),
    ('when = "sixes >= 2"', 'when = "sixes >= bs"', "chances[1].when"),
    ('each = "unsaved"', 'each = "save"', "volley.each"),
    ('each = "unsaved"', 'each = "wiped_out"', "volley.each"),
    ('not_needed = "profiles_not_needed"', 'not_needed = "unsaved"', "volley.not_needed"),
    ('allocation = "together"', 'allocation = "one by one"', "volley.allocation"),
    ('wounds = "wounds"', 'wounds = "wounds"\ndamage = "shots"', "removal.damage"),   # only in listed order
    ('each = "unsaved"', "max_profiles = 101", "volley.max_profiles"),
    ('each = "unsaved"', "order = 1", "volley.order"),
])
def test_bad_volley_tables_are_refused_when_loaded(old, new, field):
    text = docs_example()
    assert old in text
    with pytest.raises(rules.RuleFileError) as exc:
        rules.loads(text.replace(old, new), "bad.toml")
    assert exc.value.field == field


def test_the_builtins_say_their_volleys_in_their_files():
    from workbench.systems import ownfile
    assert ownfile.load("changes").volley_spec.profile == (
        "bs", "s", "ap", "shots", "weapon", "action", "firer_gone_to_ground", "firer_cover")
    assert ownfile.load("antares").volley_spec.profile == ("acc", "sv", "acc_mod", "shots", "blast")
