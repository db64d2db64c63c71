"""notebooks/changes_turn.ipynb, executed headless as Voila would (nbclient), under a link.

The served notebook is a few cells calling :class:`workbench.ui.turn.TurnDashboard`;
its link (``QUERY_STRING``, as Voila sets it) is applied by ``show()``. A cell
added after the notebook's own reports what the page computed; the numbers must
be the simulator's, run here on forces built from the profile.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from workbench.turn import from_profile, study

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "changes_turn.ipynb"
LINK = ("a_plan=spread&b_plan=greedy&b_kill=70&b_answer=under_fire&a_units=2&a1_models=8&a2_unit="
        "space-marine.heavy-bolter&a2_models=6&b_units=2&b1_models=9&b1_cover=1&b2_models=4&turns=200&seed=11")

REPORT = """
import json
print("REPORT" + json.dumps({"values": dashboard.values(), "error": dashboard.error.value,
                             "numbers": dashboard.numbers.to_dict(orient="list"),
                             "link": dashboard.link.query,
                             "bars": [list(map(float, t.y)) for t in dashboard.figures["lost-passive"].data]}))
"""


def test_the_notebook_is_a_few_cells_calling_the_page():
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert len(code) <= 3 and "TurnDashboard" in "".join(code) and code[-1].strip() == "dashboard.show()"
    assert all(c.outputs == [] and c.execution_count is None for c in nb.cells if c.cell_type == "code")


@pytest.mark.notebook
def test_the_notebook_under_a_link_shows_the_simulators_numbers(monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("QUERY_STRING", LINK)
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(REPORT))
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    report = json.loads(text.split("REPORT", 1)[1])
    assert report["error"] == ""
    values = report["values"]
    assert (values["a_plan"], values["b_plan"], values["b_kill"], values["a1_models"], values["turns"],
            values["seed"]) == ("spread", "greedy", 70, 8, 200, 11)
    assert "a1_models=8" in report["link"] and "b_answer=under_fire" in report["link"]

    knife = "Combat Knife"
    a = [from_profile("Space Marine", name="A1", models=8, weapons=["Boltgun", knife]),
         from_profile("Space Marine", name="A2", models=6, weapons=["Heavy Bolter", knife])]
    b = [from_profile("Space Marine", name="B1", models=9, weapons=["Boltgun", knife], cover=1),
         from_profile("Space Marine", name="B2", models=4, weapons=["Heavy Bolter", knife], cover=2)]
    kw = dict(policy_a="spread", turns=200, seed=11, progress=False)
    pol_b = ("greedy", {"kill_probability": 0.7, "response": "under_fire"})
    chosen = study(a, b, policy_b=pol_b, **kw)
    igougo = study(a, b, policy_b=pol_b, mode="igougo", **kw)
    numbers = {k: dict(zip(report["numbers"]["scenario"], v)) for k, v in report["numbers"].items()}
    assert numbers["lost_active"]["chosen"] == pytest.approx(chosen["lost_A"].mean(), abs=1e-12)
    assert numbers["lost_passive"]["chosen"] == pytest.approx(chosen["lost_B"].mean(), abs=1e-12)
    assert numbers["lost_passive"]["under_fire"] == numbers["lost_passive"]["chosen"]
    assert numbers["lost_passive"]["igougo"] == pytest.approx(igougo["lost_B"].mean(), abs=1e-12)
    assert numbers["p_wasted_turn"]["chosen"] == pytest.approx((chosen["shots_wasted"] > 0).mean(), abs=1e-12)
    for drawn, df in zip(report["bars"], (chosen, igougo)):
        want = np.bincount(df["lost_B"].to_numpy()) / 200
        np.testing.assert_allclose(drawn[:want.size], want, rtol=0, atol=1e-12)
        assert not any(drawn[want.size:])


@pytest.mark.notebook
def test_a_copys_served_turn_page_plays_the_copys_files(tmp_path, monkeypatch):
    """The page a copy of the Changes folder is served (``my_changes-turn.ipynb``, staged as the server
    stages it), executed as Voila would under a link: its controls are the copy's turn.toml, and its dice
    the copy's shooting.toml, which no shot can pierce (so nobody loses a model)."""
    import shutil

    import nbformat
    from nbclient import NotebookClient

    from workbench.rulepages import stage_rule_pages

    rules = NOTEBOOK.parents[1] / "rules"
    folder = tmp_path / "mine" / "my_changes"
    shutil.copytree(rules / "changes", folder)
    for part in ("shooting", "melee", "turn"):
        path = folder / f"{part}.toml"
        path.write_text(path.read_text(encoding="utf-8").replace('key = "changes"', 'key = "my_changes"'),
                        encoding="utf-8")
    shooting = folder / "shooting.toml"
    pierce = 'target = "min(max(ap + sv, 1 + natural_1_always_fails), 12 if natural_12_always_succeeds else 1000)"'
    assert shooting.read_text(encoding="utf-8").count(pierce) == 1
    shooting.write_text(shooting.read_text(encoding="utf-8").replace(pierce, 'target = "1000"'), encoding="utf-8")
    turn = folder / "turn.toml"
    turn.write_text(turn.read_text(encoding="utf-8").replace('title = "Passive player"', 'title = "Defender"'),
                    encoding="utf-8")
    monkeypatch.setenv("WORKBENCH_RULES", str(tmp_path / "mine"))
    staged = tmp_path / "staged"
    staged.mkdir()
    pages = stage_rule_pages(staged)
    assert "my_changes-turn.ipynb" in [d.notebook for d in pages.dashboards]

    monkeypatch.setenv("QUERY_STRING", "turns=100&seed=2&morale=difference")
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    nb = nbformat.read(staged / "my_changes-turn.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(REPORT + 'print("SIDES" + json.dumps(dashboard.sides))'))
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(staged)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    report = json.loads(text.split("REPORT", 1)[1].split("SIDES", 1)[0])
    assert report["error"] == "" and report["values"]["morale"] == "difference" and report["values"]["turns"] == 100
    assert json.loads(text.split("SIDES", 1)[1])["b"][0] == "Defender"
    numbers = report["numbers"]
    assert numbers["lost_active"] == [0.0] * 4 and numbers["lost_passive"] == [0.0] * 4
