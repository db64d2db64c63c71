"""A rule file's ``[view]`` says how the workbench shows its system, and the built-ins are shown
from theirs: a designer's copy of a built-in's files, with one label, one slider range or one
side edited, is a new system whose description shows the edit and is the built-in's elsewhere; a
designer's own file gets every key it writes; a bad key is a RuleFileError naming the field, what
is allowed, what was found and the line; and no number depends on ``[view]``.

Expected values are the edits written here and the built-ins' own descriptions (what their
dashboards show, which tests/test_ui.py and tests/test_systems.py check), never the code under test."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from workbench import rules, systems
from workbench.rules import RuleFileError
from workbench.systems.description import describe_rules

SHIPPED = Path(__file__).resolve().parents[1] / "rules"
KILL6 = (SHIPPED / "kill6.toml").read_text(encoding="utf-8")


def _rekey(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(f'key = "{old}"') == 1
    path.write_text(text.replace(f'key = "{old}"', f'key = "{new}"'), encoding="utf-8")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _controls_of(c) -> tuple:
    return (c.name, c.kind, c.default, c.lo, c.hi, c.options, c.label, c.help, c.words)


def _controls(mode) -> list[tuple]:
    return [_controls_of(c) for c in mode.controls]


# -- a copy of a built-in's files -------------------------------------------------------------------
@pytest.fixture()
def copies(tmp_path, monkeypatch):
    """Copies of rules/changes/ (keyed my_changes) and rules/antares.toml (keyed my_antares), each
    with one label, one slider range and one diagnostics side edited."""
    folder = tmp_path / "mine"
    shutil.copytree(SHIPPED / "changes", folder / "my_changes")
    for part in ("shooting", "melee", "turn"):
        _rekey(folder / "my_changes" / f"{part}.toml", "changes", "my_changes")
    shooting = folder / "my_changes" / "shooting.toml"
    _edit(shooting, 'label = "BS (roll needed)"', 'label = "BS (my reading)"')
    _edit(shooting, 't = "-2..8"', 't = "-3..9"')
    _edit(shooting, '[view.diagnostics.cover]\nside = "defender"', '[view.diagnostics.cover]\nside = "attacker"')
    shutil.copy(SHIPPED / "antares.toml", folder / "my_antares.toml")
    _rekey(folder / "my_antares.toml", "antares", "my_antares")
    _edit(folder / "my_antares.toml", 'label = "Res (resist)"', 'label = "Res (toughness)"')
    monkeypatch.setenv(systems.RULES_ENV, str(folder))
    return folder


def test_a_copy_of_changes_shows_its_edits_and_the_builtins_description_elsewhere(copies):
    assert systems.broken() == ()
    mine, builtin = systems.get("my_changes"), systems.get("changes")
    assert mine.key == "my_changes" and mine.path == copies / "my_changes"
    ours, theirs = mine.mode("shooting"), builtin.mode("shooting")
    got = {c.name: c for c in ours.controls}
    assert got["bs"].label == "BS (my reading)" and builtin.mode("shooting").controls[0].label == "BS (roll needed)"
    assert got["t"].bounds == (-3, 9) and {c.name: c for c in theirs.controls}["t"].bounds == (-2, 8)
    edited = {"bs", "t"}
    assert ([c for c in _controls(ours) if c[0] not in edited] == [c for c in _controls(theirs) if c[0] not in edited])
    assert [c.name for c in ours.controls] == [c.name for c in theirs.controls]
    assert _controls(mine.mode("melee")) == _controls(builtin.mode("melee"))
    assert (ours.trial, ours.sides) == (theirs.trial, theirs.sides)
    # the diagnostics: cover is now the attacker's, every other stat as the built-in's
    assert mine.stat("cover").owner == "attacker" and builtin.stat("cover").owner == "defender"
    assert [(s.name, s.step, s.values, s.doc) for s in mine.stats] == [(s.name, s.step, s.values, s.doc)
                                                                       for s in builtin.stats]
    assert [s.owner for s in mine.stats if s.name != "cover"] == [s.owner for s in builtin.stats if s.name != "cover"]
    for field in ("seed_matchup", "granularity_grid", "equivalence_search", "concepts", "blurb"):
        assert getattr(mine, field) == getattr(builtin, field), field
    # a copy is another system: its own name on the landing page, a palette colour of its own
    assert mine.title == builtin.name and mine.colour != builtin.colour


def test_a_copy_of_antares_shows_its_edited_label(copies):
    mine, builtin = systems.get("my_antares"), systems.get("antares")
    # antares.shooting takes no blast (the volley's); the copy's file has one, and shows it
    assert "blast" in [c.name for c in mine.modes[0].controls] and "blast" not in builtin.arguments("shooting")
    ours = [c for c in _controls(mine.modes[0]) if c[0] != "blast"]
    theirs = _controls(builtin.modes[0])
    assert [c[6] for c in ours] == ["Res (toughness)" if c[0] == "res" else c[6] for c in theirs]
    assert [c[:6] + c[7:] for c in ours] == [c[:6] + c[7:] for c in theirs]
    assert [(s.name, s.owner, s.step, s.values) for s in mine.stats] == [(s.name, s.owner, s.step, s.values)
                                                                         for s in builtin.stats]


# -- a designer's own file ------------------------------------------------------------------------
VIEW = '''
[view]
title = "Kill six"
blurb = "A d6 game to try the view keys."
colour = "#123456"
trial = "shot"
label = "models downed"
controls = ["bs", "shots", "cover", "models"]
seed = { bs = 3, shots = 10 }

[view.sliders]
shots = "1..12"

[view.words.cover]
heavy = "heavy cover (+2)"

[view.matchup]
firer = [["bs", "BS", "plus"]]
target = [["sv", "Sv", "plus"]]
always = ["cover"]

[view.diagnostics.sv]
side = "defender"
better = "lower"
values = "2..6"
help = "the save: lower is better for the target"

[view.diagnostics.bs]
side = "attacker"
better = "lower"

[view.granularity]
bs = "2..6"
shots = 1

[view.equivalence]
bs = [3, 4]

[view.concepts]
accuracy = { stat = "bs", label = "BS", sign = -1, style = "plus" }
cover = { label = "cover", ladder = [{ set = { cover = "none" }, text = "open" }, { set = { cover = "heavy" }, text = "behind a wall" }] }

[view.effects]
"to wound" = "wounds that get through"
'''


def test_a_designers_file_gets_every_view_key_it_writes():
    desc = describe_rules(rules.loads(KILL6 + VIEW), "#8172B3")
    assert (desc.title, desc.blurb, desc.colour) == ("Kill six", "A d6 game to try the view keys.", "#123456")
    (mode,) = desc.modes
    assert mode.trial == "shot" and [c.name for c in mode.controls] == ["bs", "shots", "cover", "models"]
    shots, cover = mode.controls[1], mode.controls[2]
    assert shots.bounds == (1, 12) and mode.controls[0].bounds == (2, 6)  # bs: the file's min..max
    assert cover.say("heavy") == "heavy cover (+2)" and cover.say("light") == "light"
    assert mode.sides.firer == (("bs", "BS", "plus"),) and mode.sides.always == ("cover",)
    assert [(s.name, s.owner, s.step, s.values) for s in desc.stats] == [
        ("sv", "defender", -1, (2, 3, 4, 5, 6)), ("bs", "attacker", -1, (2, 3, 4, 5, 6))]
    assert desc.stat("sv").doc == "the save: lower is better for the target"
    assert desc.stat("bs").doc == "hits on a roll of N or more"  # the stat's help when the file gives none
    assert dict(desc.seed_matchup) == {"bs": 3, "shots": 10}
    assert dict(desc.granularity_grid) == {"bs": [2, 3, 4, 5, 6], "shots": 1}
    assert dict(desc.equivalence_search) == {"bs": [3, 4]}
    acc, cov = desc.concepts["accuracy"], desc.concepts["cover"]
    assert (acc.stat, acc.sign, acc.text(4)) == ("bs", -1, "BS 4+")
    assert cov.stat == "cover" and [(r.settings, r.text) for r in cov.ladder] == [
        ((("cover", "none"),), "open"), ((("cover", "heavy"),), "behind a wall")]
    assert desc.effect_words["to wound"] == "wounds that get through"


def test_a_slider_in_steps_refuses_a_value_off_them():
    from workbench.errors import InputError

    (mode,) = describe_rules(rules.loads(KILL6 + "\n[view.steps]\nshots = 2\n"), "#8172B3").modes
    shots = next(c for c in mode.controls if c.name == "shots")
    assert shots.step == 2 and shots.check(4) == 4 and shots.parse("40") == 40
    with pytest.raises(InputError, match="shots: expected a number from 0 to 40 in steps of 2, got 5"):
        shots.check(5)
    (plain,) = describe_rules(rules.loads(KILL6), "#8172B3").modes
    assert next(c for c in plain.controls if c.name == "shots").check(5) == 5


def test_a_file_without_view_is_described_as_before():
    desc = describe_rules(rules.loads(KILL6), "#8172B3")
    assert desc.title == "Kill-6 (rule file example)" and desc.colour == "#8172B3"
    assert desc.blurb.startswith("An example d6 game") and desc.concepts == {}
    assert {s.owner for s in desc.stats} == {"either"}
    assert [c.name for c in desc.modes[0].controls][:3] == ["bs", "ap", "s"]


def test_no_number_depends_on_the_view():
    plain, shown = rules.loads(KILL6), rules.loads(KILL6 + VIEW)
    for stats in ({}, {"bs": 3, "shots": 9, "cover": "heavy", "stationary": True}):
        a, b = plain.attack(**stats), shown.attack(**stats)
        np.testing.assert_array_equal(a.pmf, b.pmf)
        assert dict(a.effects) == dict(b.effects)


def test_the_label_of_the_view_names_what_the_outcome_counts():
    plain, shown = rules.loads(KILL6), rules.loads(KILL6 + VIEW)
    assert plain.attack(shots=3).label == "models removed"
    for o in (shown.attack(shots=3), shown.attack(shots=3, method="sampled", samples=1_000, seed=1)):
        (totals,) = [line for line in o.explain().splitlines() if line.startswith("With 3 shots: expected")]
        assert o.label == "models downed" and " models downed" in totals


def test_the_label_of_the_view_names_what_a_mechanisms_outcome_counts():
    text = (SHIPPED / "forgotten" / "close_combat.toml").read_text(encoding="utf-8")
    assert text.count("\n[view]\n") == 1
    plain = rules.loads_any(text.replace('key = "forgotten"', 'key = "my_melee"'), "my_melee.toml")
    shown = rules.loads_any(text.replace('key = "forgotten"', 'key = "my_melee"').replace(
        "\n[view]\n", '\n[view]\nlabel = "fighters down"\n'), "my_melee.toml")
    assert plain.attack().label == "defenders downed" and shown.attack().label == "fighters down"


@pytest.mark.parametrize("extra, field, expected, got", [
    ('[view]\nbogus = 1\n', "view.bogus", "one of the keys", "bogus"),
    ('[view]\nlabel = 3\n', "view.label", "a non-empty string", 3),
    ('[view]\ncolour = "red"\n', "view.colour", "a colour written #rrggbb", "red"),
    ('[view.sliders]\nshots = "5..50"\n', "view.sliders.shots", 'within 0..40', "5..50"),
    ('[view.sliders]\ncover = "0..2"\n', "view.sliders.cover", "(int)", "cover"),
    ('[view.words.cover]\nmedium = "x"\n', "view.words.cover.medium", "one of the keys", "medium"),
    ('[view.diagnostics.bs]\nside = "target"\nbetter = "lower"\n', "view.diagnostics.bs.side",
     '"attacker", "defender"', "target"),
    ('[view.diagnostics.bs]\nside = "attacker"\nbetter = "up"\n', "view.diagnostics.bs.better",
     '"lower", "higher"', "up"),
    ('[view.diagnostics.bs]\nside = "attacker"\n', "view.diagnostics.bs.better", "(required)", "nothing"),
    ('[view]\nseed = { range = 3 }\n', "view.seed.range", "the name of a stat", "range"),
    ('[view]\nseed = { bs = 9 }\n', "view.seed.bs", "a whole number from 2 to 6", 9),
    ('[view.matchup]\nfirer = [["bs", "BS", "bold"]]\n', "view.matchup.firer[0]", '"plus", "mod", "plain"',
     ["bs", "BS", "bold"]),
    ('[view.concepts.grit]\nstat = "t"\nlabel = "T"\n', "view.concepts.grit", "one of the keys", "grit"),
    ('[view.concepts.toughness]\nstat = "t"\nlabel = "T"\nsign = 2\n', "view.concepts.toughness.sign",
     "-1 or 1", 2),
    ('[view]\ncontrols = ["bs", "bs"]\n', "view.controls", "each once", ["bs", "bs"]),
    ('[view.steps]\nshots = 7\n', "view.steps.shots", "a step from 0 that reaches 40 and the starting value 6", 7),
    ('[view.steps]\nshots = 4\n', "view.steps.shots", "a step from 0 that reaches 40 and the starting value 6", 4),
    ('[view.steps]\ncover = 2\n', "view.steps.cover", "(int)", "cover"),
])
def test_a_bad_view_key_names_the_field_what_is_allowed_what_was_found_and_the_line(extra, field, expected, got):
    text = KILL6 + "\n" + extra
    with pytest.raises(RuleFileError) as info:
        rules.loads(text, "mine.toml")
    err = info.value
    assert err.field == field and expected in err.expected and err.got == got, (err.field, err.expected, err.got)
    assert err.line is not None and err.line > len(KILL6.splitlines())


def test_a_copy_of_the_forgotten_shows_every_stat_of_its_files(tmp_path, monkeypatch):
    """The built-in's dashboard shows its functions' own controls (a heroic save of none for no
    hero); a copy of its folder, another system, shows each file's stats as the file states them."""
    shutil.copytree(SHIPPED / "forgotten", tmp_path / "my_forgotten")
    for part in ("shooting", "close_combat"):
        _rekey(tmp_path / "my_forgotten" / f"{part}.toml", "forgotten", "my_forgotten")
    _edit(tmp_path / "my_forgotten" / "shooting.toml", 'label = "firer moved"', 'label = "how far the firer went"')
    monkeypatch.setenv(systems.RULES_ENV, str(tmp_path))
    mine, builtin = systems.get("my_forgotten"), systems.get("forgotten")
    ours = {c.name: c for c in mine.mode("shooting").controls}
    theirs = {c.name: c for c in builtin.mode("shooting").controls}
    assert ours["moved"].label == "how far the firer went" and theirs["moved"].label == "firer moved"
    assert "hero" in ours and "hero" not in theirs and theirs["heroic_save"].kind == "optint"
    assert ours["heroic_save"].kind == "int" and "attacker_hero" in {c.name for c in mine.mode("close_combat").controls}
    same = set(ours) & set(theirs) - {"moved", "aimed", "damage", "defence", "heroic_save"}
    assert [_controls_of(ours[n]) for n in sorted(same)] == [_controls_of(theirs[n]) for n in sorted(same)]
    assert [s.name for s in mine.stats] == [s.name for s in builtin.stats] == ["shoot", "attack_power"]
    assert mine.concepts == builtin.concepts and mine.seed_matchup == builtin.seed_matchup


def test_a_file_loaded_on_its_own_says_its_effects_as_its_dashboard_does():
    """An outcome's words are its own: a rule file loaded with ``rules.loads`` reads its side
    effects by its ``[view.effects]`` and its chances' labels before any description of it is made,
    and the same after (no description made elsewhere changes what an outcome says)."""
    rs = rules.loads((SHIPPED / "changes" / "shooting.toml").read_text(encoding="utf-8").replace('key = "changes"', 'key = "ownwords"'), "ownwords.toml")
    before = rs.attack(models=3).explain()
    assert "expected unsaved wounds: " in before and "P(the whole unit is destroyed)" in before
    assert "Per shot: " in before and "With 10 shots: " in before
    describe_rules(rs, "#000000")
    assert rs.attack(models=3).explain() == before
