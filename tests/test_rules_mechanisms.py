"""The rule-file mechanisms beyond the core format, each against the brute
force of tests/brute_rules.py (every die face enumerated, Fractions) and
sampled within 5 standard errors at a fixed seed: long shots and criticals
switched by the stats (roll-under tests), criticals whose rule a stat
switches, random tokens per attack, tallies and the chances of conditions on
them, a lookup table written as an expression."""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest

from brute_rules import _repeat, _roll, attack_outcomes, brute, stage, to_toml
from pmfcheck import assert_pmf_equal
from workbench import rules
from workbench.errors import InputError

TOL = 1e-12


def _load(text: str, name: str = "mech.toml"):
    return rules.loads(text, name)


def _check(system, stages, count, removal, tokens_die=1, chances=None, **stats):
    pmf, eff = brute(stages, count, removal, tokens_die=tokens_die, chances=chances)
    o = system.attack(**stats)
    assert_pmf_equal(o.pmf, pmf, TOL)
    for name, value in eff.items():
        assert o.effects[name] == pytest.approx(float(value), abs=1e-10), name
    return o


def _sampled_agrees(system, samples=40_000, seed=2, **stats):
    e = system.attack(**stats)
    s = system.attack(method="sampled", samples=samples, seed=seed, **stats)
    width = max(e.pmf.size, s.pmf.size)
    pe, ps = np.zeros(width), np.zeros(width)
    pe[: e.pmf.size], ps[: s.pmf.size] = e.pmf, s.pmf
    se = np.sqrt(np.clip(pe * (1 - pe), 0, None) / samples)
    assert np.all(np.abs(ps - pe) <= 5 * se + 1.0 / samples), (ps, pe)
    for name, value in e.effects.items():
        # every effect here is a count of at most a few per attack or a probability: sd <= its range
        bound = 5 * max(1.0, float(value)) * 3 / np.sqrt(samples)
        assert abs(s.effects[name] - value) <= bound, (name, s.effects[name], value)


# ---------------------------------------------------------------------------
# roll-under: a 10 always fails, below 1 needs a 1 then another 1, criticals on 1 from a value of 2
# ---------------------------------------------------------------------------
def _antares_test(value: int) -> dict[str, Fraction]:
    """The seed's stat test written out over both d10s (independent of the format's words)."""
    out = {"fail": Fraction(0), "success": Fraction(0), "crit": Fraction(0)}
    for a, b in product(range(1, 11), repeat=2):
        if value < 1:
            r = "success" if a == 1 and b == 1 else "fail"
        else:
            r = "success" if a <= value and a != 10 else "fail"
            if r == "success" and a == 1 and value >= 2:
                r = "crit"
        out[r] += Fraction(1, 100)
    return out


@pytest.mark.parametrize("value", range(-3, 13))
def test_roll_under_stage_is_the_seeds_stat_test(value):
    text = to_toml([stage(name="test", die=10, roll="low", target="v", always_fail=(10,), critical=(1,),
                          long_shot=True)], 1, dict(damage=1),
                   stats={"v": {"min": -5, "max": 15, "default": 0}}, die=10,
                   stage_extra=[{"critical_when": "v >= 2"}])
    system = _load(text)
    o = system.attack(v=value)
    want = _antares_test(value)
    assert o.stages[0].probability == want["success"] + want["crit"]
    assert o.effects["criticals"] == pytest.approx(float(want["crit"]), abs=TOL)
    # the brute force of the format's own words agrees with the seed's
    st = stage(die=10, roll="low", target=value, always_fail=(10,), critical=(1,), long_shot=True,
               critical_on=value >= 2)
    got = _roll(st)
    assert all(got.get(k, 0) == v for k, v in want.items()), (got, want)


@pytest.mark.parametrize("reroll", ["none", "ones", "failed"])
@pytest.mark.parametrize("roll,target", [("low", 0), ("low", -1), ("low", 3), ("high", 7), ("high", 9),
                                         ("high", 4)])
def test_long_shots_with_rerolls_and_a_second_stage_equal_brute_force(reroll, roll, target):
    stages = [stage(name="hit", die=6, roll=roll, target=target, long_shot=True, reroll=reroll,
                    critical=(6,) if roll == "low" else (), on_critical="extra" if roll == "low" else "none"),
              stage(name="save", die=6, roll="low", target=-1, long_shot=True, passes_on="fail")]
    removal = dict(models=3, wounds=2, damage_roll=(1, 3, 0))
    _check(_load(to_toml(stages, 2, removal)), stages, 2, removal)


def test_critical_when_and_on_critical_when_follow_the_stats():
    stats = {"v": {"min": 0, "max": 6, "default": 3}, "variant": {"kind": "bool", "default": False}}
    extra = [{"critical_when": "v >= 2", "on_critical_when": "variant"}, None]
    text = to_toml([stage(name="hit", roll="low", target="v", critical=(1,), on_critical="to_end",
                          critical_tally="crits"),
                    stage(name="save", target=3, passes_on="fail")], 3, dict(damage=1, models=2),
                   stats=stats, stage_extra=extra)
    system = _load(text)
    for v, variant in product(range(0, 7), (False, True)):
        stages = [stage(name="hit", roll="low", target=v, critical=(1,), on_critical="to_end",
                        critical_on=v >= 2, special_on=variant, critical_tally="crits"),
                  stage(name="save", target=3, passes_on="fail")]
        _check(system, stages, 3, dict(damage=1, models=2), v=v, variant=variant)
    _sampled_agrees(system, v=4, variant=True)


def test_criticals_switched_off_are_still_counted_and_table_agrees():
    stats = {"v": {"min": 1, "max": 6, "default": 3}}
    text = to_toml([stage(name="hit", target="v", critical=(6,), on_critical="extra", extra=1),
                    stage(name="wound", target=4)], 2, dict(damage=1),
                   stats=stats, stage_extra=[{"on_critical_when": "v < 4"}, None])
    system = _load(text)
    table = system.attack_table(v=np.arange(1, 7))
    for v in range(1, 7):
        stages = [stage(name="hit", target=v, critical=(6,), on_critical="extra", extra=1, special_on=v < 4),
                  stage(name="wound", target=4)]
        o = _check(system, stages, 2, dict(damage=1), v=v)
        assert_pmf_equal(table["pmf"][v - 1][: o.pmf.size], o.pmf, TOL)
        assert table["effects"]["criticals"][v - 1] == pytest.approx(o.effects["criticals"], abs=TOL)


# ---------------------------------------------------------------------------
# random tokens per attack (blast D3..D12)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("count", [0, 1, 2])
def test_tokens_die_equals_brute_force(n, count):
    stages = [stage(name="hit", target=4, critical=(6,), on_critical="skip_next", tally="hits"),
              stage(name="wound", target=3), stage(name="save", target=5, passes_on="fail")]
    removal = dict(models=4, wounds=2, damage=1)
    text = to_toml(stages, count, removal, tokens_die="n", stats={"n": {"min": 1, "max": 12, "default": 1}})
    _check(_load(text), stages, count, removal, tokens_die=n, n=n)


def test_tokens_die_sampled_and_table():
    stages = [stage(name="hit", target=3), stage(name="wound", target=4, critical=(6,), on_critical="to_end")]
    text = to_toml(stages, "shots", dict(models=6), tokens_die="n",
                   stats={"n": {"min": 1, "max": 12, "default": 3}, "shots": {"min": 0, "max": 4, "default": 2}})
    system = _load(text)
    _sampled_agrees(system, n=6, shots=2)
    table = system.attack_table(n=np.array([1, 3, 12]), shots=np.array([4, 2, 1]))
    for i, (n, shots) in enumerate(((1, 4), (3, 2), (12, 1))):
        o = system.attack(n=n, shots=shots)
        assert_pmf_equal(table["pmf"][i][: o.pmf.size], o.pmf, TOL)
        assert table["effects"]["hit"][i] == pytest.approx(o.effects["hit"], abs=TOL)


@pytest.mark.parametrize("n, variant", [(1, True), (3, True), (3, False)])
def test_tokens_die_and_switched_critical_per_attack_figures_and_stage_pmfs(n, variant):
    # one attack is 1..n tokens; the critical's extra hit applies only with the variant
    stats = {"n": {"min": 1, "max": 6, "default": 1}, "variant": {"kind": "bool", "default": False}}
    text = to_toml([stage(name="hit", target=4, critical=(6,), on_critical="extra", extra=1),
                    stage(name="wound", target=4), stage(name="save", target=5, passes_on="fail")],
                   2, dict(damage=1), tokens_die="n", stats=stats,
                   stage_extra=[{"on_critical_when": "variant"}, None, None])
    stages = [stage(name="hit", target=4, critical=(6,), on_critical="extra", extra=1, special_on=variant),
              stage(name="wound", target=4), stage(name="save", target=5, passes_on="fail")]
    token = attack_outcomes(stages)
    attack = {}
    for j in range(1, n + 1):
        for key, p in _repeat(token, j, len(stages)).items():
            attack[key] = attack.get(key, Fraction(0)) + p / n
    o = _load(text).attack(n=n, variant=variant)
    # the stages and the per-attack figures say what one token does; per_attack_of_tokens one attack
    if variant:
        assert o.per_attack_mean == sum(p * key[0] for key, p in token.items())
        assert o.per_attack_any == sum(p for key, p in token.items() if key[0] > 0)
    else:
        assert o.per_attack_mean is None and o.per_attack_any is None
        assert o.per_attack == sum(p for key, p in token.items() if key[0] > 0)
    if n > 1:
        assert (o.tokens, o.token) == (n, "hit")
        mean, any_one = (sum(p * key[0] for key, p in attack.items()),
                         sum(p for key, p in attack.items() if key[0] > 0))
        assert o.per_attack_of_tokens() == (mean, any_one)
        # in words: one hit, one attack of 1 to n hits, the two attacks
        lines = o.explain().splitlines()
        assert any(line.startswith("Per hit: ") for line in lines)
        assert (f"Per attack (1 to {n} hits, each number equally likely): expected save failed "
                f"{mean.numerator}/{mean.denominator} = {float(mean):.3f}; P(at least one save failed) = "
                f"{any_one.numerator}/{any_one.denominator} ({100 * float(any_one):.1f} %).") in lines
        assert any(line.startswith(f"With 2 attacks of 1 to {n} hits each: expected ") for line in lines)
    else:
        assert o.tokens is None and o.per_attack_of_tokens() is None
    assert list(o.stage_pmfs) == [st["name"] for st in stages]
    for i, st in enumerate(stages):
        want = {}
        for key, p in _repeat(attack, 2, len(stages)).items():
            want[key[2][i]] = want.get(key[2][i], Fraction(0)) + p
        got = o.stage_pmfs[st["name"]]
        assert_pmf_equal(got, [want.get(k, Fraction(0)) for k in range(max(want) + 1)], TOL)
        assert float(got @ np.arange(got.size)) == pytest.approx(o.effects[st["name"]], abs=1e-10)


def test_tokens_die_counts_in_the_token_budget():
    # 200 attacks of one token are within the budget; of up to 100 tokens each they are not
    text = to_toml([stage(name="hit", tally="hits")], 200, dict(damage=1), tokens_die="n",
                   stats={"n": {"min": 1, "max": 100, "default": 1}})
    system = _load(text)
    assert system.attack(n=1).pmf.size == 201
    for method in ("exact", "sampled"):
        with pytest.raises(rules.BudgetError, match="tokens die") as exc:
            system.attack(n=100, method=method, samples=100)
        assert exc.value.field == "attack.count"
        assert "20,000 tokens" in str(exc.value)


def test_tokens_die_out_of_range_names_the_field():
    text = to_toml([stage(name="hit")], 1, dict(damage=1), tokens_die="n - 1",
                   stats={"n": {"min": 0, "max": 3, "default": 0}})
    with pytest.raises(InputError, match="attack.tokens_die"):
        _load(text).attack()
    with pytest.raises(InputError, match="attack.tokens_die"):
        _load(text).attack(method="sampled", samples=100)


# ---------------------------------------------------------------------------
# tallies and chances over them
# ---------------------------------------------------------------------------
CHANCES = [
    ({"name": "two_hits", "when": "hits >= 2"}, lambda c: c["hits"] >= 2),
    ({"name": "no_crit", "when": "crits == 0"}, lambda c: c["crits"] == 0),
    ({"name": "wiped", "when": "removed >= models"}, lambda c: c["removed"] >= 2),
    ({"name": "odd", "when": "successes == 1 or successes == 3"}, lambda c: c["successes"] in (1, 3)),
    ({"name": "saves_made", "label": "a save made", "when": "saved >= 1"}, lambda c: c["saved"] >= 1),
]


def _tally_game():
    stages = [stage(name="hit", target=4, critical=(6,), on_critical="extra", tally="hits", critical_tally="crits"),
              stage(name="wound", target=3, reroll="failed", tally="saved_x"),
              stage(name="save", target=4, passes_on="fail", tally="saved")]
    return stages


def test_tallies_and_chances_equal_brute_force():
    stages = _tally_game()
    removal = dict(models="models", wounds=1, damage=1)
    text = to_toml(stages, 3, removal, stats={"models": {"min": 1, "max": 5, "default": 2}},
                   chances=[c for c, _ in CHANCES])
    system = _load(text)
    o = _check(system, stages, 3, dict(models=2, wounds=1, damage=1),
               chances=[(c["name"], f) for c, f in CHANCES], models=2)
    assert 0 < o.effects["two_hits"] < 1 and 0 < o.effects["wiped"] < 1
    _sampled_agrees(system, models=2)
    table = system.attack_table(models=np.array([1, 2, 5]))
    assert table["effects"]["wiped"][1] == pytest.approx(o.effects["wiped"], abs=TOL)


def test_chances_with_tokens_die_and_to_end():
    stages = [stage(name="hit", target=3, critical=(6,), on_critical="to_end", tally="hits", critical_tally="crits"),
              stage(name="kill", target=5, tally="kills")]
    chances = [({"name": "any_crit", "when": "crits >= 1"}, lambda c: c["crits"] >= 1),
               ({"name": "many", "when": "kills >= 2"}, lambda c: c["kills"] >= 2)]
    text = to_toml(stages, 2, dict(damage=1), tokens_die=3, chances=[c for c, _ in chances])
    _check(_load(text), stages, 2, dict(damage=1), tokens_die=3, chances=[(c["name"], f) for c, f in chances])


@pytest.mark.parametrize("bad,field", [
    ({"stage": {"tally": "Hits"}}, "stages[0].tally"),
    ({"stage": {"tally": "bs"}}, "stages[0].tally"),
    ({"stage": {"tally": "criticals"}}, "stages[0].tally"),
    ({"stage": {"critical_tally": "hit"}}, "stages[0].critical_tally"),
    ({"chance": {"name": "c", "when": "bs >= 2"}}, "chances[0].when"),
    ({"chance": {"name": "c", "when": "hits + successes >= 2"}}, "chances[0].when"),
    ({"chance": {"name": "hit", "when": "hits >= 1"}}, "chances[0].name"),
    ({"chance": {"name": "c", "when": "hits / 2"}}, "chances[0].when"),
    ({"chance": {"name": "c", "when": "hits > 1", "why": "x"}}, "chances[0].why"),
    ({"stage": {"long_shot": "yes"}}, "stages[0].long_shot"),
    ({"stage": {"critical_when": "bss > 1"}}, "stages[0].critical_when"),
])
def test_bad_new_keys_name_the_field(bad, field):
    extra = dict(tally="hits")
    extra.update(bad.get("stage", {}))
    chances = [bad["chance"]] if "chance" in bad else None
    text = to_toml([stage(name="hit", critical=(6,))], 1, dict(damage=1), stats={"bs": {"min": 1, "max": 6, "default": 4}},
                   stage_extra=[{k: v for k, v in extra.items()}], chances=chances)
    with pytest.raises(rules.RuleFileError) as exc:
        _load(text, "bad.toml")
    assert exc.value.field == field, str(exc.value)


# ---------------------------------------------------------------------------
# a lookup table for a target number (The Forgotten's damage v1 chart), as an expression
# ---------------------------------------------------------------------------
V1_CHART = ("6 if defence >= 2 * damage else 5 if defence > damage else 4 if defence == damage "
            "else 2 if damage >= 2 * defence else 3")


def test_a_lookup_table_as_an_expression_equals_the_forgotten_chart():
    from workbench.systems.forgotten_rules import v1_target
    text = to_toml([stage(name="to kill", target=V1_CHART)], 1, dict(damage=1), die=6,
                   stats={"damage": {"min": 1, "max": 12, "default": 3}, "defence": {"min": 1, "max": 12, "default": 3}})
    system = _load(text)
    dmg, dfn = np.meshgrid(np.arange(1, 13), np.arange(1, 13))
    table = system.attack_table(damage=dmg.ravel(), defence=dfn.ravel())
    need = v1_target(dmg.ravel(), dfn.ravel())
    assert np.array_equal(table["effects"]["to kill"], (7 - need) / 6)


# ---------------------------------------------------------------------------
# tough models and heroic saves (The Forgotten), as docs/rulefiles.md writes them
# ---------------------------------------------------------------------------
FORGOTTEN_PART = """
[system]
key = "forgotten_part"
name = "Forgotten shooting, tough and heroic"
die = 10

[stats.shoot]
min = 2
max = 10
default = 6
[stats.attack_power]
min = 1
max = 9
default = 5
[stats.shots]
min = 1
max = 8
default = 3
[stats.models]
min = 1
max = 6
default = 3
[stats.heroic_save]
min = 0
max = 10
default = 0
[stats.tough]
kind = "bool"
default = false

[attack]
count = "shots"

[[stages]]
name = "to hit"
target = "shoot"
tally = "hits"
near_miss_tally = "near"

[[stages]]
name = "to kill"
target = "attack_power + 1"

[[stages]]
name = "heroic save fails"
target = "heroic_save if heroic_save else 11"
passes_on = "fail"
tally = "downs"

[[chances]]
name = "shock"
when = "hits >= 1 or near >= 2"

[[chances]]
name = "shock_pooled"
when = "near + hits - downs >= 2 or downs >= 1"

[removal]
models = "models"
wounds = "2 if tough else 1"
"""


def test_tough_models_heroic_saves_and_shock_equal_the_forgotten_builtin():
    from workbench.systems import forgotten
    system = _load(FORGOTTEN_PART)
    for shoot, ap, shots, models, save, tough in product((4, 7), (3, 6), (1, 4), (1, 3), (0, 5, 8), (False, True)):
        if tough and save:
            continue  # a wounded hero saves at -1: a state the format cannot say yet
        want = forgotten.shooting(shoot=shoot, attack_power=ap, shots=shots, models=models,
                                  heroic_save=save or None, tough=tough)
        got = system.attack(shoot=shoot, attack_power=ap, shots=shots, models=models, heroic_save=save, tough=tough)
        width = max(want.pmf.size, got.pmf.size)
        pw, pg = np.zeros(width), np.zeros(width)
        pw[: want.pmf.size], pg[: got.pmf.size] = want.pmf, got.pmf
        np.testing.assert_allclose(pg, pw, rtol=0, atol=TOL)
        if tough:
            continue  # a tough model's absorbed kill is a non-damaging hit: not a stage tally
        assert got.effects["shock"] == pytest.approx(want.effects["shock"], abs=1e-10)
        assert got.effects["near"] == pytest.approx(want.effects["near_misses"], abs=1e-10)
        assert got.effects["hits"] - got.effects["downs"] == pytest.approx(want.effects["non_damaging_hits"],
                                                                           abs=1e-10)
        pooled = forgotten.shooting(shoot=shoot, attack_power=ap, shots=shots, models=models,
                                    heroic_save=save or None, shock_rule="pooled")
        assert got.effects["shock_pooled"] == pytest.approx(pooled.effects["shock"], abs=1e-10)


# ---------------------------------------------------------------------------
# a unit without a size: an optional stat read as removal.models
# ---------------------------------------------------------------------------
def _sizeless(extra_stage: dict | None = None, default="none"):
    stats = {"models": {"optional": True, "min": 1, "max": 6, "default": default},
             "w": {"min": 1, "max": 3, "default": 2}}
    return to_toml([stage(name="hit", target=3, critical=(6,), on_critical="extra")], 3,
                   dict(models="models", wounds="w", damage_roll=(1, 3, 0)), stats=stats,
                   stage_extra=[extra_stage] if extra_stage else None)


def test_an_optional_unit_size_left_none_caps_nothing():
    system = _load(_sizeless())
    stages = [stage(name="hit", target=3, critical=(6,), on_critical="extra")]
    assert system.stat("models").default is None
    for models in (None, 1, 2, 6):
        _check(system, stages, 3, dict(models=models, wounds=2, damage_roll=(1, 3, 0)), models=models, w=2)
    _sampled_agrees(system, w=1)
    table = system.attack_table(w=np.array([1, 2, 3]))
    o = system.attack(w=3)
    assert_pmf_equal(table["pmf"][2][: o.pmf.size], o.pmf, TOL)
    with pytest.raises(InputError, match="models"):
        system.attack(models=0)


def test_an_optional_stat_read_elsewhere_is_refused():
    with pytest.raises(rules.RuleFileError) as exc:
        _load(_sizeless({"modifier": "models"}), "bad.toml")
    assert exc.value.field == "stages[0].modifier"
    with pytest.raises(rules.RuleFileError) as exc:
        _load(_sizeless().replace('models = "models"', 'models = "models + 1"'), "bad.toml")
    assert exc.value.field == "removal.models"
    with pytest.raises(rules.RuleFileError) as exc:
        _load(_sizeless(default="many"), "bad.toml")
    assert exc.value.field == "stats.models.default"


# ---------------------------------------------------------------------------
# near misses, non-damaging hits and a condition on two counts (shock, suppression)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("reroll", ["none", "ones", "failed"])
@pytest.mark.parametrize("roll,target,long_shot", [("high", 6, False), ("high", 2, False), ("low", 3, False),
                                                   ("low", 0, True), ("high", 7, True)])
def test_near_misses_equal_brute_force(reroll, roll, target, long_shot):
    stages = [stage(name="hit", roll=roll, target=target, reroll=reroll, long_shot=long_shot,
                    near_miss_tally="near", tally="hits"),
              stage(name="kill", target=4, tally="kills")]
    chances = [({"name": "shock", "when": "hits >= 1 or near >= 2"}, lambda c: c["hits"] >= 1 or c["near"] >= 2),
               ({"name": "pooled", "when": "near + hits - kills >= 2 or kills >= 1"},
                lambda c: c["near"] + c["hits"] - c["kills"] >= 2 or c["kills"] >= 1),
               ({"name": "two_near", "when": "near >= 2"}, lambda c: c["near"] >= 2)]
    removal = dict(models=2, damage=1)
    system = _load(to_toml(stages, 3, removal, chances=[c for c, _ in chances[1:]] + [chances[0][0]]))
    o = _check(system, stages, 3, removal, chances=[(c["name"], f) for c, f in chances])
    out_of_reach = long_shot and (target < 1 if roll == "low" else target > 6)
    assert (o.effects["near"] > 0) != out_of_reach  # out of reach the best face is a long shot, no near miss


def test_near_misses_and_two_count_chances_sampled_and_table():
    stats = {"shoot": {"min": 2, "max": 10, "default": 6}}
    stages = [stage(name="hit", die=10, target="shoot", near_miss_tally="near", tally="hits"),
              stage(name="kill", die=10, target=6, tally="kills")]
    chances = [{"name": "shock", "label": "the unit tests for shock", "when": "hits >= 1 or near >= 2"},
               {"name": "suppressed", "when": "kills >= 1 or hits >= 3"}]
    system = _load(to_toml(stages, 4, dict(models=3), die=10, stats=stats, chances=chances))
    _sampled_agrees(system, shoot=7)
    table = system.attack_table(shoot=np.array([2, 7, 10]))
    o = system.attack(shoot=7)
    for name in ("shock", "suppressed", "near"):
        assert table["effects"][name][1] == pytest.approx(o.effects[name], abs=TOL)
    assert o.effect_kind("shock") == "probability" and o.effect_kind("near") == "expected"


def test_a_condition_on_four_counts_or_a_count_and_removed_is_refused():
    stages = [stage(name="hit", tally="hits", near_miss_tally="near", critical_tally="crit", critical=(6,)),
              stage(name="kill", tally="kills")]
    for when in ("hits + near + kills + crit > 1", "hits + removed > 1", "near + successes > 0"):
        with pytest.raises(rules.RuleFileError) as exc:
            _load(to_toml(stages, 1, dict(damage=1), chances=[{"name": "c", "when": when}]), "bad.toml")
        assert exc.value.field == "chances[0].when"
    with pytest.raises(rules.RuleFileError) as exc:
        _load(to_toml([stage(name="save", passes_on="fail", near_miss_tally="n")], 1, dict(damage=1)), "bad.toml")
    assert exc.value.field == "stages[0].near_miss_tally"


# ---------------------------------------------------------------------------
# a chance reading its counts only up to a number (up_to): long volleys stay small
# ---------------------------------------------------------------------------
def _saturated(when, up_to: int):
    """The predicate on the counts each read as at most ``up_to`` (the brute force's own reading)."""
    return lambda c: when({k: min(v, up_to) for k, v in c.items()})


UP_TO_CHANCES = [
    ({"name": "shock", "up_to": 2, "when": "hits >= 1 or near >= 2"}, 2, lambda c: c["hits"] >= 1 or c["near"] >= 2),
    ({"name": "pooled", "up_to": 2, "when": "kills >= 1 or near + hits - kills >= 2"}, 2,
     lambda c: c["kills"] >= 1 or c["near"] + c["hits"] - c["kills"] >= 2),
    # a condition that does tell values above up_to apart reads them as up_to: "hits == 3" never holds at 2
    ({"name": "three", "up_to": 2, "when": "hits == 3"}, 2, lambda c: c["hits"] == 3),
    ({"name": "capped_sum", "up_to": 1, "when": "hits + near == 2"}, 1, lambda c: c["hits"] + c["near"] == 2),
    ({"name": "removed_two", "up_to": 2, "when": "removed >= 2"}, 2, lambda c: c["removed"] >= 2),
    ({"name": "crit_one", "up_to": 1, "when": "crits == 1"}, 1, lambda c: c["crits"] == 1),
]


@pytest.mark.parametrize("count, tokens_die", [(1, 1), (3, 1), (4, 1), (1, 2), (3, 2)])
def test_chances_up_to_equal_brute_force_of_saturated_counts(count, tokens_die):
    stages = [stage(name="hit", target=4, critical=(6,), on_critical="extra", tally="hits", near_miss_tally="near",
                    critical_tally="crits"),
              stage(name="kill", target=3, reroll="ones", tally="kills")]
    removal = dict(models=3, damage=1)
    system = _load(to_toml(stages, count, removal, tokens_die=tokens_die, chances=[c for c, _, _ in UP_TO_CHANCES]))
    o = _check(system, stages, count, removal, tokens_die=tokens_die,
               chances=[(c["name"], _saturated(f, n)) for c, n, f in UP_TO_CHANCES])
    assert o.effects["three"] == 0.0 and o.effect_kind("shock") == "probability"


def test_chances_up_to_sampled_table_and_a_thousand_attacks():
    stats = {"shots": {"min": 1, "max": 1000, "default": 5}}
    stages = [stage(name="hit", die=10, target=9, near_miss_tally="near", tally="hits"),
              stage(name="kill", die=10, target=10, tally="kills")]
    chances = [UP_TO_CHANCES[0][0], UP_TO_CHANCES[1][0]]
    system = _load(to_toml(stages, "shots", dict(models=3), die=10, stats=stats, chances=chances))
    _sampled_agrees(system, shots=5)
    table = system.attack_table(shots=np.array([1, 5, 40]))
    o = system.attack(shots=5)
    assert table["effects"]["pooled"][1] == pytest.approx(o.effects["pooled"], abs=TOL)
    # P(no test) = P(every shot misses) + P(exactly one near miss or non-killing hit, the rest misses)
    q_miss, q_quiet = Fraction(7, 10), Fraction(1, 10) + Fraction(2, 10) * Fraction(9, 10)
    for shots, pooled in ((40, table["effects"]["pooled"][2]), (1000, system.attack(shots=1000).effects["pooled"])):
        none = q_miss ** shots + shots * q_quiet * q_miss ** (shots - 1)
        assert pooled == pytest.approx(float(1 - none), abs=TOL)


@pytest.mark.parametrize("up_to", [0, -1, 1001, "2", True])
def test_a_bad_up_to_names_the_field(up_to):
    chance = {"name": "c", "when": "hits >= 1", "up_to": up_to}
    with pytest.raises(rules.RuleFileError) as exc:
        _load(to_toml([stage(name="hit", tally="hits")], 1, dict(damage=1), chances=[chance]), "bad.toml")
    assert exc.value.field == "chances[0].up_to"


def test_the_documented_d3_hits_per_shot_read_as_docs_rulefiles_says():
    # docs/rulefiles.md, "Random hits per attack": 2 shots of D3 hits, hit 4+, wound 3+ on a d6
    text = """
[system]
key = "dthree"
name = "D3 hits"
die = 6

[stats.shots]
min = 1
max = 10
default = 2

[attack]
count = "shots"
tokens_die = "3"

[[stages]]
name = "to hit"
target = "4"

[[stages]]
name = "wound"
target = "3"

[removal]
models = "10"

[view]
trial = "shot"
token = "hit"
"""
    docs = (Path(__file__).resolve().parents[1] / "docs" / "rulefiles.md").read_text(encoding="utf-8")
    quoted = [line for line in docs.splitlines()
              if line.startswith(("Per hit: 3/6", "Per shot (1 to 3 hits", "With 2 shots of 1 to 3 hits"))]
    assert len(quoted) == 3
    lines = _load(text).attack(shots=2).explain().splitlines()
    assert all(line in lines for line in quoted)
    # and the numbers by brute force: a hit 1/2 x 2/3 = 1/3 per token; 1..3 tokens a shot
    none_one_shot = sum(Fraction(2, 3) ** j for j in (1, 2, 3)) / 3
    assert f"P(at least one wound) = {1 - none_one_shot} " in quoted[1]
    assert f"P(at least 1) = {100 * float(1 - none_one_shot ** 2):.1f} %" in quoted[2]
