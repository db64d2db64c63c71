"""Profiles: every shipped file loads, every broken file gives a clear
ProfileError, and loaded matchups reproduce the RULES.md reference numbers."""
from __future__ import annotations

import dataclasses
import itertools
import os
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from workbench import profiles, systems
from workbench.errors import InputError, ProfileError
from workbench.profiles import get_unit, list_units, load_unit, matchup_kwargs

SHIPPED = sorted((profiles.profiles_dir()).glob("*/*.toml"))

GOOD_CHANGES = """\
[unit]
system = "changes"
name = "Space Marine"
source = "seed"
models = 5
ws = 5
bs = 5
s = 5
t = 2
w = 1
i = 9
a = 1
ld = 5
sv = 3
d = 2
inv = 0

[[weapons]]
name = "Boltgun"
source = "rules"
s = 5
ap = 5
shots = 1
class = "light"
"""


def write(tmp_path: Path, text: str, folder: str = "changes", name: str = "unit.toml") -> Path:
    d = tmp_path / folder
    d.mkdir(exist_ok=True)
    p = d / name
    p.write_text(text, encoding="utf-8")
    return p


def pinned(path: Path, field: str, expected: str, got: str) -> str:
    return "^" + re.escape(f"{path}: {field}: expected {expected}, got {got}") + "$"


# -- shipped files -------------------------------------------------------------
def test_every_system_has_profiles():
    assert {p.parent.name for p in SHIPPED} == set(systems.BUILTINS)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shipped_profile_loads(path):
    u = load_unit(path)
    assert u.system == path.parent.name
    assert u.key == path.stem
    assert u.weapons
    assert u.source in profiles.SOURCES
    for w in u.weapons:
        assert w.source in profiles.SOURCES


def test_seed_stat_lines():
    # seed 000: "WS BS S T W I A Ld Sv D Inv / 5+ 5+ 5+ +2 1 9 1 5+ +3 +2 0"
    sm = get_unit("changes", "space_marine")
    assert dict(sm.stats) == dict(ws=5, bs=5, s=5, t=2, w=1, i=9, a=1, ld=5, sv=3, d=2, inv=0)
    assert sm.weapon("boltgun")["s"] == 5 and sm.weapon("Boltgun")["ap"] == 5
    assert sm.weapon("Boltgun")["class"] == "light"
    assert any(w["class"] == "heavy" and w.source == "illustrative" for w in sm.weapons)
    # seed 004: "Rever Inf 5 5 5 5 5 7 1 2 *"
    rever = get_unit("antares", "Rever")
    assert [rever[k] for k in ("ag", "acc", "res", "str", "init", "cou", "tech", "com")] == [5, 5, 5, 5, 5, 7, 1, 2]
    assert any(w["sv"] == 1 for w in rever.weapons)
    # seed 003: "S1 rifles", "T2 Knights", "The Knights' weapons are S2", "the T1 of the guard"
    guard, knights = get_unit("gunfire", "laansguard"), get_unit("gunfire", "knights")
    assert guard["t"] == 1 and guard.weapon("Rifle")["s"] == 1
    assert knights["t"] == 2 and all(w["s"] == 2 for w in knights.weapons)
    assert {"bs", "ev", "av"} <= set(guard.illustrative) and {"bs", "ev", "av"} <= set(knights.illustrative)
    trooper = get_unit("forgotten", "trooper")
    assert trooper.source == "illustrative"


def test_list_units_filters_by_system():
    all_units = list_units()
    assert len(all_units) == len(SHIPPED)
    assert {u.key for u in list_units("gunfire")} == {"laansguard", "knights"}
    with pytest.raises(InputError, match=r"^system: expected one of 'changes', 'forgotten', 'gunfire', 'antares' \(the systems with profiles\), got 'chess'$"):
        list_units("chess")


def test_get_unit_unknown_name():
    with pytest.raises(InputError, match=r"^name: expected one of 'space_marine' \(units of changes\), got 'ork'$"):
        get_unit("changes", "ork")


def test_profiles_are_immutable():
    u = get_unit("changes", "space_marine")
    with pytest.raises(dataclasses.FrozenInstanceError):
        u.name = "Ork"
    with pytest.raises(TypeError):
        u.stats["bs"] = 2
    with pytest.raises(TypeError):
        u.weapons[0].stats["s"] = 2
    assert isinstance(u.weapons, tuple)
    assert hash(u) == hash(get_unit("changes", "space_marine"))
    assert u == get_unit("changes", "space_marine")


def test_designer_folder_adds_to_the_shipped_profiles(tmp_path, monkeypatch):
    shipped = [(u.system, u.key) for u in list_units()]
    write(tmp_path, GOOD_CHANGES.replace('name = "Space Marine"', 'name = "Home Marine"'), name="marine.toml")
    monkeypatch.setenv("WORKBENCH_PROFILES", str(tmp_path))
    keys = [(u.system, u.key) for u in list_units()]
    assert set(keys) == set(shipped) | {("changes", "marine")}
    assert len(keys) == len(shipped) + 1
    assert get_unit("changes", "Home Marine").path == str(tmp_path / "changes" / "marine.toml")


def test_designer_unit_with_a_shipped_file_name_replaces_it(tmp_path, monkeypatch):
    shipped = get_unit("changes", "space_marine")
    text = GOOD_CHANGES.replace('name = "Space Marine"', 'name = "Veteran Marine"').replace("bs = 5", "bs = 3")
    write(tmp_path, text, name="space_marine.toml")
    monkeypatch.setenv("WORKBENCH_PROFILES", str(tmp_path))
    mine = get_unit("changes", "space_marine")
    assert (mine.name, mine["bs"]) == ("Veteran Marine", 3)
    assert mine.path != shipped.path
    assert [u.key for u in list_units("changes")].count("space_marine") == 1


def test_several_designer_folders_first_one_wins(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    write(first, GOOD_CHANGES.replace('name = "Space Marine"', 'name = "From first"'), name="m.toml")
    write(second, GOOD_CHANGES.replace('name = "Space Marine"', 'name = "From second"'), name="m.toml")
    write(second, GOOD_CHANGES.replace('name = "Space Marine"', 'name = "Only second"'), name="n.toml")
    monkeypatch.setenv("WORKBENCH_PROFILES", os.pathsep.join([str(first), "", str(second)]))
    assert get_unit("changes", "m").name == "From first"
    assert get_unit("changes", "n").name == "Only second"
    assert profiles.profiles_dirs() == [first, second, profiles.profiles_dir()]


def test_designer_folder_that_does_not_exist(tmp_path, monkeypatch):
    missing = tmp_path / "nope"
    monkeypatch.setenv("WORKBENCH_PROFILES", str(missing))
    with pytest.raises(ProfileError, match=pinned(missing, "WORKBENCH_PROFILES", "an existing folder of profiles "
                                                  "(<folder>/<system>/<unit>.toml)", "'no such folder'")):
        list_units()


# -- broken files ----------------------------------------------------------------
def test_good_file_in_tmp_loads(tmp_path):
    u = load_unit(write(tmp_path, GOOD_CHANGES))
    assert u.stats["bs"] == 5 and u.weapons[0].name == "Boltgun"


def test_missing_file(tmp_path):
    p = tmp_path / "changes" / "nope.toml"
    with pytest.raises(ProfileError, match=pinned(p, "file", "a readable TOML file", "'No such file or directory'")):
        load_unit(p)


def test_toml_syntax(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.replace("bs = 5", "bs = = 5"))
    with pytest.raises(ProfileError, match="^" + re.escape(f"{p}: toml syntax: expected valid TOML, got ")) as err:
        load_unit(p)
    assert "line 7" in str(err.value)
    assert err.value.field == "toml syntax" and err.value.path == str(p)


def test_missing_key(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.replace("bs = 5\n", ""))
    with pytest.raises(ProfileError, match=pinned(
            p, "unit.bs", "a whole number from 1 to 13 (Ballistic Skill; the D12 target, 5 means 5+)",
            "nothing (the key is missing)")):
        load_unit(p)


def test_unknown_key_with_suggestion(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.replace("bs = 5", "bss = 5"))
    with pytest.raises(ProfileError, match=re.escape(f"{p}: unit.bss: expected one of the keys system, name,")
                       + r".*; did you mean 'bs'\?, got 'bss'$"):
        load_unit(p)


def test_wrong_type(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.replace("shots = 1", 'shots = "1"'))
    with pytest.raises(ProfileError, match=pinned(
            p, "weapons[0].shots", "a whole number from 1 to 100 (dice per model)", "'1'")):
        load_unit(p)


def test_boolean_is_not_a_number(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.replace("w = 1", "w = true"))
    with pytest.raises(ProfileError, match=pinned(p, "unit.w", "a whole number from 1 to 100 (Wounds)", "True")):
        load_unit(p)


def test_out_of_range(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.replace("bs = 5", "bs = 14"))
    with pytest.raises(ProfileError, match=pinned(
            p, "unit.bs", "a whole number from 1 to 13 (Ballistic Skill; the D12 target, 5 means 5+)", "14")):
        load_unit(p)


def test_float_is_not_a_whole_number(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.replace("models = 5", "models = 5.5"))
    with pytest.raises(ProfileError, match=pinned(p, "unit.models", "a whole number from 1 to 1000 (unit size)", "5.5")):
        load_unit(p)


def test_allowed_values(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.replace('class = "light"', 'class = "medium"'))
    with pytest.raises(ProfileError, match=pinned(
            p, "weapons[0].class", "one of 'light', 'heavy', 'melee' (weapon class)", "'medium'")):
        load_unit(p)
    p = write(tmp_path, GOOD_CHANGES.replace('source = "seed"', 'source = "forum"'))
    with pytest.raises(ProfileError, match=pinned(p, "unit.source", "one of 'seed', 'rules', 'illustrative'", "'forum'")):
        load_unit(p)


def test_unknown_system(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.replace('system = "changes"', 'system = "chess"'), folder="misc")
    with pytest.raises(ProfileError, match=pinned(
            p, "unit.system", "one of 'changes', 'forgotten', 'gunfire', 'antares'", "'chess'")):
        load_unit(p)


def test_wrong_system_for_folder(tmp_path):
    p = write(tmp_path, GOOD_CHANGES, folder="antares")
    with pytest.raises(ProfileError, match=pinned(p, "unit.system", "'antares' (the folder the file is in)", "'changes'")):
        load_unit(p)


def test_stats_of_another_system(tmp_path):
    # a changes file declaring itself antares: the antares keys are checked
    text = GOOD_CHANGES.replace('system = "changes"', 'system = "antares"')
    p = write(tmp_path, text, folder="antares")
    with pytest.raises(ProfileError, match=re.escape(f"{p}: unit.ws: expected one of the keys")):
        load_unit(p)


def test_missing_unit_table(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.split("[[weapons]]")[1].join(["[[weapons]]", ""]))
    with pytest.raises(ProfileError, match=pinned(p, "unit", "a [unit] table", "nothing (the key is missing)")):
        load_unit(p)


def test_no_weapons(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.split("[[weapons]]")[0])
    with pytest.raises(ProfileError, match=pinned(p, "weapons", "at least one [[weapons]] table",
                                                  "nothing (the key is missing)")):
        load_unit(p)


def test_unknown_table(tmp_path):
    p = write(tmp_path, GOOD_CHANGES + "\n[extra]\nx = 1\n")
    with pytest.raises(ProfileError, match=pinned(p, "extra", "only the tables [unit] and [[weapons]]", "'extra'")):
        load_unit(p)


def test_duplicate_weapon(tmp_path):
    p = write(tmp_path, GOOD_CHANGES + GOOD_CHANGES[GOOD_CHANGES.index("[[weapons]]"):].replace("Boltgun", "BOLTGUN"))
    with pytest.raises(ProfileError, match=pinned(p, "weapons[1].name", "a weapon name not used twice in the unit",
                                                  "'BOLTGUN'")):
        load_unit(p)


def test_illustrative_names_a_stat(tmp_path):
    p = write(tmp_path, GOOD_CHANGES.replace("models = 5", 'models = 5\nillustrative = ["bs", "colour"]'))
    with pytest.raises(ProfileError, match=re.escape(f"{p}: unit.illustrative: expected a list of stat names among ws, bs")
                       + r".*, got 'colour'$"):
        load_unit(p)


def test_not_utf8(tmp_path):
    p = tmp_path / "changes"
    p.mkdir()
    p = p / "bad.toml"
    p.write_bytes(b"[unit]\nname = \"\xff\"\n")
    with pytest.raises(ProfileError, match="^" + re.escape(f"{p}: toml syntax: expected UTF-8 text, got ")):
        load_unit(p)


def test_error_is_a_value_error(tmp_path):
    p = write(tmp_path, "nonsense")
    with pytest.raises(ValueError):
        load_unit(p)


# -- matchups ------------------------------------------------------------------
def d12_success(target: int) -> Fraction:
    """Brute force: faces of a D12 at or above the target."""
    return Fraction(sum(1 for f in range(1, 13) if f >= target), 12)


def test_changes_reference_5_36():
    # RULES.md reference: space marine, S5+ AP5+ gun, aimed shot, at a space marine in the open:
    # 8/12 x 5/12 x 6/12 = 5/36
    kw = matchup_kwargs("changes", "space_marine", "Boltgun", "space_marine", action="aimed")
    expected = d12_success(kw["bs"] + 0) * d12_success(5 + 3) * d12_success(5 + 2)
    assert expected == Fraction(5, 36)
    out = systems.get("changes").shooting(**kw)
    assert out.per_attack == Fraction(5, 36)
    assert [s.probability for s in out.stages] == [Fraction(8, 12), Fraction(5, 12), Fraction(6, 12)]
    assert out.pmf[1] == pytest.approx(5 / 36, abs=1e-12)


def test_changes_ten_marines_brute_force():
    # 3 firing marines at a 5-marine unit: binomial over 3 shots of 5/36, each kill one W1 model
    kw = matchup_kwargs("changes", "space_marine", "Boltgun", "space_marine", firers=3)
    assert kw["shots"] == 3 and kw["models"] == 5
    out = systems.get("changes").shooting(**kw)
    p = Fraction(5, 36)
    expected = [Fraction(0)] * 6  # 0..5 models (the target unit's size)
    for hits in itertools.product((0, 1), repeat=3):
        prob = Fraction(1)
        for h in hits:
            prob *= p if h else 1 - p
        expected[sum(hits)] += prob
    assert np.allclose(out.pmf, [float(x) for x in expected], atol=1e-12)


def test_antares_reference_3_10():
    # RULES.md reference: Rever Acc 5 shoots Rever Res 5, SV 1, no armour or cover: 5/10 x 6/10 = 3/10
    kw = matchup_kwargs("antares", "rever", "Carbine", "rever")
    hit = Fraction(sum(1 for f in range(1, 11) if f <= kw["acc"] and f != 10), 10)
    res_value = kw["res"] + kw["armour"] - kw["sv"]
    fail_res = 1 - Fraction(sum(1 for f in range(1, 11) if f <= res_value and f != 10), 10)
    assert hit * fail_res == Fraction(3, 10)
    out = systems.get("antares").shooting(**kw)
    assert out.per_attack == Fraction(3, 10)
    assert out.mean == pytest.approx(0.3, abs=1e-12)


def opposed_success(att: int, dfd: int) -> Fraction:
    # RULES.md section 3: d10 >= 6 + defender - attacker
    return Fraction(sum(1 for f in range(1, 11) if f >= 6 + dfd - att), 10)


def test_gunfire_laansguard_at_knights_divides_damage():
    # seed 003: S1 rifles on T2 Knights: 3 pens -> 1 kill (floor(3 x 1 / 2)); brute force over 3 shots
    kw = matchup_kwargs("gunfire", "laansguard", "Rifle", "knights", firers=3)
    assert (kw["s"], kw["t"], kw["shots"], kw["models"]) == (1, 2, 3, 5)
    p = opposed_success(kw["bs"], kw["ev"]) * opposed_success(kw["ap"], kw["av"])
    expected = [Fraction(0)] * 6
    for pens in itertools.product((0, 1), repeat=3):
        prob = Fraction(1)
        for x in pens:
            prob *= p if x else 1 - p
        expected[min(5, sum(pens) * 1 // 2)] += prob
    out = systems.get("gunfire").shooting(**kw)
    assert out.per_attack == p
    pmf = np.zeros(6)
    pmf[: out.pmf.size] = out.pmf
    assert np.allclose(pmf, [float(x) for x in expected], atol=1e-12)


def test_gunfire_knights_at_laansguard_one_per_pen():
    # seed 003: S2 on T1: "You just remove one model per pen"
    kw = matchup_kwargs("gunfire", "knights", "Knight Gun", "laansguard", firers=4)
    p = opposed_success(kw["bs"], kw["ev"]) * opposed_success(kw["ap"], kw["av"])
    out = systems.get("gunfire").shooting(**kw)
    assert out.mean == pytest.approx(4 * float(p), abs=1e-12)


def test_forgotten_trooper_matchup_runs():
    kw = matchup_kwargs("forgotten", "trooper", "Rifle", "trooper")
    assert kw["shoot"] == 6 and kw["attack_power"] == 5 and kw["armour"] == "light"
    assert "damage" not in kw and "defence" not in kw
    # default to-hit: d10 >= 6 (no modifiers at medium range, cautious): 5/10;
    # damage v2: d10 - 1 (light armour) > 5: faces 7..10: 4/10
    hit = Fraction(sum(1 for f in range(1, 11) if f >= 6), 10)
    kill = Fraction(sum(1 for f in range(1, 11) if f - 1 > 5), 10)
    out = systems.get("forgotten").shooting(**kw)
    assert out.per_attack == hit * kill
    v1 = matchup_kwargs("forgotten", "trooper", "Rifle", "trooper", damage_rule="v1")
    assert v1["damage"] == 3 and v1["defence"] == 3 and "armour" not in v1
    # damage v1 (seed: "Both equal = 4+ kills" on a d6): 5/10 x 3/6
    assert systems.get("forgotten").shooting(**v1).per_attack == hit * Fraction(3, 6)
    # a shielded target: "adds +1 DEF vs shooting" (v1 only): Defence 4 > Damage 3 -> 5+ kills
    shielded = dataclasses.replace(get_unit("forgotten", "trooper"),
                                   stats={**get_unit("forgotten", "trooper").stats, "shield": True})
    v1s = matchup_kwargs("forgotten", "trooper", "Rifle", shielded, damage_rule="v1")
    assert v1s["shield"] is True
    assert systems.get("forgotten").shooting(**v1s).per_attack == hit * Fraction(2, 6)
    assert "shield" not in matchup_kwargs("forgotten", "trooper", "Rifle", shielded)


@pytest.mark.parametrize("system", systems.BUILTINS)
def test_basic_matchups_run_in_every_system(system):
    attacker, weapon, target = profiles.basic_matchup(system)
    out = systems.get(system).shooting(**matchup_kwargs(system, attacker, weapon, target, shots=10))
    assert out.attacks == 10 or out.inputs.get("shots") == 10
    assert 0 < out.mean <= 10


def test_situation_overrides_and_checks():
    kw = matchup_kwargs("changes", "space_marine", "Heavy Bolter", "space_marine", action="shot", cover=1,
                        models=None)
    assert kw["weapon"] == "heavy" and kw["shots"] == 3 and kw["cover"] == 1 and kw["models"] is None
    with pytest.raises(InputError, match=r"^situation: expected a keyword of changes\.shooting: .*, got 'acton' "
                                         r"\(did you mean 'action'\?\)$"):
        matchup_kwargs("changes", "space_marine", "Boltgun", "space_marine", acton="aimed")


def test_matchup_errors():
    with pytest.raises(InputError, match=r"^weapon: expected one of 'Boltgun', 'Heavy Bolter', 'Combat Knife' "
                                         r"\(the weapons of Space Marine\), got 'Lasgun'$"):
        matchup_kwargs("changes", "space_marine", "Lasgun", "space_marine")
    with pytest.raises(InputError, match=r"^weapon: expected a shooting weapon, got .Combat Knife. \(Combat Knife is a melee weapon\)"):
        matchup_kwargs("changes", "space_marine", "Combat Knife", "space_marine")
    rever = get_unit("antares", "rever")
    with pytest.raises(InputError, match=r"^target: expected a unit of 'changes', got 'Rever \(antares\)'$"):
        matchup_kwargs("changes", "space_marine", "Boltgun", rever)
    with pytest.raises(InputError, match=r"^firers: expected a whole number 1 or more, got 0$"):
        matchup_kwargs("changes", "space_marine", "Boltgun", "space_marine", firers=0)


def test_stats_come_from_the_right_side():
    # attacker stats from the attacker, defensive stats and unit size from the target
    sm = get_unit("changes", "space_marine")
    target = dataclasses.replace(sm, models=7, stats={**sm.stats, "bs": 11, "t": 4, "sv": 1, "inv": 2, "w": 3})
    kw = matchup_kwargs("changes", sm, "Boltgun", target)
    assert (kw["bs"], kw["t"], kw["sv"], kw["inv"], kw["wounds"], kw["models"]) == (5, 4, 1, 2, 3, 7)
    shooter = dataclasses.replace(sm, stats={**sm.stats, "bs": 3})
    assert matchup_kwargs("changes", shooter, shooter.weapon("Boltgun"), sm)["bs"] == 3
    rever = get_unit("antares", "rever")
    tough = dataclasses.replace(rever, stats={**rever.stats, "acc": 1, "res": 8, "armour": 1})
    kw = matchup_kwargs("antares", rever, "Carbine", tough)
    assert (kw["acc"], kw["res"], kw["armour"], kw["sv"]) == (5, 8, 1, 1)
    guard = get_unit("gunfire", "laansguard")
    kw = matchup_kwargs("gunfire", guard, "Rifle", get_unit("gunfire", "knights"))
    assert (kw["bs"], kw["ev"], kw["ap"], kw["av"], kw["s"], kw["t"]) == (4, 3, 3, 5, 1, 2)
