"""A system may be a folder of rule files, one dashboard mode per file (rules/changes/, rules/forgotten/):
a designer's copy of a built-in's folder under a new key is a new system with every mode in every view
(its functions, its dashboard, the landing page, the command line, sweeps); a file of a named mechanism
alone is a system of its own; a folder with one broken file is listed by that file, its field and its
line, and the other systems still load.

Expected numbers are binomials over per-attack chances counted here in Fractions from the files' rules
(to hit, to pierce, to wound: each the faces of a D12 at or above the target), or the built-in functions'
own (each proven equal to a hand-written reference elsewhere) where the copy is unchanged."""
from __future__ import annotations

import math
import pickle
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from workbench import cli, compare, rules, serve, systems
from workbench.rules import RuleFileError
from workbench.systems import changes, forgotten

SHIPPED = Path(__file__).resolve().parents[1] / "rules"
DOC = Path(__file__).resolve().parents[1] / "docs" / "rulefiles.md"
#: The Forgotten's close combat: both fighters' CQC and PHYS (the rest at the file's defaults)
CC = dict(attacker_cqc=6, defender_cqc=5, attacker_phys=5, defender_phys=6)
#: melee's to-hit target as the shipped file writes it, and the variant's: a natural 12 always hits
TO_HIT = '"min(max(ws + max(d, inv), 1 + natural_1_always_fails), 12 if natural_12_always_succeeds else 1000)"'
VARIANT = '"min(max(ws + max(d, inv), 1 + natural_1_always_fails), 12)"'


def _rekey(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(f'key = "{old}"') == 1
    path.write_text(text.replace(f'key = "{old}"', f'key = "{new}"'), encoding="utf-8")


def _d12(target: int) -> Fraction:
    """A D12 roll of ``target`` or more (1 to 12 faces: targets past 12 never, below 1 always)."""
    return Fraction(min(12, max(0, 13 - target)), 12)


def _binomial(n: int, p: Fraction, cap: int) -> list[float]:
    pmf = [Fraction(math.comb(n, k)) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
    return [float(x) for x in pmf[:cap] + [sum(pmf[cap:], Fraction(0))]]


@pytest.fixture()
def mine(tmp_path, monkeypatch):
    """A designer's rules folder holding a copy of rules/changes/ keyed my_changes, its melee edited
    (a natural 12 always hits), and a copy of The Forgotten's close-combat file alone, keyed my_melee."""
    folder = tmp_path / "my rules"
    shutil.copytree(SHIPPED / "changes", folder / "my_changes")
    for part in ("shooting", "melee", "turn"):
        _rekey(folder / "my_changes" / f"{part}.toml", "changes", "my_changes")
    melee = folder / "my_changes" / "melee.toml"
    text = melee.read_text(encoding="utf-8")
    assert text.count(TO_HIT) == 1
    melee.write_text(text.replace(TO_HIT, VARIANT), encoding="utf-8")
    shutil.copy(SHIPPED / "forgotten" / "close_combat.toml", folder / "my_melee.toml")
    _rekey(folder / "my_melee.toml", "forgotten", "my_melee")
    monkeypatch.setenv(systems.RULES_ENV, str(folder))
    return folder


# -- a copied folder: one system, both modes, every view --------------------------------------
def test_a_copied_folder_is_one_new_system_with_both_modes(mine):
    assert systems.broken() == ()
    assert systems.keys().count("my_changes") == 1 and "changes" in systems.keys()
    desc = systems.get("my_changes")
    assert desc.path == mine / "my_changes" and desc.name == "40k Changes"
    assert desc.functions == ("shooting", "melee")
    assert [(m.key, m.function, m.title) for m in desc.modes] == [("shooting", "shooting", "Shooting"),
                                                                  ("melee", "melee", "Melee")]
    # unchanged shooting is the built-in's; the edited melee hits on a natural 12 where the built-in cannot
    kw = dict(bs=4, s=6, ap=5, t=1, sv=2, shots=6, models=4, wounds=2)
    assert desc.shooting(**kw).per_attack == changes.shooting(**kw).per_attack
    np.testing.assert_allclose(desc.shooting(**kw).pmf, changes.shooting(**kw).pmf, rtol=0, atol=1e-12)
    out = desc.melee(ws=13, d=0)
    assert out.function == "melee" and out.system == "my_changes"
    assert out.stages[0].probability == Fraction(1, 12) == _d12(12)
    assert changes.melee(ws=13, s=5, ap=5, d=0).stages[0].probability == 0
    p = _d12(12) * _d12(5 + 3) * _d12(5 + 2)  # the melee file's defaults: AP 5 + Sv 3, S 5 + T 2
    np.testing.assert_allclose(out.pmf, _binomial(10, p, 10), rtol=0, atol=1e-12)
    n = 20_000
    sampled = desc.melee(ws=13, d=0, method="sampled", samples=n, seed=3)
    spread = (float(out.pmf @ np.arange(out.pmf.size) ** 2) - out.mean ** 2) ** 0.5
    assert sampled.function == "melee" and abs(sampled.mean - out.mean) <= 5 * spread / n ** 0.5
    again = pickle.loads(pickle.dumps(desc.module))  # worker processes get the folder as its texts
    assert again.functions == desc.functions and again.melee(ws=13, d=0).mean == out.mean


def test_the_copied_folders_dashboard_shows_both_modes_and_resolves_the_edited_one(mine):
    from workbench.teach.matchup import dashboard_link
    from workbench.ui import SystemDashboard

    dash = SystemDashboard("my_changes")
    assert [key for _, key in dash.mode_picker.options] == ["shooting", "melee"]
    assert dash.mode_picker.layout.display != "none"
    dash.set_values(mode="melee", ws=13, d=0, attacks=6, models=3)
    got = dash.current_outcome()
    assert got.function == "melee" and got.stages[0].probability == Fraction(1, 12)
    p = _d12(12) * _d12(8) * _d12(7)
    np.testing.assert_allclose(np.asarray(dash.fig_dist.data[0].y, dtype=float), _binomial(6, p, 3), atol=1e-12)
    link = dashboard_link(got)
    assert link.startswith("voila/render/my_changes.ipynb?") and "mode=melee" in link and "ws=13" in link


def test_the_copied_folder_is_on_the_landing_page_and_served(mine, tmp_path):
    from workbench.rulepages import rule_dashboard, stage_rule_pages
    from workbench.ui.turn import TurnDashboard

    staged = tmp_path / "staged"
    staged.mkdir()
    pages = stage_rule_pages(staged, tuple(d.notebook for d in serve.DASHBOARDS))
    assert pages.broken == ()
    page = next(d for d in pages.dashboards if d.notebook == "my_changes.ipynb")
    assert page.title == "40k Changes" and page.blurb.endswith("(rule folder my_changes)")
    assert (staged / "my_changes.ipynb").exists() and (staged / "my_melee.ipynb").exists()
    assert not (staged / "changes.ipynb").exists()  # the built-in's own folder is the built-in's page
    code = (staged / "my_changes.ipynb").read_text(encoding="utf-8")
    assert "rule_dashboard('my_changes', 'my_changes')" in code and str(mine) not in code
    landing = serve.landing_page(serve.DASHBOARDS + pages.dashboards, pages.landing_items())
    assert 'href="voila/render/my_changes.ipynb"' in landing and 'href="voila/render/my_melee.ipynb"' in landing
    assert pages.now().dashboards == pages.dashboards
    # the copy's turn.toml is its own turn page, beside the built-in's
    turn = next(d for d in pages.dashboards if d.notebook == "my_changes-turn.ipynb")
    assert turn.title == "40k Changes: a whole turn" and turn.blurb.endswith("(rule folder my_changes)")
    assert 'href="voila/render/my_changes-turn.ipynb"' in landing and not (staged / "my_melee-turn.ipynb").exists()
    code = (staged / "my_changes-turn.ipynb").read_text(encoding="utf-8")
    assert "rule_dashboard('my_changes', 'my_changes', 'turn')" in code and str(mine) not in code
    page = rule_dashboard("my_changes", "my_changes", "turn")
    assert isinstance(page, TurnDashboard) and page.turn.path == mine / "my_changes" / "turn.toml"
    assert page.error.value == "" and page.numbers is not None


def test_the_command_line_posts_and_sweeps_either_mode_of_the_copy(mine, capsys):
    assert cli.main(["post", "my_changes", "mode=melee&ws=13&d=0"]) == 0
    text = capsys.readouterr().out
    assert "1/12" in text and "40k Changes" in text
    assert cli.main(["explain", "my_changes", "bs=4"]) == 0
    assert "To hit" in capsys.readouterr().out
    df = compare.sweep("my_changes", "melee", ws=[5, 13], d=0, attacks=4, models=10, progress=False)
    for _, row in df.iterrows():
        p = _d12(int(row["ws"]) if row["ws"] < 13 else 12) * _d12(8) * _d12(7)
        assert row["mean"] == pytest.approx(float(4 * p), abs=1e-12)


def test_the_compare_page_takes_the_copied_folder_at_its_first_mode(mine):
    from workbench.ui import CompareDashboard

    dash = CompareDashboard(system_keys=("changes", "my_changes"))
    dash.set_values(shots=2, models=2)
    got = dash.current_outcomes()["my_changes"]
    # shooting at the file's defaults: BS 5+ (8/12), AP 5 + Sv 3 = 8+ (5/12), S 5 + T 2 = 7+ (6/12)
    assert got.function == "shooting"
    np.testing.assert_allclose(got.pmf, _binomial(2, _d12(5) * _d12(8) * _d12(7), 2), atol=1e-12)
    assert "my_changes" in dash.table.value and len(dash.fig_dist.data) == 2


def test_a_copy_keeping_the_built_ins_key_is_refused_and_the_others_load(mine):
    shutil.copytree(SHIPPED / "forgotten", mine / "forgotten")
    (bad,) = systems.broken()
    assert bad.path == mine / "forgotten" and bad.key == "forgotten"
    assert "a key no other system uses" in bad.message and "a built-in system" in bad.message
    assert systems.keys().count("forgotten") == 1 and {"my_changes", "my_melee", "kill6"} <= set(systems.keys())


# -- a file of a named mechanism alone ---------------------------------------------------------
def test_a_mechanism_file_alone_is_a_system_with_its_own_dashboard(mine):
    from workbench.ui import SystemDashboard

    desc = systems.get("my_melee")
    assert desc.path == mine / "my_melee.toml" and desc.functions == ("attack",)
    for rounds in (1, 3):
        got, want = desc.attack(**CC, rounds=rounds), forgotten.close_combat(**CC, rounds=rounds)
        for name in ("defender_downed", "attacker_downed", "pushback_attacker", "pushback_defender"):
            assert got.effects[name] == pytest.approx(want.effects[name], abs=1e-12), (rounds, name)
    dash = SystemDashboard("my_melee")
    dash.set_values(**CC, rounds=2)
    shown = dash.current_outcome()
    assert shown.system == "my_melee"
    assert shown.effects["defender_downed"] == pytest.approx(
        forgotten.close_combat(**CC, rounds=2).effects["defender_downed"], abs=1e-12)


# -- broken parts ----------------------------------------------------------------------------
def _line_of(path: Path, start: str) -> int:
    return next(i for i, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if ln.startswith(start))


def test_a_folder_with_a_broken_file_is_listed_by_that_file_its_field_and_line(mine, tmp_path):
    import os

    from workbench.rulepages import BrokenRulePage, rule_dashboard, stage_rule_pages

    staged = tmp_path / "staged"
    staged.mkdir()
    pages = stage_rule_pages(staged, tuple(d.notebook for d in serve.DASHBOARDS))  # served, then broken
    assert "my_changes.ipynb" in [d.notebook for d in pages.dashboards]
    melee = mine / "my_changes" / "melee.toml"
    melee.write_text(melee.read_text(encoding="utf-8").replace("die = 12", "die = 1", 1), encoding="utf-8")
    st = melee.stat()
    os.utime(melee, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a new stamp even within one tick
    line = _line_of(melee, "die = 1")
    (bad,) = systems.broken()
    assert bad.path == melee and "system.die" in bad.message and f"line {line}" in bad.message
    assert "my_changes" not in systems.keys() and {"my_melee", "kill6", "changes"} <= set(systems.keys())
    now = pages.now()
    assert dict(now.broken).keys() == {"my_changes/melee.toml"}  # the file at fault, not "no longer there"
    message = dict(now.broken)["my_changes/melee.toml"]
    assert message.startswith(f"Line {line}, at system.die: it should be") and str(mine) not in message
    assert "my_changes.ipynb" not in [d.notebook for d in now.dashboards]
    assert "my_melee.ipynb" in [d.notebook for d in now.dashboards]
    assert "my_changes-turn.ipynb" not in [d.notebook for d in now.dashboards]
    for page in (rule_dashboard("my_changes", "my_changes"), rule_dashboard("my_changes", "my_changes", "turn")):
        assert isinstance(page, BrokenRulePage) and "my_changes/melee.toml" in page.html()
    again = tmp_path / "again"
    again.mkdir()
    later = stage_rule_pages(again, tuple(d.notebook for d in serve.DASHBOARDS))  # a restart while broken
    assert not (again / "my_changes.ipynb").exists() and (again / "my_melee.ipynb").exists()
    assert not (again / "my_changes-turn.ipynb").exists()
    assert "my_changes/melee.toml" in later.landing_items()


def test_a_part_keyed_otherwise_is_refused_at_its_key(mine):
    shooting = mine / "my_changes" / "shooting.toml"
    _rekey(shooting, "my_changes", "other")
    # the first part (order = 1, shooting) says the key; melee is the part at fault
    (bad,) = systems.broken()
    melee = mine / "my_changes" / "melee.toml"
    assert bad.path == melee and "system.key" in bad.message and "'other'" in bad.message
    assert f"line {_line_of(melee, 'key = ')}" in bad.message


def test_a_part_whose_file_name_names_no_function_is_refused():
    with pytest.raises(RuleFileError) as e:
        rules.loads_folder({"shooting.toml": (SHIPPED / "changes" / "shooting.toml").read_text(),
                            "Close Combat.toml": (SHIPPED / "changes" / "melee.toml").read_text()}, "mine")
    assert e.value.field == "file" and e.value.got == "Close Combat.toml"
    with pytest.raises(RuleFileError) as e:
        rules.loads_folder({}, "mine")
    assert e.value.field == "folder"


def test_a_folder_given_where_a_file_is_wanted_is_refused_with_the_way_to_load_it():
    with pytest.raises(RuleFileError) as e:
        rules.load(SHIPPED / "changes")
    assert e.value.field == "file" and e.value.got == "a folder" and "rules.load_system" in e.value.expected
    assert rules.load_system(SHIPPED / "changes").functions == ("shooting", "melee")


def test_parts_without_an_order_come_in_file_name_order():
    texts = {f"{p}.toml": (SHIPPED / "changes" / f"{p}.toml").read_text() for p in ("shooting", "melee")}
    assert rules.loads_folder(texts, "mine").functions == ("shooting", "melee")  # order = 1, 2
    plain = {name: "\n".join(ln for ln in t.splitlines() if not ln.startswith("order = "))
             for name, t in texts.items()}
    folder = rules.loads_folder(plain, "mine")
    assert folder.functions == ("melee", "shooting") and folder.name == "40k Changes melee"


def test_the_documented_folder_example_loads_as_one_system_of_two_modes(tmp_path):
    """docs/rulefiles.md's example folder: its two files, taken from the page as written."""
    section = DOC.read_text(encoding="utf-8").split("## A system of several files", 1)[1].split("\n## ", 1)[0]
    blocks = section.split("```toml\n")[1:]
    texts = {}
    for block in blocks:
        body = block.split("```", 1)[0]
        first = body.splitlines()[0]
        assert first.startswith("# skirmish/"), first
        texts[first.removeprefix("# skirmish/").strip()] = body
    folder = rules.loads_folder(texts, tmp_path / "skirmish")
    assert folder.key == "skirmish" and folder.functions == ("shooting", "melee")
    # shooting: 3+ to hit, 4+ to wound on a d6, two shots; melee: 4+ to hit, 4+ to wound, three attacks
    shot, melee = Fraction(4, 6) * Fraction(3, 6), Fraction(3, 6) * Fraction(3, 6)
    assert folder.shooting().mean == pytest.approx(float(2 * shot), abs=1e-12)
    assert folder.melee().mean == pytest.approx(float(3 * melee), abs=1e-12)


@pytest.mark.server
def test_the_copied_folder_and_the_mechanism_file_are_served(mine):
    import urllib.request

    from serverkit import ServerProcess

    with ServerProcess(port=0, pool_size=0, timeout=120) as srv:
        with urllib.request.urlopen(srv.url, timeout=180) as resp:
            landing = resp.read().decode("utf-8")
        assert 'href="voila/render/my_changes.ipynb"' in landing and 'href="voila/render/my_melee.ipynb"' in landing
        assert str(mine) not in landing
        with urllib.request.urlopen(srv.url.rstrip("/") + "/voila/render/my_changes.ipynb?mode=melee&ws=13",
                                    timeout=180) as resp:
            page = resp.read().decode("utf-8")
        assert "application/vnd.jupyter.widget-view+json" in page
        assert "Traceback" not in page and '"output_type": "error"' not in page
        assert "40k Changes" in page  # the folder's first part names the page
    assert srv.proc.returncode == 0
