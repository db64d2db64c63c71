"""The Changes turn is a rule file run by a named mechanism: ``rules/changes/turn.toml``, a page of the
folder ``rules/changes/`` (the mechanism ``changes_turn``), holds every control of the turn page with its
range, label, help and words, and the readings of the seed a designer may flip.

The file is read here with ``tomllib`` (never through the workbench's loader) and compared with what the
page shows; an edited copy of the folder is a page of its own, whose numbers are the simulator's
(:func:`workbench.turn.study`, called here directly) for the copy's readings; a broken file is refused
naming its field."""
from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from workbench import rules, systems
from workbench.errors import InputError
from workbench.rules import RuleFileError
from workbench.turn import Rules, from_profile, study
from workbench.ui.turn import TurnDashboard
from workbench.ui.turncontrols import controls, unit_choices

SHIPPED = Path(__file__).resolve().parents[1] / "rules"
TURN = SHIPPED / "changes" / "turn.toml"
FILE = tomllib.loads(TURN.read_text(encoding="utf-8"))
SHOOTING = tomllib.loads((SHIPPED / "changes" / "shooting.toml").read_text(encoding="utf-8"))
#: the file's stats of one side and one unit slot, and the link keys the page gives them
SIDE_STATS = ("plan", "kill", "units")
SLOT_STATS = ("models", "cover")
LINK = {"dice_seed": "seed", "answer": "b_answer"}
#: the readings the turn shares with shooting: shooting.toml's stats
SHARED = ("natural_12_always_succeeds", "natural_1_always_fails", "firer_cover_rule", "heavy_shot")


def _keys(name: str) -> list[str]:
    """Every link key of the page that the file's stat ``name`` stands for."""
    slots = FILE["stats"]["units"]["max"]
    if name in SIDE_STATS:
        return [f"{side}_{name}" for side in "ab"]
    if name in SLOT_STATS:
        return [f"{side}{i}_{name}" for side in "ab" for i in range(1, slots + 1)]
    return [LINK.get(name, name)]


def _agrees(control, stat: dict, view: dict, name: str) -> None:
    assert control.label == stat["label"] and control.help == stat["help"]
    if "options" in stat:
        assert control.options == tuple(stat["options"])
        assert dict(control.words) == view.get("words", {}).get(name, {})
    elif stat.get("kind") == "bool":
        assert control.kind == "bool"
    else:
        assert (control.lo, control.hi, control.step) == (stat["min"], stat["max"],
                                                          view.get("steps", {}).get(name, 1))


def _find(widget, css: str) -> list:
    """The widgets under ``widget`` (itself included) with the CSS class ``css``."""
    found = [widget] if css in getattr(widget, "_dom_classes", ()) else []
    for child in getattr(widget, "children", ()):
        found += _find(child, css)
    return found


@pytest.fixture(scope="module")
def page():
    return TurnDashboard(turns=100, seed=5)


def test_every_control_of_the_page_is_a_stat_of_the_turn_file(page):
    shown = set()
    for name, stat in FILE["stats"].items():
        for key in _keys(name):
            _agrees(page.controls[key], stat, FILE["view"], name)
            shown.add(key)
    for name in SHARED:  # the four readings shared with shooting are shooting.toml's
        _agrees(page.controls[name], SHOOTING["stats"][name], SHOOTING.get("view", {}), name)
        shown.add(name)
    # the rest are the unit pickers, with the file's label and help
    pickers = set(page.controls) - shown
    assert pickers == {f"{side}{i}_unit" for side in "ab" for i in (1, 2, 3)}
    mech = FILE["mechanism"]
    for key in pickers:
        assert page.controls[key].label == f"{mech['unit_label']} {key[1]}"
        assert page.controls[key].help.startswith(mech["unit_help"])


def test_the_page_starts_where_the_file_says(page):
    mech, stats = FILE["mechanism"], FILE["stats"]
    for side, spec in mech["sides"].items():
        assert page.controls[f"{side}_plan"].default == spec["plan"]
        (box,) = _find(page.widget, f"wb-side-{side}")
        assert spec["title"] in box.children[0].value and spec["does"] in box.children[0].value
        for i, slot in enumerate(spec["units"], start=1):
            assert page.controls[f"{side}{i}_unit"].default == slot["unit"]
            assert page.controls[f"{side}{i}_models"].default == slot.get("models", stats["models"]["default"])
            assert page.controls[f"{side}{i}_cover"].default == slot.get("cover", stats["cover"]["default"])
    readings = {n: s["default"] for n, s in stats.items() if n in Rules.__dataclass_fields__}
    assert len(readings) == 6 and page.rules() == {**readings, **{n: SHOOTING["stats"][n]["default"] for n in SHARED}}
    assert Rules() == Rules(**page.rules())  # the simulator's defaults are the files'


def test_a_reading_is_in_the_link_only_when_flipped_and_is_played(page):
    assert "morale" not in page.query_string()
    page.set_values(morale="difference")
    try:
        assert "morale=difference" in page.query_string()
        assert "difference in wounds" in page.notes.value
        again = TurnDashboard(query=page.query_string())
        assert again.rules()["morale"] == "difference" and again.error.value == ""
    finally:
        page.set_values(morale="plain")
    assert "difference in wounds" not in page.notes.value


def test_a_link_value_off_a_step_names_the_control_and_its_steps():
    page = TurnDashboard(query="a_kill=82&turns=100")
    assert "a_kill" in page.error.value and "in steps of 5" in page.error.value
    assert page.values()["a_kill"] == FILE["stats"]["kill"]["default"]
    with pytest.raises(InputError, match="turns: expected a number from 100 to 2000 in steps of 100, got 150"):
        page.set_values(turns=150)


def test_the_simulators_readings_are_checked_against_the_file():
    with pytest.raises(InputError, match="morale: expected one of 'plain', 'difference', got 'lenient'"):
        Rules(morale="lenient")
    with pytest.raises(InputError, match="wrecked_transport: expected one of 'unharmed', 'lost', got 'sunk'"):
        study([from_profile(name="A1")], [from_profile(name="B1")], rules={"wrecked_transport": "sunk"})


# -- a copy of the folder, edited: a turn page of its own ------------------------------------------
def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture()
def copy(tmp_path, monkeypatch):
    """rules/changes/ copied under the key my_changes, its turn.toml edited: the passive units no longer
    see each other's dice, the plans and the passive side read otherwise, 'just enough' moves by 10."""
    folder = tmp_path / "mine" / "my_changes"
    shutil.copytree(SHIPPED / "changes", folder)
    for part in ("shooting", "melee", "turn"):
        _edit(folder / f"{part}.toml", 'key = "changes"', 'key = "my_changes"')
    turn = folder / "turn.toml"
    _edit(turn, 'kind = "bool"\ndefault = true', 'kind = "bool"\ndefault = false')
    _edit(turn, 'focus = "Focus fire"', 'focus = "All on the biggest"')
    _edit(turn, 'title = "Passive player"', 'title = "Defender"')
    _edit(turn, 'turns = 100\nkill = 5', 'turns = 100\nkill = 15')
    monkeypatch.setenv(systems.RULES_ENV, str(tmp_path / "mine"))
    return folder


def test_an_edited_copy_of_the_turn_file_is_its_page(copy):
    assert systems.broken() == () and systems.get("my_changes").functions == ("shooting", "melee")
    link = "a_plan=spread&b_plan=greedy&b_answer=under_fire&turns=200&seed=3"
    mine, shipped = TurnDashboard(system="my_changes", query=link), TurnDashboard(query=link)
    assert mine.error.value == "" and mine.rules()["passive_sees_results"] is False
    assert dict(mine.controls["a_plan"].words)["focus"] == "All on the biggest"
    assert mine.controls["a_kill"].step == 15 and mine.sides["b"][0] == "Defender"
    assert "as if declared at once" in mine.notes.value and "as if declared at once" not in shipped.notes.value
    # its numbers are the simulator's for the copy's reading, and that reading changes them
    a, b = mine.forces()
    pol_a, pol_b = mine.policies()
    kw = dict(policy_a=pol_a, policy_b=pol_b, turns=200, seed=3, progress=False)
    played = study(a, b, rules={"passive_sees_results": False}, **kw)
    pd.testing.assert_frame_equal(mine.results["under_fire"], played)
    assert (played["lost_A"] != study(a, b, **kw)["lost_A"]).any()
    pd.testing.assert_frame_equal(shipped.results["under_fire"], study(a, b, **kw))
    with pytest.raises(InputError, match="a_kill: expected a number from 50 to 95 in steps of 15, got 60"):
        mine.set_values(a_kill=60)


def test_a_system_without_a_turn_page_is_refused_naming_it():
    with pytest.raises(InputError, match="system: expected a copy of the Changes rule folder"):
        TurnDashboard(system="antares")


# -- a broken turn file ------------------------------------------------------------------------------
TEXT = TURN.read_text(encoding="utf-8")
BREAKS = [
    ("[stats.units]", "[stats.unit_count]", "stats", "no stat units"),
    ("options = { focus = 1, spread = 2, greedy = 3 }", "options = { focus = 1, spread = 2, greedy = 3, hold = 4 }",
     "stats.plan", "options focus, spread, greedy"),
    ('kind = "bool"\ndefault = true', 'options = { yes = 1, no = 2 }\ndefault = "yes"', "stats.passive_sees_results",
     "a yes/no stat"),
    ("min = 100\nmax = 2000", "min = 100\nmax = 100000", "stats.turns", "a range inside 1..5000"),
    ('plan = "greedy"', 'plan = "nuke"', "mechanism.sides.a.plan", "one of focus, spread, greedy"),
    ('{ unit = "space-marine.boltgun", models = 10 }', '{ unit = "space-marine.boltgun", models = 30 }',
     "mechanism.sides.a.units[1].models", "a whole number from 1 to 20"),
    ('  { unit = "space-marine.heavy-bolter", models = 10, cover = 2 },\n', "", "mechanism.sides.b.units",
     "3 unit slots"),
    ('unit_label = "unit"', 'unit_label = "unit"\nunits = 3', "mechanism.units", "unit_label, unit_help, sides"),
    ("turns = 100\nkill = 5", "turns = 300\nkill = 5", "view.steps.turns", "a step from 100 that reaches 2000"),
]


@pytest.mark.parametrize("old, new, field, expected", BREAKS, ids=[b[2] for b in BREAKS])
def test_a_broken_turn_file_is_refused_naming_its_field(old, new, field, expected):
    assert TEXT.count(old) == 1
    texts = {f"{p}.toml": (SHIPPED / "changes" / f"{p}.toml").read_text(encoding="utf-8") for p in ("shooting", "melee")}
    with pytest.raises(RuleFileError) as exc:
        rules.loads_folder({**texts, "turn.toml": TEXT.replace(old, new)}, "mine")
    assert exc.value.field == field and expected in str(exc.value) and "turn.toml" in str(exc.value)


def test_a_turn_file_needs_the_files_it_plays_beside_it(tmp_path, monkeypatch):
    alone = tmp_path / "mine"
    alone.mkdir()
    (alone / "turn.toml").write_text(TEXT, encoding="utf-8")
    with pytest.raises(RuleFileError, match="mechanism.name: expected a mechanism that resolves an attack"):
        rules.load_system(alone / "turn.toml")
    with pytest.raises(RuleFileError, match="a file of stages or of a mechanism that resolves an attack"):
        rules.loads_folder({"turn.toml": TEXT}, "mine")
    monkeypatch.setenv(systems.RULES_ENV, str(alone))
    (bad,) = systems.broken()
    assert "turn.toml" in str(bad.path) and "mechanism.name" in bad.message


def test_a_unit_the_profiles_do_not_have_is_refused_naming_the_slot():
    texts = {f"{p}.toml": (SHIPPED / "changes" / f"{p}.toml").read_text(encoding="utf-8") for p in ("shooting", "melee")}
    folder = rules.loads_folder({**texts, "turn.toml": TEXT.replace('plan = "focus"\nunits = [\n  { unit = '
                                                                   '"space-marine.boltgun" }',
                                                                   'plan = "focus"\nunits = [\n  { unit = "ork.choppa" }')},
                                "mine")
    with pytest.raises(InputError, match=r"mechanism.sides.b.units\[0\].unit: expected one of space-marine"):
        controls(unit_choices(), folder)


def test_a_copys_turn_rolls_the_copys_shooting_file(copy):
    """No shot of the copy can pierce (its to-pierce target is past every face): whatever the page plays,
    no model is lost, where the built-in's turn loses some in every scenario."""
    pierce = 'target = "min(max(ap + sv, 1 + natural_1_always_fails), 12 if natural_12_always_succeeds else 1000)"'
    _edit(copy / "shooting.toml", pierce, 'target = "1000"')
    link = "turns=100&seed=4"
    mine, shipped = TurnDashboard(system="my_changes", query=link), TurnDashboard(query=link)
    assert mine.error.value == "" and systems.get("my_changes").shooting(ap=2, sv=0).mean == 0
    for key in ("chosen", "engage", "under_fire", "igougo"):
        assert (mine.results[key][["lost_A", "lost_B"]] == 0).all().all()
        assert shipped.results[key][["lost_A", "lost_B"]].to_numpy().sum() > 0
    with pytest.raises(InputError, match="system: expected None .* or a rule folder with the parts shooting and melee"):
        Rules(system="my_changes")
