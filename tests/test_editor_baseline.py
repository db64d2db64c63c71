"""The rule editor shows what an edit changed: the baseline's distribution (the last saved
version, or the text kept with "Keep as baseline") under the current one, and the change of
the headline numbers, checked against rolling every die."""
from __future__ import annotations

import numpy as np

from workbench.ui.editor import RuleEditor

from test_rule_editor import SIMPLE, brute_hits


def drawn(ed):
    return [np.asarray(t.y, dtype=float) for t in ed.change_fig.data]


def test_an_edit_is_drawn_over_the_last_saved_version_with_the_change_of_the_numbers(tmp_path):
    path = tmp_path / "edited.toml"
    path.write_text(SIMPLE, encoding="utf-8")
    ed = RuleEditor(path, debounce=0)
    assert "nothing changed yet" in ed.change.value
    ed.text.value = SIMPLE.replace("default = 4", "default = 3")  # skill 4+ -> 3+ (and the slider follows)
    assert ed.error is None and ed.dashboard.values()["skill"] == 3
    base, now = drawn(ed)
    np.testing.assert_allclose(now, brute_hits(3, 2), atol=1e-12)
    # the baseline's rules at the same values: skill 3 in both, so the same numbers
    np.testing.assert_allclose(base, brute_hits(3, 2), atol=1e-12)
    ed.text.value = SIMPLE.replace('target = "skill"', 'target = "skill + 1"')  # a rule edit: one worse
    base, now = drawn(ed)
    np.testing.assert_allclose(base, brute_hits(4, 2), atol=1e-12)
    np.testing.assert_allclose(now, brute_hits(5, 2), atol=1e-12)
    mean = lambda p: float(p @ np.arange(p.size))
    assert f"{mean(brute_hits(4, 2)):.2f}" in ed.change.value and f"{mean(brute_hits(5, 2)):.2f}" in ed.change.value
    assert f"{mean(brute_hits(5, 2)) - mean(brute_hits(4, 2)):+.2f}" in ed.change.value
    # keep it as the baseline: now nothing changed; the file is not written
    assert ed.keep_baseline()
    assert "nothing changed yet" in ed.change.value
    np.testing.assert_allclose(drawn(ed)[0], brute_hits(5, 2), atol=1e-12)
    assert path.read_text(encoding="utf-8") == SIMPLE


def test_a_broken_text_keeps_the_baseline_and_saving_moves_it(tmp_path):
    path = tmp_path / "edited.toml"
    path.write_text(SIMPLE, encoding="utf-8")
    ed = RuleEditor(path, debounce=0)
    ed.text.value = "[system"
    assert ed.error is not None and not ed.keep_baseline()
    assert ed.baseline_text == SIMPLE
    edited = SIMPLE.replace('target = "skill"', 'target = "skill + 1"')
    ed.text.value = edited
    assert ed.save() and ed.baseline_text == edited
    assert "nothing changed yet" in ed.change.value
