"""rules/forgotten/shooting.toml, The Forgotten's own rule file, and
workbench.systems.forgotten.shooting, which resolves through it, equal the
hand-written resolver of tests/reference/forgotten.py (itself checked against
the brute force of tests/brute_forgotten.py) over stat grids
and every switch, to 1e-12 (pmf and effects), refuses what the function
refuses, and sampled within 5 standard errors at a fixed seed; a heroic save
at -1 on the wounded models only is the removal's save reading wounded."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from pmfcheck import assert_pmf_equal
from workbench import rules
from workbench.errors import InputError
from workbench.rules.errors import ForbiddenError
from workbench.systems import forgotten

from reference import forgotten as reference

TOL = 1e-12
RULES = Path(__file__).resolve().parents[1] / "rules"

SHOOT = (0, 2, 6, 9, 11)
ATTACK_POWER = (0, 4, 8, 10)
SHOTS = (1, 3, 5)


@pytest.fixture(scope="module")
def rs():
    return rules.load(RULES / "forgotten" / "shooting.toml")


def file_stats(kw: dict) -> dict:
    """The function's keyword arguments as the file's stats: no aimed fire is the choice
    "none", no hero is ``hero = false``, Damage and Defence unused under damage v2 are left at
    the file's defaults."""
    out = {k: x for k, x in kw.items() if k not in ("heroic_save", "damage", "defence", "aimed")}
    out["aimed"] = "none" if kw.get("aimed") is None else kw["aimed"]
    if kw.get("heroic_save") is not None:
        out.update(hero=True, heroic_save=kw["heroic_save"])
    for k in ("damage", "defence"):
        if kw.get(k) is not None:
            out[k] = kw[k]
    return out


def non_damaging(rs, stats: dict) -> float:
    """Hits that down nobody: hits minus the models downed counted without the unit's size."""
    o = rs.attack(**dict(stats, models=None))
    return o.effects["hits"] - o.mean


def assert_same(rs, **kw):
    """The file equals the hand-written reference, and so does forgotten.shooting (which
    resolves through the file): pmf, every effect and the stages' words."""
    want = reference.shooting(**kw)
    public = forgotten.shooting(**kw)
    assert_pmf_equal(public.pmf, want.pmf, TOL)
    assert public.pmf.shape == want.pmf.shape and public.stages == want.stages and public.notes == want.notes
    for name, value in want.effects.items():
        assert abs(public.effects[name] - value) <= 1e-10, name
    stats = file_stats(kw)
    got = rs.attack(**stats)
    assert_pmf_equal(got.pmf, want.pmf, TOL)
    for name in ("shock", "hits", "near_misses"):
        assert abs(got.effects[name] - want.effects[name]) <= TOL, (name, got.effects[name], want.effects[name])
    nd = non_damaging(rs, stats)
    assert abs(nd - want.effects["non_damaging_hits"]) <= 1e-10, (nd, want.effects["non_damaging_hits"])


#: the file's sweep without the unit's size, by (shots, stats): the same for every unit size of a
#: switch, whose tests run one after another (read only)
_SIZELESS: dict = {}


def _sizeless(rs, shots, stats: dict) -> dict:
    key = (tuple(shots), tuple(sorted(stats.items())))
    if key not in _SIZELESS:
        g = [x.ravel() for x in np.meshgrid(SHOOT, ATTACK_POWER, shots, indexing="ij")]
        _SIZELESS[key] = rs.attack_table(shoot=g[0], attack_power=g[1], shots=g[2], models=None, **stats)
    return _SIZELESS[key]


def assert_table_same(rs, models, shots=SHOTS, **kw):
    """The file's sweep over SHOOT x ATTACK POWER x ``shots`` equals the function's table."""
    g = [x.ravel() for x in np.meshgrid(SHOOT, ATTACK_POWER, shots, indexing="ij")]
    grid = dict(shoot=g[0], attack_power=g[1], shots=g[2])
    want = reference.shooting_table(**grid, models=models, **kw)
    public = forgotten.shooting_table(**grid, models=models, **kw)
    assert public["pmf"].shape == want["pmf"].shape
    np.testing.assert_allclose(public["pmf"], want["pmf"], rtol=0, atol=TOL)
    for name, value in want["effects"].items():
        np.testing.assert_allclose(public["effects"][name], value, rtol=0, atol=1e-10, err_msg=name)
    stats = file_stats(kw)
    got = rs.attack_table(**grid, models=models, **stats) if models is not None else _sizeless(rs, shots, stats)
    assert_pmf_equal(got["pmf"], want["pmf"], TOL)  # row by row
    for name in ("shock", "hits", "near_misses"):
        np.testing.assert_allclose(got["effects"][name], want["effects"][name], rtol=0, atol=TOL, err_msg=name)
    sizeless = _sizeless(rs, shots, stats)
    downed = sizeless["pmf"] @ np.arange(sizeless["pmf"].shape[-1])
    np.testing.assert_allclose(got["effects"]["hits"] - downed, want["effects"]["non_damaging_hits"],
                               rtol=0, atol=1e-10)


#: every switch of the function at every value it takes (the others at their defaults), with the
#: stats that let it apply
SWITCHES = (
    [dict(moved=m) for m in forgotten.MOVED]
    + [dict(range=r) for r in forgotten.RANGES]
    + [dict(facing_away=True), dict(cover=True), dict(cover=True, flanked=True), dict(flanked=True)]
    + [dict(armour=a) for a in forgotten.ARMOUR]
    + [dict(cover_level=c, flanked=f) for c in forgotten.COVER_LEVEL for f in (False, True)]
    + [dict(blind_fire=True, blind_fire_rule="any"), dict(blind_fire=True, blind_fire_rule="any", range="long")]
    + [dict(kill_on="at_or_above"), dict(kill_on="at_or_above", armour="heavy", cover_level="soft")]
    + [dict(shock_rule="pooled")]
    + [dict(heroic_save=h, target_shocked=s, shock_rule=r) for h in (0, 4, 9, 12) for s in (False, True)
       for r in ("seed", "pooled")]
    + [dict(tough=True, shock_rule=r, target_wounded=w) for r in ("seed", "pooled") for w in (0, 1, 2, 5)]
    + [dict(target_wounded=w, target_shocked=True) for w in (1, 3)]
    + [dict(firer_wounded=True), dict(firer_shocked=True), dict(firer_wounded=True, firer_shocked=True)]
    + [dict(blast=True), dict(aimed_fire_team=True)]
)


def _words(kw: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("switch, models", [(s, m) for s in SWITCHES for m in (None, 1, 3, 5)
                                            if m is None or s.get("target_wounded", 0) <= m],
                         ids=lambda x: _words(x) if isinstance(x, dict) else f"models={x}")
def test_every_switch_over_a_grid_of_stats_equals_the_builtin_table(rs, switch, models):
    assert_table_same(rs, models, **switch)


@pytest.mark.parametrize("damage, defence", [(1, 1), (2, 1), (1, 2), (3, 7), (7, 3), (4, 5), (5, 4), (6, 12),
                                             (12, 6), (40, 40)])
@pytest.mark.parametrize("extra", [{}, dict(shield=True), dict(aimed_fire_team=True, aimed="damage"),
                                   dict(firer_wounded=True, firer_shocked=True), dict(tough=True, shock_rule="pooled"),
                                   dict(heroic_save=5, target_shocked=True)],
                         ids=["plain", "shield", "aimed", "firer", "tough", "hero"])
def test_damage_v1_chart_over_damage_and_defence_equals_the_builtin(rs, damage, defence, extra):
    assert_table_same(rs, 4, damage_rule="v1", damage=damage, defence=defence, **extra)


@pytest.mark.parametrize("aimed, moved", list(itertools.product(("hit", "damage"), ("stationary", "cautious"))))
@pytest.mark.parametrize("extra", [{}, dict(cover=True, cover_level="hard"), dict(firer_wounded=True)],
                         ids=["plain", "cover", "firer"])
def test_aimed_fire_single_shot_equals_the_builtin(rs, aimed, moved, extra):
    for models in (None, 2):
        assert_table_same(rs, models, shots=(1,), aimed=aimed, moved=moved, **extra)
    # a fire team aiming: one aimed shot per soldier
    assert_table_same(rs, 3, aimed=aimed, moved=moved, aimed_fire_team=True, **extra)


#: the target's states, the shock rule and the firer's states together
COMBINED = [dict(models=m, tough=t, target_wounded=w, heroic_save=h, target_shocked=s, shock_rule=r)
            for m, t, w, h, s, r in itertools.product((None, 2, 6), (False, True), (0, 1, 4), (None, 0, 6),
                                                      (False, True), ("seed", "pooled"))
            if m is None or w <= m]


@pytest.mark.parametrize("kw", COMBINED, ids=_words)
def test_combined_target_states_over_a_grid_equal_the_builtin_table(rs, kw):
    kw = dict(kw)
    assert_table_same(rs, kw.pop("models"), firer_shocked=kw["target_shocked"], **kw)


def test_scalar_outcomes_equal_the_builtin(rs):
    """The outcome path (not the sweep) on a few cells of every kind."""
    for kw in (dict(shoot=6, attack_power=5, shots=4, models=3),
               dict(shoot=3, attack_power=7, shots=2, models=None, shock_rule="pooled", heroic_save=5),
               dict(shoot=8, attack_power=2, shots=5, models=4, tough=True, target_wounded=1, shock_rule="pooled"),
               dict(shoot=6, attack_power=5, shots=1, aimed="damage", moved="stationary", cover=True, flanked=True,
                    cover_level="hard", armour="heavy", kill_on="at_or_above"),
               dict(shoot=5, attack_power=0, shots=3, damage_rule="v1", damage=5, defence=9, shield=True,
                    blind_fire=True, firer_wounded=True)):
        assert_same(rs, **kw)


def test_blind_fire_as_the_seed_allows_it_equals_the_builtin(rs):
    for shots, blast in (((3, 6), False), ((1, 2, 5), True)):
        assert_table_same(rs, 3, shots=shots, blind_fire=True, blast=blast)


def test_large_volleys_equal_the_builtin(rs):
    """Up to the function's 1000 shots: the shock chance reads its counts only up to 2."""
    for shots, rule, tough in itertools.product((40, 1000), ("seed", "pooled"), (False, True)):
        assert_same(rs, shoot=10, attack_power=9, shots=shots, models=4, shock_rule=rule, tough=tough,
                    target_wounded=2 if tough else 0)


@pytest.mark.parametrize("kw", [
    dict(blind_fire=True, range="long", shots=3),
    dict(blind_fire=True, shots=2),
    dict(aimed="hit", moved="normal"),
    dict(aimed="hit", shots=2),
    dict(aimed="hit", blind_fire=True, blind_fire_rule="any"),
    dict(damage_rule="v1", damage=3, defence=3, armour="light"),
    dict(damage_rule="v1", damage=3, defence=3, cover_level="soft"),
    dict(damage_rule="v1", damage=3, defence=3, kill_on="at_or_above"),
    dict(shield=True),
    dict(shots=0),
    dict(shoot=21),
    dict(armour="medium"),
    dict(damage_rule="v1", damage=41, defence=3),
], ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()))
def test_what_the_builtin_refuses_the_file_refuses(rs, kw):
    args = dict(dict(shoot=6, attack_power=5, shots=1), **kw)
    with pytest.raises(InputError) as public:
        forgotten.shooting(**args)
    with pytest.raises(InputError) as file:
        rs.attack(**file_stats(args))
    if isinstance(public.value, ForbiddenError):  # a forbidden combination: the file's [[forbid]], in its words
        assert str(public.value) == str(file.value)
    else:
        with pytest.raises(InputError) as want:
            reference.shooting(**args)
        assert str(public.value) == str(want.value)


@pytest.mark.parametrize("kw", [dict(tough=True), dict(target_wounded=1), dict(tough=True, target_wounded=2),
                                dict(tough=True, target_wounded=1, shock_rule="pooled", target_shocked=True)])
def test_a_wounded_heros_save_at_minus_one_equals_the_builtin(rs, kw):
    """The save of each kill depends on the kills before it (a model with the red token, or a
    tough model's first kill, saves at -1): the removal's save reads whether it is wounded."""
    args = dict(shoot=6, attack_power=5, shots=3, models=4, heroic_save=6, **kw)
    assert_same(rs, **args)
    for shots, models in ((1, None), (7, 2), (40, 6), (1000, 5)):
        assert_same(rs, **dict(args, shots=shots, models=models))


@pytest.mark.parametrize("kw", [
    dict(shoot=6, attack_power=4, shots=6, models=4),
    dict(shoot=5, attack_power=3, shots=5, models=3, tough=True, shock_rule="pooled", target_wounded=1),
    dict(shoot=7, attack_power=2, shots=4, models=None, heroic_save=6, target_shocked=True),
    dict(shoot=6, attack_power=5, shots=5, damage_rule="v1", damage=4, defence=3, shield=True, blind_fire=True),
])
def test_the_file_sampled_agrees_with_the_builtin_within_5_se(rs, kw):
    samples = 40_000
    want = reference.shooting(**kw)
    got = rs.attack(**file_stats(kw), method="sampled", samples=samples, seed=7)
    public = forgotten.shooting(**kw, method="sampled", samples=samples, seed=7)
    assert public.pmf.shape == want.pmf.shape and public.stages == want.stages
    assert np.all(np.abs(public.pmf - want.pmf) <= 5 * np.sqrt(want.pmf * (1 - want.pmf) / samples) + 1.0 / samples)
    for name, value in want.effects.items():
        assert abs(public.effects[name] - value) <= 5 * public.effects_stderr[name] + 1.0 / samples, name
    width = max(want.pmf.size, got.pmf.size)
    pw, pg = np.zeros(width), np.zeros(width)
    pw[: want.pmf.size], pg[: got.pmf.size] = want.pmf, got.pmf
    se = np.sqrt(pw * (1 - pw) / samples)
    assert np.all(np.abs(pg - pw) <= 5 * se + 1.0 / samples), (pg, pw)
    p = want.effects["shock"]
    assert abs(got.effects["shock"] - p) <= 5 * np.sqrt(p * (1 - p) / samples) + 1.0 / samples
    for name in ("hits", "near_misses"):
        # a count of the shots: its standard deviation is at most sqrt(shots) / 2 per sample
        assert abs(got.effects[name] - want.effects[name]) <= 5 * np.sqrt(kw["shots"] / 4 / samples)


def test_the_file_says_every_argument_of_the_function(rs):
    """Every argument of forgotten.shooting is a stat of the file (heroic_save's none is the
    ``hero`` switch), with the function's ranges and choices."""
    import inspect
    args = [p for p in inspect.signature(forgotten.shooting).parameters if p not in ("method", "samples", "seed")]
    names = {s.name for s in rs.stats}
    assert set(args) <= names and names - set(args) == {"hero"}
    assert {n for n, _ in rs.stat("moved").options} == set(forgotten.MOVED)
    assert {n for n, _ in rs.stat("range").options} == set(forgotten.RANGES)
    assert {n for n, _ in rs.stat("armour").options} == set(forgotten.ARMOUR)
    assert {n for n, _ in rs.stat("cover_level").options} == set(forgotten.COVER_LEVEL)
    assert rs.stat("models").default is None
    most = rs.stat("shots").max
    with pytest.raises(InputError, match=rf"^shots: expected a whole number from 1 to {most}, got {most + 1}"):
        forgotten.shooting(shoot=6, attack_power=5, shots=most + 1)
    for name in ("shoot", "attack_power", "heroic_save"):   # docs/rules/forgotten.md, "Ranges"
        assert (rs.stat(name).min, rs.stat(name).max) == (0, 20)
    for name in ("damage", "defence"):
        assert (rs.stat(name).min, rs.stat(name).max) == (1, 40)


def test_the_shipped_file_is_the_builtin_and_an_edited_copy_is_a_new_system(tmp_path, monkeypatch):
    from workbench import systems
    monkeypatch.setattr(systems, "CHECKOUT_RULES", RULES)
    monkeypatch.setenv(systems.RULES_ENV, str(tmp_path))
    assert systems.keys().count("forgotten") == 1 and systems.broken() == ()
    assert systems.get("forgotten").module.__name__ == "workbench.systems.forgotten"
    text = (RULES / "forgotten" / "shooting.toml").read_text(encoding="utf-8")
    text = text.replace('key = "forgotten"', 'key = "my_forgotten"', 1)
    # the variant: a shot hits on SHOOT 4 unless told otherwise
    (tmp_path / "my_forgotten.toml").write_text(text.replace("default = 6", "default = 4", 1), encoding="utf-8")
    assert "my_forgotten" in systems.keys() and systems.broken() == ()
    desc = systems.get("my_forgotten")
    assert desc.key == "my_forgotten" and desc.path == tmp_path / "my_forgotten.toml"
    assert desc.attack().stages[0].probability == forgotten.shooting(shoot=4, attack_power=5).stages[0].probability


def test_too_much_exact_work_for_tough_models_is_refused_in_the_functions_words():
    """The state of tough or wounded models is stepped once per shot: a sweep of 120 cells at
    1000 shots passes the budget, and the error names the function's argument, not the file's."""
    with pytest.raises(InputError) as e:
        forgotten.shooting_table(shoot=np.arange(12), attack_power=np.arange(10)[:, None], shots=1000, tough=True)
    assert e.value.field == "shots" and "sampled" in str(e.value)
    assert forgotten.shooting_table(shoot=np.arange(12), attack_power=5, shots=100, tough=True)["pmf"].shape == (12, 101)


#: stat sets of forgotten.shooting, between them every switch that changes the stages' words: each
#: modifier to hit, flanked cover, each armour and cover level, aimed fire either way, the kill roll
#: needed, damage v1 with and without a shield, heroes, tough models, red tokens and shock
WORDED = [
    dict(shoot=6, attack_power=5),
    dict(shoot=6, attack_power=5, shots=3, models=5, moved="stationary", range="close", facing_away=True, cover=True),
    dict(shoot=7, attack_power=4, shots=4, moved="normal", range="long", firer_wounded=True, firer_shocked=True),
    dict(shoot=5, attack_power=5, shots=3, blind_fire=True, cover=True, flanked=True, cover_level="hard"),
    dict(shoot=6, attack_power=3, aimed="hit", moved="stationary", armour="heavy", cover_level="soft"),
    dict(shoot=6, attack_power=3, aimed="damage", armour="light", cover=True, cover_level="hard", kill_on="at_or_above"),
    dict(shoot=6, attack_power=5, damage_rule="v1", damage=4, defence=3, shield=True, aimed="damage"),
    dict(shoot=6, attack_power=5, shots=2, damage_rule="v1", damage=3, defence=7, firer_shocked=True),
    dict(shoot=6, attack_power=5, shots=3, heroic_save=6, target_shocked=True, models=4),
    dict(shoot=6, attack_power=5, shots=3, tough=True, target_wounded=1, models=3),
    dict(shoot=5, attack_power=4, shots=2, tough=True, heroic_save=7, target_wounded=2),
]


@pytest.fixture()
def copied(tmp_path, monkeypatch):
    """The system of a copy of the built-in's shooting file under the key my_forgotten, unchanged."""
    from workbench import systems
    monkeypatch.setenv(systems.RULES_ENV, str(tmp_path))
    text = (RULES / "forgotten" / "shooting.toml").read_text(encoding="utf-8")
    assert text.count('key = "forgotten"') == 1
    (tmp_path / "my_forgotten.toml").write_text(text.replace('key = "forgotten"', 'key = "my_forgotten"'),
                                                encoding="utf-8")
    assert systems.broken() == ()
    return systems.get("my_forgotten")


def names(o) -> list[str]:
    return [s.name for s in o.stages]


def _shown(o) -> list[str]:
    """explain()'s lines of the stages, the product per shot and the totals."""
    names = tuple(f"{s.name[:1].upper()}{s.name[1:]}: " for s in o.stages)
    return [line for line in o.explain().splitlines() if line.startswith(names + ("Per ", "With "))]


@pytest.mark.parametrize("kw", WORDED, ids=range(len(WORDED)))
def test_a_copy_of_the_file_says_what_the_builtin_says(copied, kw):
    """Every word of the built-in's stages is its file's: a copy under another key, run by the
    engine alone, shows the same stages (names, chances, words), the same stage lines in explain()
    and the same "Per shot" and "With N shots" lines."""
    builtin, copy = forgotten.shooting(**kw), copied.attack(**file_stats(kw))
    assert copy.stages == builtin.stages and len(builtin.stages) == 2 + ("heroic save failed" in names(builtin))
    shown = _shown(builtin)
    assert shown == _shown(copy) and len(shown) == len(builtin.stages) + 2, (shown, _shown(copy))
    sampled = forgotten.shooting(method="sampled", samples=2_000, seed=3, **kw)
    assert sampled.stages == builtin.stages
