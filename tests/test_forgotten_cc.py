"""The Forgotten's close combat resolves through its rule file (rules/forgotten/close_combat.toml,
the named mechanism two_sided_close_combat): equal to the hand-written reference
(tests/reference/forgotten_cc.py) over grids of stats and every switch, one round and several, to
1e-12 with the same stages, notes and inputs; sampled within 5 standard errors of exact at a fixed
seed. The file's mechanism hook: an unknown name, a file that mixes stages with a mechanism, and a
mechanism file given where a system of stages is expected are refused with the field named."""
from __future__ import annotations

import itertools
import pickle
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from pmfcheck import assert_same_outcome
from reference import forgotten_cc as ref
from workbench import rules, systems
from workbench.errors import InputError
from workbench.rules import RuleFileError
from workbench.rules.errors import ForbiddenError
from workbench.systems import forgotten as fg
from workbench.systems import ownfile

FILE = Path(__file__).resolve().parents[1] / "rules" / "forgotten" / "close_combat.toml"
BASE = dict(attacker_cqc=6, defender_cqc=5, attacker_phys=5, defender_phys=6)
V1 = dict(damage_rule="v1", attacker_phys=None, defender_phys=None, attacker_damage=3, attacker_strength=2,
          defender_defence=4, defender_damage=2, defender_strength=3, attacker_defence=3)

#: every switch, each value away from its default, with what it needs to be allowed
SWITCHES = [
    dict(response="counter"), dict(shield=True), dict(response="counter", shield=True, shield_when_countering=True),
    dict(dual_weapons="hit"), dict(dual_weapons="damage"), dict(defender_dual_weapons="hit"),
    dict(defender_dual_weapons="damage", response="counter"), dict(power_attack=True),
    dict(response="counter", defender_power_attack=True), dict(from_rear=True), dict(facing_away=True),
    dict(outnumbered=True), dict(defender_outnumbered=True), dict(attacker_wounded=True),
    dict(defender_wounded=True), dict(attacker_tough=True, response="counter"), dict(defender_tough=True),
    dict(attacker_shocked=True, response="counter"), dict(defender_shocked=True),
    dict(defender_shocked=True, shocked_defence="block_only", response="counter"),
    dict(attacker_heroic_save=7, response="counter"), dict(defender_heroic_save=6),
    dict(kill_on="at_or_above"), dict(melee_phys="defender", response="counter"),
    dict(attacker_armour="heavy", response="counter"), dict(defender_armour="light"),
    dict(attacker_weapon_bonus=2, defender_weapon_bonus=-1, response="counter"),
    V1, dict(V1, response="counter", power_attack=True, from_rear=True),
]


def _same(case: dict, rounds: int) -> None:
    assert_same_outcome(fg.close_combat(rounds=rounds, **case), ref.close_combat(rounds=rounds, **case), 1e-12)


@pytest.mark.parametrize("rounds", [1, 2, 5])
@pytest.mark.parametrize("switch", SWITCHES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_every_switch_equals_the_reference(switch, rounds):
    _same(dict(BASE, **switch), rounds)


@pytest.mark.parametrize("rounds", [1, 3])
def test_a_grid_of_stats_equals_the_reference(rounds):
    for acqc, dcqc, phys, response in itertools.product((0, 4, 7, 11), (2, 6, 10), (1, 5, 9, 20),
                                                          ("block", "counter")):
        case = dict(attacker_cqc=acqc, defender_cqc=dcqc, attacker_phys=phys, defender_phys=10 - phys % 10,
                    response=response, attacker_tough=True, defender_tough=True, defender_heroic_save=phys)
        _same(case, rounds)


def test_tough_heroes_with_dual_weapons_over_many_rounds_equal_the_reference():
    case = dict(BASE, response="counter", dual_weapons="hit", defender_dual_weapons="damage", attacker_tough=True,
                defender_tough=True, attacker_heroic_save=8, defender_heroic_save=7, attacker_shocked=True)
    _same(case, 8)


@pytest.mark.parametrize("case, rounds", [
    (dict(BASE), 1),
    (dict(BASE, response="counter", attacker_tough=True, defender_tough=True, defender_heroic_save=7), 4),
    (dict(BASE, dual_weapons="damage", shield=True, defender_wounded=True, defender_tough=True), 3),
    (dict(V1, attacker_cqc=5, defender_cqc=6, response="counter"), 2),
])
def test_sampled_is_within_five_standard_errors_of_exact(case, rounds):
    exact = fg.close_combat(rounds=rounds, **case)
    sampled = fg.close_combat(rounds=rounds, method="sampled", samples=40_000, seed=3, **case)
    assert sampled.method == "sampled" and sampled.samples == 40_000
    assert sampled.stages == exact.stages and sampled.notes == exact.notes and sampled.label == exact.label
    assert set(sampled.effects) == set(exact.effects)
    se = np.sqrt(exact.pmf * (1 - exact.pmf) / 40_000)
    assert np.all(np.abs(sampled.pmf - exact.pmf) <= 5 * se + 1e-12)
    for name, value in exact.effects.items():
        assert abs(sampled.effects[name] - value) <= 5 * max(sampled.effects_stderr[name], 1e-9) + 1e-12, name
    again = fg.close_combat(rounds=rounds, method="sampled", samples=40_000, seed=3, **case)
    assert np.array_equal(again.pmf, sampled.pmf)


@pytest.mark.parametrize("bad, field", [
    (dict(response="parry"), "response"), (dict(rounds=0), "rounds"), (dict(rounds=21), "rounds"),
    (dict(attacker_cqc=21), "attacker_cqc"),
    (dict(response="counter", defender_phys=None), "defender_phys"), (dict(damage_rule="v1"), "attacker_damage"),
])
def test_refusals_are_the_references(bad, field):
    with pytest.raises(InputError) as got:
        fg.close_combat(**dict(BASE, **bad))
    with pytest.raises(InputError) as want:
        ref.close_combat(**dict(BASE, **bad))
    assert got.value.field == want.value.field == field and str(got.value) == str(want.value)


@pytest.mark.parametrize("bad, field", [
    (dict(power_attack=True, dual_weapons="hit"), "dual_weapons, power_attack"),
    (dict(shield_when_countering=True), "shield, shield_when_countering"),
    (dict(V1, attacker_weapon_bonus=1), "attacker_weapon_bonus, damage_rule, defender_weapon_bonus"),
])
def test_forbidden_combinations_are_the_files(bad, field):
    with pytest.raises(ForbiddenError) as got:
        fg.close_combat(**dict(BASE, **bad))
    with pytest.raises(ForbiddenError) as want:
        ownfile.load("forgotten", "close_combat").attack(**{k: x for k, x in dict(BASE, **bad).items() if x is not None})
    assert got.value.field == want.value.field == field and str(got.value) == str(want.value)


# -- the file and its mechanism hook ------------------------------------------------
def test_the_file_is_the_built_ins_part_and_no_system_of_its_own():
    rs = ownfile.load("forgotten", "close_combat")
    assert rs.key == "forgotten" and rs.mechanism == "two_sided_close_combat"
    assert all(s.label and s.help for s in rs.stats)  # every stat a dashboard shows, said in the file
    assert rs.stat("rounds").min == 1 and rs.stat("rounds").max == 20
    assert [o for o, _ in rs.stat("dual_weapons").options] == ["none", "hit", "damage"]
    assert list(systems.keys()).count("forgotten") == 1 and not systems.broken()
    assert pickle.loads(pickle.dumps(rs)).attack(**BASE).effects == rs.attack(**BASE).effects
    o = rs.attack(**BASE, rounds=2)
    assert [s.name for s in o.stages] == ["downed within 2 rounds"]   # each step's passes over the whole fight:
    assert list(o.stage_pmfs) == [s.name for s in rs.attack(**BASE).stages] == ["to hit", "not blocked", "to kill"]
    assert o.effects["defender_downed"] == pytest.approx(fg.close_combat(**BASE, rounds=2).effects["defender_downed"],
                                                         abs=1e-12)


def test_the_files_own_forbids_and_ranges_refuse_bad_stats():
    rs = ownfile.load("forgotten", "close_combat")
    with pytest.raises(InputError) as e:
        rs.attack(power_attack=True, dual_weapons="hit")
    assert "two-handed" in str(e.value)
    with pytest.raises(InputError) as e:
        rs.attack(rounds=21)
    assert e.value.field == "rounds"


def test_an_unknown_mechanism_names_the_field_the_names_allowed_and_the_value():
    text = FILE.read_text().replace('name = "two_sided_close_combat"', 'name = "two_sided_melee"')
    with pytest.raises(RuleFileError) as e:
        rules.loads_any(text, "copy.toml")
    assert e.value.field == "mechanism.name" and e.value.got == "two_sided_melee"
    assert '"two_sided_close_combat"' in e.value.expected and e.value.line is not None
    assert text.splitlines()[e.value.line - 1].startswith("name = ")


def test_a_mechanism_file_with_stages_is_refused():
    text = FILE.read_text() + '\n[[stages]]\nname = "to hit"\ntarget = "attacker_cqc"\n'
    with pytest.raises(RuleFileError) as e:
        rules.loads_any(text, "copy.toml")
    assert e.value.field == "stages"


def test_a_mechanism_die_with_an_unknown_stat_or_key_is_refused():
    text = FILE.read_text().replace('target = "attacker_cqc"', 'target = "attacker_skill"', 1)
    with pytest.raises(RuleFileError) as e:
        rules.loads_any(text, "copy.toml")
    assert e.value.field == "mechanism.attack.target" and "attacker_skill" in str(e.value)
    text = FILE.read_text().replace('[mechanism.attack]\n', '[mechanism.attack]\nsides = 6\n', 1)
    with pytest.raises(RuleFileError) as e:
        rules.loads_any(text, "copy.toml")
    assert e.value.field == "mechanism.attack.sides"


def test_a_mechanism_file_is_a_system_but_not_a_file_of_stages():
    """A copy of the close-combat file under a new key loads as a system of its own (load_any, the
    registry: tests/test_rule_folders.py); where a file of stages is wanted (the rule editor, the
    variants: rules.loads) it is refused by name."""
    text = FILE.read_text().replace('key = "forgotten"', 'key = "my_melee"')
    with pytest.raises(RuleFileError) as e:
        rules.loads(text, "my_melee.toml")
    assert e.value.field == "mechanism" and "[[stages]]" in e.value.expected
    assert e.value.got == "two_sided_close_combat"
    assert rules.loads_any(text, "my_melee.toml").key == "my_melee"


def _dice(attack: str, counter: str, shield: str) -> str:
    text = FILE.read_text().replace('dice = "2 if dual_weapons else 1"', f'dice = "{attack}"')
    text = text.replace('dice = "0 if (response == 0 or shocked_defence == 1 and defender_shocked) else '
                        '(2 if defender_dual_weapons else 1)"', f'dice = "{counter}"')
    return text.replace('dice = "shield if (response == 0 or shocked_defence == 1 and defender_shocked) else '
                        'shield_when_countering"', f'dice = "{shield}"')


@pytest.mark.parametrize("attack, counter, shield, field, got", [
    ("5", "1", "0", "mechanism.attack.dice", 5),      # past the dice of one group
    ("4", "4", "0", "mechanism.attack.dice", 9),      # past the dice of one exchange (with the weapon's block die)
])
def test_too_many_dice_are_refused_before_the_work(attack, counter, shield, field, got):
    rs = rules.loads_any(_dice(attack, counter, shield), "copy.toml")
    for method in ("exact", "sampled"):
        with pytest.raises(RuleFileError) as e:
            rs.attack(**BASE, method=method)
        assert e.value.field == field and e.value.got == got and e.value.path == "copy.toml"


def test_an_exact_fight_past_its_fractions_budget_is_refused_and_sampled_still_runs():
    """Four attack dice and two counter dice, heroes on both sides, over 20 rounds: the Fractions would
    run to 360 digits, past the budget; refused at once, naming the rounds, while sampling runs."""
    rs = rules.loads_any(_dice("4", "2", "0"), "copy.toml")
    stats = dict(BASE, response="counter", attacker_hero=True, defender_hero=True)
    with pytest.raises(RuleFileError) as e:
        rs.attack(rounds=20, **stats)
    assert e.value.field == "mechanism.rounds" and e.value.got == 360 and "sampled" in str(e.value)
    o = rs.attack(rounds=20, method="sampled", samples=2_000, **stats)
    assert o.method == "sampled" and 0 < o.effects["defender_downed"] < 1
    assert rs.attack(rounds=5, **stats).effects["rounds_fought"] >= 1


def test_the_documented_mechanism_example_loads_and_resolves():
    """docs/rulefiles.md's example of a named mechanism: one die each, the defender blocking, two
    rounds; its chance of a downed defender against the two rounds written out by hand."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "rulefiles.md").read_text()
    section = doc.split("## Named mechanisms", 1)[1]
    block = section.split("```toml\n", 1)[1].split("```", 1)[0]
    rs = rules.loads_any(block, "rulefiles.md")
    got = rs.fractions()["effects"]
    # a round: the hit (6+, 1/2) is not blocked (1/2) and beats PHYS 5, on 6+ (5/10); nobody is
    # wounded, so the second round is the same exchange
    one = Fraction(1, 2) * Fraction(1, 2) * Fraction(5, 10)
    assert got["defender_downed"] == one + (1 - one) * one
    s = rs.attack(method="sampled", samples=20_000, seed=2)
    assert abs(s.effects["defender_downed"] - float(got["defender_downed"])) <= \
        5 * s.effects_stderr["defender_downed"] + 1e-12


# -- the words are the file's -----------------------------------------------------------------
SAID = [dict(BASE), dict(BASE, outnumbered=True, facing_away=True, shield=True, defender_heroic_save=6,
                         defender_shocked=True),
        dict(BASE, dual_weapons="hit", defender_tough=True, defender_heroic_save=7, defender_wounded=True),
        dict(BASE, **V1, power_attack=True, from_rear=True), dict(BASE, response="counter", shield=True,
                                                           shield_when_countering=True, attacker_shocked=True)]


@pytest.mark.parametrize("rounds", [1, 3])
@pytest.mark.parametrize("case", SAID, ids=range(len(SAID)))
def test_a_copy_of_the_file_says_what_the_builtin_says(case, rounds):
    """The stages' words are the file's ([mechanism.says] before the engine's): the file copied under
    another key, run by the engine alone, shows the built-in's stages and explain() lines, exact and
    sampled; their product is the fight's chance of downing the defender."""
    from workbench.systems.forgotten_cc import _check_cc
    from workbench.systems.forgotten_rules import _file_stats
    text = FILE.read_text(encoding="utf-8").replace('key = "forgotten"', 'key = "my_cc"', 1)
    copy = rules.loads_any(text, "my_cc.toml")
    kw = dict(fg.close_combat.__wrapped__.__kwdefaults__, **case, rounds=rounds)
    kw = {k: x for k, x in kw.items() if k not in ("method", "samples", "seed")}
    stats = _file_stats(copy, _check_cc(kw), rounds=rounds)
    builtin, mine = fg.close_combat(**case, rounds=rounds), copy.attack(**stats)
    assert mine.stages == builtin.stages and builtin.stages
    assert mine.per_attack == builtin.per_attack and float(builtin.per_attack) == pytest.approx(builtin.pmf[1], abs=1e-12)
    lines = [x for x in builtin.explain().splitlines()
             if x.startswith(tuple(f"{s.name[:1].upper()}{s.name[1:]}: " for s in builtin.stages) + ("Per attack",))]
    assert lines and all(x in mine.explain().splitlines() for x in lines)
    assert copy.attack(**stats, method="sampled", samples=500, seed=1).stages == builtin.stages
    assert (mine.attacks, builtin.attacks) == ((1, 1) if rounds == 1 else (None, None))


@pytest.mark.parametrize("old, new, field, says", [
    ("[mechanism.says]\n", '[mechanism.says]\ndowned = "x"\n', "mechanism.says.downed", "hits, unblocked"),
    ('hits = ["CQC {attacker_cqc}",', 'hits = ["CQC {nope}",', "mechanism.says.hits", "nope"),
    (re.compile(r"unsaved = \[.*?\]\n", re.S), "unsaved = 3\n", "mechanism.says.unsaved", "3")])
def test_broken_mechanism_words_are_refused_naming_the_field(old, new, field, says):
    text = FILE.read_text(encoding="utf-8")
    broken = old.sub(new, text, count=1) if isinstance(old, re.Pattern) else text.replace(old, new, 1)
    assert broken != text
    with pytest.raises(RuleFileError) as e:
        rules.loads_any(broken, "bad.toml")
    assert e.value.field.split("[")[0] == field and says in str(e.value), (e.value.field, str(e.value))
