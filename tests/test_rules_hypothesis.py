"""Random rule files (hypothesis): valid ones resolve to pmfs that sum to 1,
equal the brute-force enumeration and agree with the sampled path; invalid
ones raise RuleFileError, never another exception from inside the parser."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from brute_rules import brute, stage, to_toml
from pmfcheck import assert_pmf_equal
from workbench import rules
from workbench.errors import InputError


@st.composite
def stages_strategy(draw):
    n = draw(st.integers(1, 3))
    out = []
    for i in range(n):
        die = draw(st.sampled_from([2, 3, 4, 6]))
        faces = list(range(1, die + 1))
        passes_on = draw(st.sampled_from(["success", "success", "fail"]))
        critical = () if passes_on == "fail" else tuple(sorted(draw(st.sets(st.sampled_from(faces), max_size=1))))
        rest = [f for f in faces if f not in critical]
        always_fail = tuple(sorted(draw(st.sets(st.sampled_from(rest), max_size=1)))) if rest else ()
        rest2 = [f for f in faces if f not in always_fail]
        always_succeed = tuple(sorted(draw(st.sets(st.sampled_from(rest2), max_size=1))))
        on_critical = draw(st.sampled_from(["none", "extra", "skip_next", "to_end"])) if critical else "none"
        out.append(stage(name=f"s{i}", die=die, roll=draw(st.sampled_from(["high", "low"])),
                         target=draw(st.integers(0, die + 2)), modifier=draw(st.integers(-1, 1)),
                         always_fail=always_fail, always_succeed=always_succeed, critical=critical,
                         on_critical=on_critical, extra=1,
                         reroll=draw(st.sampled_from(["none", "ones", "failed"])), passes_on=passes_on))
    return out


@st.composite
def removal_strategy(draw):
    models = draw(st.one_of(st.none(), st.integers(0, 3)))
    kind = draw(st.sampled_from(["damage", "roll", "pooled", "by_model"]))
    if kind == "by_model":  # a save reading wounded, tough models, models that start wounded
        out: dict = dict(models=models, tough=draw(st.booleans()),
                         already_wounded=draw(st.integers(0, 2 if models is None else models)))
        if draw(st.booleans()):
            base, step, sides = draw(st.integers(0, 5)), draw(st.integers(-2, 2)), draw(st.sampled_from([2, 3, 4]))
            out.update(save=lambda w, b=base, s=step: b + s * w, save_expr=f"{base} + {step} * wounded",
                       save_die=sides)
        return out
    if kind == "pooled":
        a, b = draw(st.integers(1, 3)), draw(st.integers(1, 2))
        return dict(models=models, removed=lambda n, a=a, b=b: n * a // b, removed_expr=f"successes * {a} // {b}")
    out = dict(models=models, wounds=draw(st.integers(1, 3)), spill=draw(st.booleans()))
    if kind == "roll":
        out["damage_roll"] = (1, draw(st.sampled_from([2, 3])), draw(st.integers(0, 1)))
    else:
        out["damage"] = draw(st.integers(0, 3))
    return out


def _tokens_bound(stages) -> int:
    m = 1
    for s in stages:
        if s["on_critical"] == "extra":
            m *= 2
    return m


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stages=stages_strategy(), count=st.integers(0, 2), removal=removal_strategy())
def test_random_valid_files_equal_brute_force_and_sum_to_one(stages, count, removal):
    assume(count * _tokens_bound(stages) <= 6)
    die = stages[0]["die"]
    sysm = rules.loads(to_toml(stages, count, removal, die=die), "random.toml")
    o = sysm.attack()
    assert o.pmf.sum() == pytest.approx(1.0, abs=1e-12)
    pmf, eff = brute(stages, count, removal)
    assert_pmf_equal(o.pmf, pmf, 1e-12)
    for k, v in eff.items():
        assert o.effects[k] == pytest.approx(float(v), abs=1e-10), k


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stages=stages_strategy(), count=st.integers(0, 6), removal=removal_strategy(), seed=st.integers(0, 3))
def test_random_valid_files_sampled_agrees_with_exact(stages, count, removal, seed):
    sysm = rules.loads(to_toml(stages, count, removal, die=stages[0]["die"]), "random.toml")
    e = sysm.attack()
    n = 20_000
    s = sysm.attack(method="sampled", samples=n, seed=seed)
    assert s.pmf.sum() == pytest.approx(1.0, abs=1e-12)
    width = max(e.pmf.size, s.pmf.size)
    pe = np.zeros(width)
    pe[: e.pmf.size] = e.pmf
    ps = np.zeros(width)
    ps[: s.pmf.size] = s.pmf
    se = np.sqrt(np.clip(pe * (1 - pe), 0, None) / n)
    # 5 standard errors of the exact probability; a count seen once where P is tiny is one sample's worth
    assert np.all(np.abs(ps - pe) <= 5 * se + 1.0 / n), (ps, pe)
    k = np.arange(width)
    sd = np.sqrt(max(float(pe @ k ** 2 - (pe @ k) ** 2), 0.0))
    assert abs(s.mean - e.mean) <= 5 * sd / np.sqrt(n) + (width - 1) / n


# ---------------------------------------------------------------------------
# invalid files
# ---------------------------------------------------------------------------
BASE = to_toml([stage(name="hit", critical=(6,), on_critical="extra", reroll="ones"),
                stage(name="save", passes_on="fail")], "shots",
               dict(models="models", wounds="2", damage_roll=(1, 3, 0)),
               stats={"shots": {"min": 0, "max": 5, "default": 2}, "models": {"min": 1, "max": 4, "default": 2},
                      "cover": {"options": {"none": 0, "heavy": 2}, "default": "none"},
                      "rend": {"kind": "bool", "default": False}},
               forbid=[{"when": "rend and cover", "message": "no"}])

JUNK = st.one_of(
    st.integers(-10 ** 20, 10 ** 20).map(str),
    st.floats(allow_nan=True).map(lambda x: repr(x).replace("inf", "inf")),
    st.text(max_size=30).map(lambda t: '"' + t.replace("\\", "").replace('"', "").replace("\n", " ") + '"'),
    st.sampled_from(['"__import__(\'os\')"', '"bs.real"', '"1/0"', '"2 ** 64"', '[1, "a"]', "{ a = 1 }",
                     '"d"', '"2d"', '"0d6"', '"d6+"', "true", "[]", '"successes"', '"shots // 0"',
                     '"min()"', '"not"', '"(((("', "[[1]]", '"9" * 30', '"-1"', '"nope"', '"' + "x" * 600 + '"']),
)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_random_invalid_files_give_a_rule_file_error_or_load(data):
    lines = BASE.splitlines()
    kind = data.draw(st.sampled_from(["value", "delete", "insert", "text"]))
    if kind == "value":
        idx = [i for i, t in enumerate(lines) if " = " in t]
        i = data.draw(st.sampled_from(idx))
        key = lines[i].split(" = ")[0]
        lines[i] = f"{key} = {data.draw(JUNK)}"
    elif kind == "delete":
        del lines[data.draw(st.integers(0, len(lines) - 1))]
    elif kind == "insert":
        i = data.draw(st.integers(0, len(lines)))
        lines.insert(i, data.draw(st.sampled_from(["[[stages]]", "[stats.x]", "foo = 1", "[removal]",
                                                   'removed = "successes"', "[[forbid]]", "die = 101",
                                                   "[system]", "critical = [1]", "= 3", "[", '"""'])))
    else:
        lines = [data.draw(st.text(max_size=200))]
    text = "\n".join(lines) + "\n"
    try:
        sysm = rules.loads(text, "random.toml")
    except rules.RuleFileError as exc:
        assert str(exc).startswith("random.toml")
        assert exc.field and exc.expected
        return
    # a file that loads resolves or raises the workbench's InputError naming a field
    try:
        o = sysm.attack()
    except InputError as exc:
        assert exc.field
        return
    assert o.pmf.sum() == pytest.approx(1.0, abs=1e-9)


# ---------------------------------------------------------------------------
# the wider format: long shots, criticals switched on and off, tokens per attack, tallies, chances
# ---------------------------------------------------------------------------
@st.composite
def wide_stages_strategy(draw):
    base = draw(stages_strategy())
    out, extra = [], []
    for i, s in enumerate(base):
        s = dict(s, long_shot=draw(st.booleans()))
        crit_on, special_on = draw(st.booleans()), draw(st.booleans())
        s["critical_on"], s["special_on"] = crit_on, special_on
        extra.append({"critical_when": "1" if crit_on else "0", "on_critical_when": "1" if special_on else "0"})
        if draw(st.booleans()):
            s["tally"] = f"t{i}"
        if s["critical"] and draw(st.booleans()):
            s["critical_tally"] = f"c{i}"
        if s["passes_on"] == "success" and draw(st.booleans()):
            s["near_miss_tally"] = f"n{i}"
        out.append(s)
    return out, extra


def _wide_chances(draw, stages):
    tallies = [s[k] for s in stages for k in ("tally", "critical_tally", "near_miss_tally") if s.get(k)]
    names = tallies + ["successes", "removed"]
    out = []
    for j in range(draw(st.integers(0, 2))):
        name, k = draw(st.sampled_from(names)), draw(st.integers(0, 2))
        out.append(({"name": f"p{j}", "when": f"{name} >= {k}"}, lambda c, name=name, k=k: c[name] >= k))
    if len(tallies) >= 2 and draw(st.booleans()):  # a condition on two counts at once
        a, b = draw(st.permutations(tallies))[:2]
        k = draw(st.integers(1, 3))
        out.append(({"name": "joint", "when": f"{a} >= 1 or {a} + {b} >= {k}"},
                    lambda c, a=a, b=b, k=k: c[a] >= 1 or c[a] + c[b] >= k))
    if draw(st.booleans()):  # some conditions read their counts only up to a number (up_to)
        capped = []
        for chance, pred in out:
            n = draw(st.sampled_from((None, 1, 2, 3)))
            if n is None:
                capped.append((chance, pred))
            else:
                capped.append((dict(chance, up_to=n),
                               lambda c, pred=pred, n=n: pred({key: min(v, n) for key, v in c.items()})))
        out = capped
    return out


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide=wide_stages_strategy(), count=st.integers(0, 2), tokens_die=st.integers(1, 3),
       removal=removal_strategy(), data=st.data())
def test_random_files_with_the_wider_keys_equal_brute_force(wide, count, tokens_die, removal, data):
    stages, extra = wide
    assume(count * tokens_die * _tokens_bound(stages) <= 6)
    chances = _wide_chances(data.draw, stages)
    text = to_toml(stages, count, removal, die=stages[0]["die"], tokens_die=tokens_die,
                   chances=[c for c, _ in chances], stage_extra=extra)
    sysm = rules.loads(text, "random.toml")
    o = sysm.attack()
    assert o.pmf.sum() == pytest.approx(1.0, abs=1e-12)
    pmf, eff = brute(stages, count, removal, tokens_die=tokens_die, chances=[(c["name"], f) for c, f in chances])
    assert_pmf_equal(o.pmf, pmf, 1e-12)
    for k, v in eff.items():
        assert o.effects[k] == pytest.approx(float(v), abs=1e-10), k
    # sampled, at a fixed seed, within 5 standard errors of every probability
    n = 5_000
    s = sysm.attack(method="sampled", samples=n, seed=1)
    width = max(o.pmf.size, s.pmf.size)
    pe, ps = np.zeros(width), np.zeros(width)
    pe[: o.pmf.size], ps[: s.pmf.size] = o.pmf, s.pmf
    se = np.sqrt(np.clip(pe * (1 - pe), 0, None) / n)
    assert np.all(np.abs(ps - pe) <= 5 * se + 1.0 / n), (ps, pe)
    for c, _ in chances:
        p = o.effects[c["name"]]
        assert abs(s.effects[c["name"]] - p) <= 5 * np.sqrt(max(p * (1 - p), 0.0) / n) + 1.0 / n


def _binomial(count: int, p, models) -> list:
    """P(k) of ``count`` independent attacks each removing a model with chance ``p``, capped at ``models``."""
    from fractions import Fraction
    from math import comb
    p = Fraction(p)
    pmf = [comb(count, k) * p ** k * (1 - p) ** (count - k) for k in range(count + 1)]
    return pmf if models is None or models >= count else pmf[:models] + [sum(pmf[models:])]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stages=stages_strategy(), count=st.integers(1, 3), data=st.data())
def test_a_save_made_model_by_model_is_a_stage_exactly_where_one_chance_per_attack_exists(stages, count, data):
    # the removal's save_name and save_says on random files: where no 'blows vary' is said and no critical
    # adds tokens, the stages' product (the save's stage with them) is each attack's one chance of a
    # removal, so the brute force equals independent attacks at that chance
    assume(_tokens_bound(stages) == 1)
    removal = data.draw(removal_strategy().filter(lambda r: "tough" in r))
    die = stages[0]["die"]
    text = to_toml(stages, count, removal, die=die)
    if "save" in removal:
        text = text.replace("save_die =", 'save_name = "armour save"\nsave_says = "armour {1}"\nsave_die =', 1)
    o = rules.loads(text, "random.toml").attack()
    pmf = brute(stages, count, removal)[0]
    names = [s.name for s in o.stages]
    if o.blows_vary:
        assert len(names) == len(stages) and "no one chance per attack" in o.explain()
    elif o.per_attack_mean is None:
        assert_pmf_equal(np.array([float(x) for x in _binomial(count, o.per_attack, removal["models"])]), pmf, 1e-12)
    if len(names) > len(stages):
        assert names[-1] == "armour save failed" and o.stages[-1].detail.startswith("armour 1 ")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stages=stages_strategy(), n=st.integers(2, 3), count=st.integers(1, 2))
def test_an_attack_of_rolled_tokens_says_one_token_then_one_attack(stages, n, count):
    # [view] token on random files: the stages and per-attack figures say one token (an attack of one
    # token by brute force), per_attack_of_tokens one attack of 1..n tokens (by brute force too)
    assume(count * n * _tokens_bound(stages) <= 6)
    removal = dict(models=None, wounds=1, damage=1, spill=False)
    text = to_toml(stages, count, removal, die=stages[0]["die"], tokens_die=n) + '\n[view]\ntoken = "blip"\n'
    o = rules.loads(text, "random.toml").attack()
    one = brute(stages, 1, removal)[0]
    attack = brute(stages, 1, removal, tokens_die=n)[0]
    token_any = 1 - one[0]
    if o.per_attack_mean is not None:
        assert o.per_attack_any == token_any
        assert o.per_attack_mean == sum(k * p for k, p in enumerate(one))
    else:
        assert o.per_attack == token_any
    assert (o.tokens, o.token) == (n, "blip")
    mean, any_one = o.per_attack_of_tokens()
    assert float(mean) == pytest.approx(float(sum(k * p for k, p in enumerate(attack))), abs=1e-12)
    assert float(any_one) == pytest.approx(float(1 - attack[0]), abs=1e-12)
    assert any(line.startswith("Per blip: ") for line in o.explain().splitlines())
