"""The compare page can add any registered system (a rule file) to the overlay."""
from __future__ import annotations


import numpy as np

from workbench import rules, systems
from workbench.resources import data_dir
from workbench.ui import CompareDashboard

KILL6 = rules.load(data_dir("rules") / "kill6.toml")


def test_a_rule_file_is_added_to_the_overlay_and_taken_off_again():
    dash = CompareDashboard()
    assert dash.system_keys == tuple(systems.builtins())
    assert "kill6" in dash.add_boxes and "changes" not in dash.add_boxes
    dash.set_values(shots=3, models=2)
    dash.add_boxes["kill6"].value = True  # as a viewer ticks it
    assert dash.system_keys[-1] == "kill6" and len(dash.fig_dist.data) == 5
    trace = dash.fig_dist.data[-1]
    assert trace.name == KILL6.name
    # kill6 at its defaults, with the page's shots and unit size
    expected = KILL6.attack(shots=3, models=2).pmf
    np.testing.assert_allclose(np.asarray(trace.y, dtype=float), expected, rtol=0, atol=1e-12)
    assert list(dash.fig_means.data[0].x)[-1] == KILL6.name
    assert dash.fig_means.data[0].y[-1] == dash.current_outcomes()["kill6"].mean
    assert "wb-row-kill6" in dash.table.value
    assert dash.query_string().endswith("&add=kill6")
    # the sliders move it too (shots and models are its own stats)
    dash.set_values(shots=4)
    np.testing.assert_allclose(np.asarray(dash.fig_dist.data[-1].y, dtype=float),
                               KILL6.attack(shots=4, models=2).pmf, rtol=0, atol=1e-12)
    dash.add_boxes["kill6"].value = False
    assert dash.system_keys == tuple(systems.builtins()) and len(dash.fig_dist.data) == 4
    assert "kill6" not in dash.current_outcomes() and "add=" not in dash.query_string()
    assert len(dash.fig_means.data[0].x) == 4


def test_a_link_adds_the_systems_it_names_and_reports_an_unknown_one():
    dash = CompareDashboard(query="?shots=2&models=1&add=kill6,nosuch")
    assert "kill6" in dash.system_keys and dash.add_boxes["kill6"].value is True
    assert dash.controls["shots"].value == 2
    assert "add: expected one of" in dash.error.value and "nosuch" in dash.error.value
    # 2 shots at 1 model: removed = 1 unless both shots fail
    pmf = KILL6.attack(shots=2, models=1).pmf
    np.testing.assert_allclose(np.asarray(dash.fig_dist.data[-1].y, dtype=float), pmf, rtol=0, atol=1e-12)
    assert pmf.size == 2 and abs(pmf.sum() - 1) < 1e-12
