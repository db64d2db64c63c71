"""The rule editor: the text beside its live dashboard; edits re-parse, errors
show their line, good edits redraw, Save writes the file it was opened from."""
from __future__ import annotations

import asyncio
import itertools
import shutil
from pathlib import Path

import numpy as np
import pytest

from workbench.ui.editor import RuleEditor

KILL6 = Path(__file__).resolve().parents[1] / "rules" / "kill6.toml"

SIMPLE = """\
[system]
key = "edited"
name = "Edited game"
die = 6

[stats.skill]
label = "Skill"
min = 2
max = 6
default = 4

[stats.shots]
min = 0
max = 6
default = 2

[attack]
count = "shots"

[[stages]]
name = "to hit"
roll = "high"
target = "skill"

[removal]
models = "5"
wounds = "1"
damage = "1"
"""


def brute_hits(skill: int, shots: int, models: int = 5, faces: int = 6) -> np.ndarray:
    """P(k models removed), one per hit up to the unit's size, by rolling every die."""
    counts = np.zeros(models + 1)
    for roll in itertools.product(range(1, faces + 1), repeat=shots):
        counts[min(models, sum(f >= skill for f in roll))] += 1
    return counts / faces ** shots


@pytest.fixture
def simple(tmp_path):
    path = tmp_path / "edited.toml"
    path.write_text(SIMPLE, encoding="utf-8")
    return path


def drawn(editor: RuleEditor) -> np.ndarray:
    return np.asarray(editor.dashboard.fig_dist.data[0].y, dtype=float)


def test_opens_with_the_file_text_and_its_dashboard(simple):
    ed = RuleEditor(simple, debounce=0)
    assert ed.text.value == SIMPLE
    assert ed.error is None and ed.system.key == "edited"
    assert set(ed.dashboard.specs) == {"skill", "shots"}
    np.testing.assert_allclose(drawn(ed), brute_hits(4, 2), atol=1e-12)
    assert "wb-rule-text" in ed.text._dom_classes  # the monospaced style's hook
    assert ed.dashboard.widget in ed.dashboard_box.children


def test_a_good_edit_redraws_with_the_new_rule(simple):
    ed = RuleEditor(simple, debounce=0)
    before = ed.redraws
    ed.text.value = SIMPLE.replace('target = "skill"', 'target = "skill + 1"')
    assert ed.error is None and ed.redraws == before + 1
    # skill 4 now needs a 5+
    np.testing.assert_allclose(drawn(ed), brute_hits(5, 2), atol=1e-12)
    assert ed.dashboard.widget in ed.dashboard_box.children


def test_a_new_stat_gets_a_control_and_values_set_by_hand_are_kept(simple):
    ed = RuleEditor(simple, debounce=0)
    ed.dashboard.set_values(skill=3, shots=3)
    ed.text.value = SIMPLE.replace("[attack]", "[stats.bonus]\nmin = 0\nmax = 2\ndefault = 0\n\n[attack]") \
                          .replace('target = "skill"', 'target = "skill - bonus"')
    assert ed.error is None
    assert set(ed.dashboard.specs) == {"skill", "shots", "bonus"}
    assert ed.dashboard.values() == {"skill": 3, "shots": 3, "bonus": 0}
    np.testing.assert_allclose(drawn(ed), brute_hits(3, 3), atol=1e-12)


def test_a_bad_edit_shows_the_error_with_its_line_and_keeps_the_last_dashboard(simple):
    ed = RuleEditor(simple, debounce=0)
    good = ed.dashboard
    bad = SIMPLE.replace('roll = "high"', 'roll = "sideways"')
    ed.text.value = bad
    assert ed.error is not None
    line = bad.splitlines().index('roll = "sideways"') + 1
    assert ed.error.line == line
    assert f"line {line}" in ed.status.value
    assert "stages[0].roll" in ed.status.value and "sideways" in ed.status.value
    assert ed.dashboard is good and good.widget in ed.dashboard_box.children
    # a TOML syntax error has its line too
    ed.text.value = SIMPLE.replace("default = 2", "default = = 2")
    toml_line = SIMPLE.splitlines().index("default = 2") + 1
    assert ed.error is not None and f"line {toml_line}" in ed.status.value
    # fixing it clears the error and redraws
    ed.text.value = SIMPLE
    assert ed.error is None and "wb-editor-ok" in ed.status.value


def test_save_writes_the_file_it_was_opened_from(simple):
    ed = RuleEditor(simple, debounce=0)
    new = SIMPLE.replace('name = "Edited game"', 'name = "Edited again"')
    ed.text.value = new
    assert simple.read_text(encoding="utf-8") == SIMPLE  # editing alone writes nothing
    assert "unsaved" in ed.saved.value
    ed.save_button.click()
    assert simple.read_text(encoding="utf-8") == new
    assert "unsaved" not in ed.saved.value and "saved" in ed.saved.value


def test_save_refuses_a_broken_text(simple):
    ed = RuleEditor(simple, debounce=0)
    ed.text.value = SIMPLE.replace('target = "skill"', 'target = "skill +"')
    assert ed.error is not None
    assert ed.save() is False
    assert simple.read_text(encoding="utf-8") == SIMPLE
    assert "not saved" in ed.saved.value


def test_edits_are_parsed_once_typing_pauses(simple):
    async def typing():
        ed = RuleEditor(simple, debounce=0.05)
        before = ed.redraws
        for skill in "23456":  # five keystrokes in a row
            ed.text.value = SIMPLE.replace("default = 4", f"default = {skill}")
        assert ed.redraws == before  # nothing parsed while typing
        await asyncio.sleep(0.3)
        return ed, before

    ed, before = asyncio.run(typing())
    assert ed.redraws == before + 1
    assert ed.dashboard.values()["skill"] == 6  # not set by hand: the new default
    assert ed.system.stats[0].default == 6


def test_opening_a_copy_of_kill6_leaves_the_shipped_file_alone(tmp_path):
    copy = tmp_path / "kill6.toml"
    shutil.copyfile(KILL6, copy)
    shipped = KILL6.read_text(encoding="utf-8")
    ed = RuleEditor(copy, debounce=0)
    ed.text.value = ed.text.value.replace("default = 6", "default = 8", 1)
    assert ed.save()
    assert KILL6.read_text(encoding="utf-8") == shipped
    assert "default = 8" in copy.read_text(encoding="utf-8")
    assert ed.dashboard.values()["shots"] == 8
    assert ed.dashboard.current_outcome().pmf.sum() == pytest.approx(1.0, abs=1e-12)


def test_a_value_set_by_hand_that_no_longer_fits_takes_the_new_default(simple):
    ed = RuleEditor(simple, debounce=0)
    ed.dashboard.set_values(skill=6, shots=4)
    ed.text.value = SIMPLE.replace("max = 6\ndefault = 4", "max = 5\ndefault = 3")  # skill now 2..5
    assert ed.error is None
    assert ed.dashboard.values() == {"skill": 3, "shots": 4}
    np.testing.assert_allclose(drawn(ed), brute_hits(3, 4), atol=1e-12)
