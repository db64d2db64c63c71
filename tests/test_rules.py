"""Rule files (workbench.rules): exact results against a brute-force enumeration.

Expected numbers come from tests/brute_rules.py (every die face with
itertools and Fractions, every token, every damage sequence), written from
the format's text, or from icepool; sampled results agree with exact ones
within 5 standard errors at fixed seeds.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import icepool
import numpy as np
import pytest

from brute_rules import _roll, brute, stage, to_toml
from pmfcheck import assert_pmf_equal
from workbench import rules
from workbench.errors import InputError, UnknownArgumentError, WorkbenchError
from workbench.outcome import Outcome

TOL = 1e-12
RULES = Path(__file__).resolve().parents[1] / "rules"


def _load(text: str) -> rules.RuleSystem:
    return rules.loads(text, "test.toml")


def _check(system, stages, count, removal, **stats):
    pmf, eff = brute(stages, count, removal)
    o = system.attack(**stats)
    assert isinstance(o, Outcome) and o.method == "exact"
    assert_pmf_equal(o.pmf, pmf, TOL)
    assert o.mean == pytest.approx(float(sum(k * p for k, p in enumerate(pmf))), abs=TOL)
    for name, value in eff.items():
        assert o.effects[name] == pytest.approx(float(value), abs=1e-10), name
    # per stage: the chance one token entering goes on, as the brute force counts the faces
    for st, got in zip(stages, o.stages):
        r = _roll(st)
        want = r["fail"] if st["passes_on"] == "fail" else r["success"] + r["crit"]
        assert got.probability == want and isinstance(got.probability, Fraction)
    return o


def _sampled_agrees(system, seed=3, samples=60_000, **stats):
    e = system.attack(**stats)
    s = system.attack(method="sampled", samples=samples, seed=seed, **stats)
    assert s.method == "sampled" and s.samples == samples
    n = max(e.pmf.size, s.pmf.size)
    pe = np.zeros(n)
    pe[: e.pmf.size] = e.pmf
    ps = np.zeros(n)
    ps[: s.pmf.size] = s.pmf
    se = np.sqrt(pe * (1 - pe) / samples)
    assert np.all(np.abs(ps - pe) <= 5 * se + 1e-12), (ps, pe)
    assert abs(s.mean - e.mean) <= 5 * s.mean_stderr + 1e-12
    for k, v in e.effects.items():
        assert abs(s.effects[k] - v) <= 5 * s.effects_stderr[k] + 1e-12, k


# ---------------------------------------------------------------------------
# criticals and re-rolls
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("on_critical", ["none", "extra", "skip_next", "to_end"])
@pytest.mark.parametrize("reroll", ["none", "ones", "failed"])
def test_each_critical_kind_with_rerolls(on_critical, reroll):
    stages = [
        stage(name="to hit", die=6, target=4, always_fail=(1,), critical=(6,), on_critical=on_critical,
              extra=2, reroll=reroll),
        stage(name="to wound", die=6, target=3, critical=(5, 6) if on_critical != "none" else (),
              on_critical="skip_next" if on_critical != "none" else "none", reroll="ones"),
        stage(name="save", die=6, target=5, passes_on="fail", reroll=reroll),
    ]
    removal = dict(models=4, wounds=2, damage=1)
    sysm = _load(to_toml(stages, 3, removal))
    _check(sysm, stages, 3, removal)


def test_extra_critical_on_the_last_stage_and_skip_past_the_end():
    """An "extra" critical on the last stage adds final successes; a skip_next
    on the last stage is a final success (RULEFILE.md)."""
    for kind in ("extra", "skip_next", "to_end"):
        stages = [stage(name="a", die=4, target=3, reroll="failed"),
                  stage(name="b", die=4, target=3, critical=(4,), on_critical=kind, extra=1)]
        removal = dict(damage=1)
        _check(_load(to_toml(stages, 3, removal, die=4)), stages, 3, removal)


def test_roll_low_modifiers_always_faces_and_a_stage_die():
    stages = [stage(name="test", die=10, roll="low", target=6, modifier=1, always_fail=(10,),
                    always_succeed=(9,), critical=(1,), on_critical="extra", extra=1),
              stage(name="pierce", die=4, target=3, modifier=-1, always_succeed=(1,), reroll="ones")]
    removal = dict(damage=1, models=3)
    _check(_load(to_toml(stages, 2, removal, die=10)), stages, 2, removal)


def test_kill6_example_matches_brute_force_and_shows_all_three_criticals():
    k6 = rules.load(RULES / "kill6.toml")
    kinds = {st.on_critical for st in k6.stages}
    assert {"extra", "skip_next", "to_end"} <= kinds
    assert {"ones", "failed"} <= {st.reroll for st in k6.stages}
    # bs 4 + light cover 1, stationary +1; ap 4; S4 vs T4 needs 4; save 5+
    stages = [
        stage(name="to hit", target=5, modifier=1, always_fail=(1,), critical=(6,), on_critical="extra",
              extra=1, reroll="ones"),
        stage(name="to pierce", target=4, always_fail=(1,), critical=(6,), on_critical="skip_next"),
        stage(name="to wound", target=4, always_fail=(1,), critical=(6,), on_critical="to_end",
              reroll="failed"),
        stage(name="save", target=5, always_fail=(1,), passes_on="fail"),
    ]
    removal = dict(models=3, wounds=2, damage_roll=(1, 3, 0))
    _check(k6, stages, 2, removal, shots=2, cover="light", stationary=True, models=3, wounds=2, bs=4,
           ap=4, s=4, t=4, sv=5)


# ---------------------------------------------------------------------------
# removal: damage, damage rolls, wasted damage, spill, pooled
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("spill", [False, True])
@pytest.mark.parametrize("damage", [{"damage": 2}, {"damage": 0}, {"damage_roll": (1, 3, 0)},
                                    {"damage_roll": (2, 3, 0)}, {"damage_roll": (1, 4, 1)},
                                    {"damage_roll": (1, 3, -1)}])
@pytest.mark.parametrize("models", [None, 2])
def test_damage_wasted_and_spill(spill, damage, models):
    stages = [stage(name="hit", die=6, target=3, critical=(6,), on_critical="extra", extra=1),
              stage(name="wound", die=6, target=4)]
    removal = dict(models=models, wounds=3, spill=spill, **damage)
    _check(_load(to_toml(stages, 2, removal)), stages, 2, removal)


def test_wasted_damage_is_positive_where_a_model_has_fewer_wounds_left():
    """d3 damage on 2-wound models wastes 1 whenever a 3 lands on a fresh model (1/3 per success)."""
    stages = [stage(name="hit", die=6, target=1)]  # always succeeds
    removal = dict(wounds=2, damage_roll=(1, 3, 0))
    o = _check(_load(to_toml(stages, 1, removal)), stages, 1, removal)
    assert o.effects["wasted_damage"] == pytest.approx(1 / 3, abs=TOL)


@pytest.mark.parametrize("formula, fn", [
    ("successes * 3 // 2", lambda n: n * 3 // 2),
    ("max(successes - 1, 0)", lambda n: max(n - 1, 0)),
    ("2 * successes if successes >= 2 else successes", lambda n: 2 * n if n >= 2 else n),
])
@pytest.mark.parametrize("models", [None, 3])
def test_pooled_removal(formula, fn, models):
    stages = [stage(name="hit", die=6, target=4, critical=(6,), on_critical="extra"),
              stage(name="pen", die=6, target=3, passes_on="success")]
    removal = dict(models=models, removed=fn, removed_expr=formula)
    o = _check(_load(to_toml(stages, 3, removal)), stages, 3, removal)
    assert o.effects["wasted_damage"] == 0


def test_zero_attacks_and_a_unit_of_no_models():
    stages = [stage(name="hit", target=4)]
    o = _load(to_toml(stages, 0, dict(damage=1))).attack()
    assert list(o.pmf) == [1.0]
    o = _load(to_toml(stages, 3, dict(damage=1, models=0))).attack()
    assert list(o.pmf) == [1.0] and o.effects["wasted_damage"] == pytest.approx(1.5, abs=TOL)


# ---------------------------------------------------------------------------
# stats: integers, choices, booleans, forbids
# ---------------------------------------------------------------------------
STATS = {
    "bs": {"min": 2, "max": 6, "default": 4, "label": "BS", "help": "hits on N+"},
    "shots": {"min": 0, "max": 4, "default": 2},
    "cover": {"options": {"none": 0, "light": 1, "heavy": 2}, "default": "none"},
    "rend": {"kind": "bool", "default": False},
    "w": {"min": 1, "max": 3, "default": 2},
}
FORBID = [{"when": "rend and cover == 2", "message": "rending shots ignore heavy cover, which is not allowed"}]


def _stat_game():
    text = to_toml([stage(name="hit"), stage(name="wound")], "shots",
                   dict(models="3", wounds="w", damage="1 + rend"), stats=STATS, forbid=FORBID,
                   targets=["bs + cover", "4 - rend"], modifiers=[None, None])
    return _load(text)


@pytest.mark.parametrize("bs, cover, rend, shots, w", [
    (4, "none", False, 2, 2), (3, "light", True, 3, 1), (6, "heavy", False, 1, 3), (2, "light", False, 4, 2),
    (5, "none", True, 0, 1)])
def test_choices_booleans_and_expressions(bs, cover, rend, shots, w):
    sysm = _stat_game()
    c = {"none": 0, "light": 1, "heavy": 2}[cover]
    stages = [stage(name="hit", target=bs + c), stage(name="wound", target=4 - int(rend))]
    removal = dict(models=3, wounds=w, damage=1 + int(rend))
    o = _check(sysm, stages, shots, removal, bs=bs, cover=cover, rend=rend, shots=shots, w=w)
    assert o.inputs["cover"] == cover and o.inputs["rend"] is rend and o.attacks == shots


def test_stats_records_follow_the_protocol():
    sysm = _stat_game()
    assert [s.name for s in sysm.stats] == list(STATS)
    bs, _, cover, rend, _ = sysm.stats
    assert (bs.kind, bs.min, bs.max, bs.default, bs.label, bs.help) == ("int", 2, 6, 4, "BS", "hits on N+")
    assert (cover.kind, cover.options, cover.default, cover.label) == (
        "choice", (("none", 0), ("light", 1), ("heavy", 2)), "none", "cover")
    assert (rend.kind, rend.default, rend.min, rend.options) == ("bool", False, None, ())
    assert sysm.KEY == sysm.key == "testgame" and sysm.DIE == 6 and sysm.SEED is None
    assert sysm.TABLES == {"attack": sysm.attack_table}
    assert all(hasattr(st, "name") and st.die == 6 for st in sysm.stages)
    with pytest.raises(AttributeError):
        sysm.key = "other"


def test_forbid_raises_the_designers_message():
    sysm = _stat_game()
    with pytest.raises(InputError) as exc:
        sysm.attack(rend=True, cover="heavy")
    assert "rending shots ignore heavy cover" in str(exc.value)
    assert "cover='heavy'" in str(exc.value) and "rend=True" in str(exc.value)
    assert isinstance(exc.value, ValueError)
    sysm.attack(rend=True, cover="light")  # allowed
    with pytest.raises(InputError, match="rending"):
        sysm.attack_table(rend=True, cover="heavy", bs=np.array([2, 3]))


@pytest.mark.parametrize("kwargs, field, words", [
    ({"bs": 7}, "bs", "from 2 to 6"),
    ({"bs": 4.5}, "bs", "from 2 to 6"),
    ({"bs": True}, "bs", "whole number"),
    ({"bs": "4+"}, "bs", "whole number"),
    ({"cover": "medium"}, "cover", "'none', 'light', 'heavy'"),
    ({"rend": 1}, "rend", "True or False"),
    ({"shots": -1}, "shots", "from 0 to 4"),
])
def test_bad_stat_values_name_the_stat_and_what_is_allowed(kwargs, field, words):
    with pytest.raises(InputError) as exc:
        _stat_game().attack(**kwargs)
    assert exc.value.field == field and words in str(exc.value)


def test_unknown_keyword_is_named_with_a_close_match():
    with pytest.raises(UnknownArgumentError, match="did you mean 'shots'"):
        _stat_game().attack(shot=3)


def test_a_negative_count_names_count():
    sysm = _load(to_toml([stage(name="hit")], "shots - 3", dict(damage=1),
                         stats={"shots": {"min": 0, "max": 5, "default": 1}}))
    with pytest.raises(InputError) as exc:
        sysm.attack(shots=1)
    assert "count" in exc.value.field and "-2" in str(exc.value) and "shots=1" in str(exc.value)
    sysm.attack(shots=4)


def test_division_by_zero_at_resolution_names_the_field():
    sysm = _load(to_toml([stage(name="hit")], 1, dict(damage=1), stats={"t": {"min": 0, "max": 3, "default": 1}},
                         targets=["6 // t"]))
    with pytest.raises(InputError) as exc:
        sysm.attack(t=0)
    assert exc.value.field == "stages[0].target" and "t=0" in str(exc.value)
    # a division in the branch not taken is no error
    sysm2 = _load(to_toml([stage(name="hit")], 1, dict(damage=1), stats={"t": {"min": 0, "max": 3, "default": 1}},
                          targets=["6 // t if t > 0 else 7"]))
    assert sysm2.attack(t=0).pmf[0] == 1.0


# ---------------------------------------------------------------------------
# sampled agrees with exact; the vectorised twin agrees with the scalar path
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, stats", [
    ("kill6.toml", {}),
    ("kill6.toml", {"shots": 10, "cover": "light", "wounds": 3, "models": 4}),
    ("changes/shooting.toml", {"bs": 4, "s": 6, "ap": 5, "t": 1, "sv": 2, "shots": 8, "models": 3, "wounds": 2}),
    ("gunfire.toml", {"bs": 4, "s": 3, "t": 2, "shots": 9, "models": 6}),
    ("gunfire.toml", {"bs": 4, "s": 3, "t": 2, "shots": 9, "models": None, "die": "d6", "base": 4}),
])
def test_sampled_agrees_with_exact(name, stats):
    _sampled_agrees(rules.load(RULES / name), seed=11, **stats)


def test_sampled_spill_pooled_and_damage_rolls_agree_with_exact():
    stages = [stage(name="hit", target=3, critical=(6,), on_critical="skip_next", reroll="ones"),
              stage(name="wound", target=4, critical=(6,), on_critical="to_end"),
              stage(name="save", target=5, passes_on="fail", reroll="failed")]
    for removal in (dict(models=3, wounds=3, damage_roll=(1, 3, 1), spill=True),
                    dict(models=4, wounds=2, damage_roll=(2, 3, 0)),
                    dict(models=5, removed_expr="successes * 2 // 3")):
        _sampled_agrees(_load(to_toml(stages, 5, removal)), seed=5)


def test_sampled_is_reproducible_with_a_seed_and_a_generator():
    k6 = rules.load(RULES / "kill6.toml")
    a = k6.attack(method="sampled", samples=5000, seed=7)
    b = k6.attack(method="sampled", samples=5000, seed=7)
    c = k6.attack(method="sampled", samples=5000, seed=np.random.default_rng(7))
    assert np.array_equal(a.pmf, b.pmf) and np.array_equal(a.pmf, c.pmf)


def test_attack_table_equals_the_loop_of_single_calls():
    k6 = rules.load(RULES / "kill6.toml")
    bs = np.array([2, 3, 4, 5, 6, 3])
    shots = np.array([0, 1, 5, 12, 40, 7])
    wounds = np.array([1, 2, 3, 1, 2, 6])
    out = k6.attack_table(bs=bs, shots=shots, wounds=wounds, cover="light", stationary=True)
    assert out["pmf"].shape[0] == bs.size
    for i in range(bs.size):
        o = k6.attack(bs=int(bs[i]), shots=int(shots[i]), wounds=int(wounds[i]), cover="light", stationary=True)
        assert_pmf_equal(out["pmf"][i], o.pmf, TOL)
        for k, v in o.effects.items():
            assert out["effects"][k][i] == pytest.approx(v, abs=TOL)


def test_icepool_agrees_on_a_spill_and_a_binomial_file():
    """icepool as an independent oracle: hit 4+ re-rolling ones, wound 3+,
    d3 damage totalled and divided by 2 wounds, capped at 4 models."""
    stages = [stage(name="hit", target=4, reroll="ones"), stage(name="wound", target=3)]
    sysm = _load(to_toml(stages, 5, dict(models=4, wounds=2, damage_roll=(1, 3, 0), spill=True)))
    hit = icepool.d6.reroll([1], depth=1) >= 4
    wound = icepool.d6 >= 3
    per_attack = (hit & wound)  # independent dice: success of both
    successes = 5 @ per_attack
    total = successes @ icepool.d3
    removed = total.map(lambda t: min(4, t // 2))
    want = [removed.probability(k) for k in range(5)]
    assert_pmf_equal(sysm.attack().pmf, want, TOL)

    gun = rules.load(RULES / "gunfire.toml")
    p_hit = icepool.d10 >= 6 + 4 - 3
    p_pen = icepool.d10 >= 6 + 2 - 5
    pens = 6 @ (p_hit & p_pen)
    removed = pens.map(lambda n: min(5, n * 2 // 3))
    want = [removed.probability(k) for k in range(6)]
    assert_pmf_equal(gun.attack(bs=3, ev=4, ap=5, av=2, s=2, t=3, shots=6, models=5).pmf, want, TOL)


def test_explain_markdown_and_bbcode_carry_the_files_notes_and_stage_words():
    k6 = rules.load(RULES / "kill6.toml")
    o = k6.attack()
    text = o.explain()
    assert "Sustained hits" in text and "needs 4+ on a d6" in text
    assert "[code]" in o.to_bbcode() and "[table]" in o.to_bbcode(tables=True) and "|" in o.to_markdown()
    assert o.notes[: len(k6.notes)] == k6.notes
    assert "product of the stage chances" in o.notes[-1]
    plain = rules.loads(to_toml([stage(name="hit")], 1, dict(damage=1)), "plain.toml")
    assert plain.attack().notes == plain.notes == ()


NOTED = """\
[system]
key = "noted"
name = "Noted"
die = 6
notes = ["always shown", { text = "heavy cover", when = "cover >= 2" }, { text = "several shots", when = "shots > 1 and not rerolls" }, "last"]

[stats.cover]
options = { none = 0, light = 1, heavy = 2 }
default = "none"

[stats.shots]
min = 1
max = 10
default = 1

[stats.rerolls]
kind = "bool"
default = false

[attack]
count = "shots"

[[stages]]
name = "hit"
target = "4 + cover"

[volley]
profile = ["shots"]
"""


def test_a_note_with_when_is_shown_only_where_its_condition_holds():
    game = rules.loads(NOTED, "noted.toml")
    assert game.notes == ("always shown", "last")
    assert game.attack().notes == ("always shown", "last")
    assert game.attack(cover="heavy").notes == ("always shown", "heavy cover", "last")
    assert game.attack(cover="heavy", shots=3).notes == ("always shown", "heavy cover", "several shots", "last")
    assert game.attack(shots=3, rerolls=True, method="sampled", samples=100).notes == ("always shown", "last")
    # a volley shows a note whose condition holds for one of its profiles
    assert game.volley([dict(shots=1), dict(shots=2)]).notes == ("always shown", "several shots", "last")
    assert game.volley([dict(shots=1)], cover="light").notes == ("always shown", "last")
    # the numbers do not read the notes
    plain = rules.loads(NOTED.replace('"heavy cover", when = "cover >= 2"', '"heavy cover", when = "1"'), "p.toml")
    assert_pmf_equal(plain.attack(cover="heavy", shots=3).pmf, game.attack(cover="heavy", shots=3).pmf, 0)


def test_positional_arguments_are_refused_with_the_workbench_error():
    k6 = rules.load(RULES / "kill6.toml")
    with pytest.raises(UnknownArgumentError, match="keywords"):
        k6.attack(4)
    with pytest.raises(UnknownArgumentError):
        k6.attack_table(4)


def test_errors_are_workbench_errors():
    assert issubclass(rules.RuleFileError, WorkbenchError)


def _toml_blocks(path: Path) -> list[str]:
    text = path.read_text()
    return [b.split("```", 1)[0] for b in text.split("```toml\n")[1:]]


@pytest.mark.parametrize("path", [Path(__file__).resolve().parents[1] / "docs" / "rulefiles.md",
                                  Path("/work/shared/RULEFILE.md")])
def test_the_documented_examples_load_and_resolve(path):
    if not path.exists():  # the shared format page lives outside the checkout
        path = Path(__file__).resolve().parents[1] / "docs" / "rulefiles.md"
    (block,) = _toml_blocks(path)[:1]
    sysm = rules.loads(block, path.name)
    o = sysm.attack()
    assert o.pmf.sum() == pytest.approx(1.0) and len(o.stages) == len(sysm.stages)
    s = sysm.attack(method="sampled", samples=20_000, seed=2)
    assert abs(s.mean - o.mean) <= 5 * s.mean_stderr + 1e-12


def test_a_rule_system_fits_compare_sweeps_contract(monkeypatch):
    """compare.sweep reads a system's functions, signatures and TABLES; once
    the registry hands it a RuleSystem (here: compare._module patched to pass
    the object through) the vectorised path and the loop agree."""
    from workbench import compare, systems

    k6 = rules.load(RULES / "kill6.toml")
    if callable(getattr(systems, "keys", None)) and "kill6" in systems.keys():
        target = "kill6"          # the registry finds rules/kill6.toml itself
    else:
        monkeypatch.setattr(compare, "_module", lambda system: system)
        target = k6
    grid = dict(bs=[2, 4, 6], shots=[3, 12], cover=["none", "light"], stationary=[False, True])
    df = compare.sweep(target, "attack", progress=False, **grid)
    assert df.attrs["path"] == "table" and len(df) == 24
    for _, row in df.sample(5, random_state=1).iterrows():
        o = k6.attack(bs=int(row.bs), shots=int(row.shots), cover=row.cover, stationary=bool(row.stationary))
        assert row["mean"] == pytest.approx(o.mean, abs=TOL)
        assert row["to hit"] == pytest.approx(o.effects["to hit"], abs=TOL)
    with pytest.raises(UnknownArgumentError):
        compare.sweep(target, "attack", progress=False, bss=[2, 3])


def test_a_rule_system_pickles_as_its_text():
    import pickle

    k6 = rules.load(RULES / "kill6.toml")
    again = pickle.loads(pickle.dumps(k6))
    assert again.key == k6.key and again.source == k6.source and again.path == k6.path
    assert np.array_equal(again.attack(shots=9).pmf, k6.attack(shots=9).pmf)


def test_an_optional_stat_refused_says_none_is_allowed():
    system = rules.load(RULES / "antares.toml")
    with pytest.raises(InputError) as exc:
        system.attack(models=0)
    assert exc.value.field == "models" and "a whole number from 1 to " in str(exc.value)
    assert str(exc.value).split(", got")[0].endswith(" or None")
