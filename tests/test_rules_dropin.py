"""A designer's rule file dropped into a folder named by WORKBENCH_RULES works
everywhere with no Python: it resolves, sweeps, explains, exports and gets its
own served dashboard; a broken file beside it is listed with its error and
does not stop the others."""
from __future__ import annotations

import itertools
import urllib.error
import urllib.request
from fractions import Fraction

import numpy as np
import pytest

from workbench import compare, export, systems, teach

DROPIN = """\
[system]
key = "dropin"
name = "Drop-in skirmish"
die = 6
notes = ["A rule file dropped into a folder: hit, then wound."]

[stats.skill]
label = "Skill"
help = "hits on a roll of N or more"
min = 2
max = 6
default = 4

[stats.tough]
label = "Toughness"
help = "wounded on a roll of N or more"
min = 2
max = 6
default = 5

[stats.shots]
label = "Shots"
min = 0
max = 12
default = 3

[stats.models]
label = "Models"
min = 1
max = 10
default = 2

[attack]
count = "shots"

[[stages]]
name = "to hit"
roll = "high"
target = "skill"

[[stages]]
name = "to wound"
roll = "high"
target = "tough"

[removal]
models = "models"
wounds = "1"
damage = "1"
spill = false
"""

#: stages[1].roll is neither "high" nor "low" (line 4 of the file)
BROKEN = """\
[system]
key = "broken_one"
name = "A broken file"
die = 6

[stats.shots]
min = 0
max = 5
default = 2

[attack]
count = "shots"

[[stages]]
name = "to hit"
roll = "sideways"
target = "4"

[removal]
models = "1"
wounds = "1"
damage = "1"
"""


def brute(skill: int, tough: int, shots: int, models: int) -> list[Fraction]:
    """P(k models removed) by rolling every hit and wound die of every shot."""
    counts = [0] * (models + 1)
    total = 0
    for faces in itertools.product(range(1, 7), repeat=2 * shots):
        wounds = sum(1 for i in range(shots) if faces[2 * i] >= skill and faces[2 * i + 1] >= tough)
        counts[min(wounds, models)] += 1
        total += 1
    return [Fraction(c, total) for c in counts]


@pytest.fixture
def dropin(tmp_path, monkeypatch):
    folder = tmp_path / "my rules"
    folder.mkdir()
    (folder / "dropin.toml").write_text(DROPIN, encoding="utf-8")
    (folder / "broken_one.toml").write_text(BROKEN, encoding="utf-8")
    monkeypatch.setenv(systems.RULES_ENV, str(folder))
    return folder


def test_dropped_file_resolves_exactly(dropin):
    assert "dropin" in systems.keys()
    out = systems.get("dropin").attack(skill=3, tough=4, shots=3, models=2)
    expected = brute(3, 4, 3, 2)
    assert out.pmf.shape == (3,)
    np.testing.assert_allclose(out.pmf, [float(p) for p in expected], rtol=0, atol=1e-12)


def test_dropped_file_sweeps(dropin):
    df = compare.sweep("dropin", "attack", skill=[2, 3, 4, 5, 6], tough=4, shots=2, models=2, progress=False)
    assert len(df) == 5
    for _, row in df.iterrows():
        pmf = brute(int(row["skill"]), 4, 2, 2)
        assert row["mean"] == pytest.approx(float(sum(k * p for k, p in enumerate(pmf))), abs=1e-12)


def test_dropped_file_explains_with_its_stage_fractions(dropin):
    out = systems.get("dropin").attack(skill=3, tough=5, shots=2, models=2)
    text = teach.explain(out)
    assert "Drop-in skirmish" in text
    assert "to hit" in text and "to wound" in text
    # 4 of 6 faces hit on 3+, 2 of 6 wound on 5+
    assert "4/6" in text or "2/3" in text
    assert "2/6" in text or "1/3" in text
    # per attack: 4/6 * 2/6 = 2/9, in the forum post too
    assert "2/9" in teach.to_markdown(out)
    assert "2/9" in teach.to_bbcode(out) and "[" in teach.to_bbcode(out)


def test_dropped_file_exports(dropin, tmp_path):
    out = systems.get("dropin").attack(shots=4)
    svg = tmp_path / "dropin.svg"
    page = tmp_path / "dropin.html"
    export.save_figure(out, svg)
    export.save_figure(out, page)
    assert svg.read_text(encoding="utf-8").lstrip().startswith(("<svg", "<?xml"))
    assert "Drop-in skirmish" in page.read_text(encoding="utf-8")


def test_broken_file_is_listed_and_the_others_still_load(dropin):
    bad = [b for b in systems.broken() if b.path.name == "broken_one.toml"]
    assert len(bad) == 1
    assert "stages[0].roll" in bad[0].message and "sideways" in bad[0].message
    assert "broken_one" not in systems.keys()
    assert {"dropin", "kill6"} <= set(systems.keys())


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=180) as resp:
            return resp.status, resp.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, ""


@pytest.mark.server
def test_dropped_file_gets_its_own_served_dashboard(dropin):
    from serverkit import ServerProcess

    with ServerProcess(port=0, pool_size=0, timeout=120) as srv:
        status, landing = _get(srv.url)
        assert status == 200
        # listed by its name and linked by its key; the shipped rule files too
        assert 'href="voila/render/dropin.ipynb"' in landing and "Drop-in skirmish" in landing
        assert 'href="voila/render/kill6.ipynb"' in landing
        # the broken file: listed by file name with its error in words, no link, no folder shown
        assert "broken_one.toml" in landing and "sideways" in landing
        assert "/voila/render/broken_one.ipynb" not in landing
        assert str(dropin) not in landing
        status, page = _get(srv.url.rstrip("/") + "/voila/render/dropin.ipynb")
        assert status == 200
        assert "application/vnd.jupyter.widget-view+json" in page
        assert "Traceback" not in page and '"output_type": "error"' not in page
        # the rule editor's notebook and the rule file itself are not served
        assert _get(srv.url.rstrip("/") + "/voila/render/rule_editor.ipynb")[0] == 404
        assert _get(srv.url.rstrip("/") + "/voila/render/broken_one.ipynb")[0] == 404
        assert _get(srv.url.rstrip("/") + "/voila/files/dropin.toml")[0] == 404
    assert srv.proc.returncode == 0
