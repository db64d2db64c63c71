"""``python -m workbench``: the four-system comparison table, run as a user would."""
from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from workbench import systems

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def table() -> str:
    res = run("table")
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    return res.stdout


def summary_row(text: str, system: str) -> list[str]:
    for line in text.splitlines():
        if line.startswith(system + " "):
            return re.split(r"\s{2,}", line.strip())
    raise AssertionError(f"no row for {system}:\n{text}")


def test_table_lists_every_system(table):
    for key in systems.BUILTINS:
        row = summary_row(table, key)
        assert len(row) == 6, row  # system, matchup, per shot, %, E[1], E[10]
        assert row[2] != "n/a"


def test_changes_reference_row(table):
    # RULES.md: space marine, S5+ AP5+ gun, aimed shot, at a space marine in the open: 8/12 x 5/12 x 6/12 = 5/36
    row = summary_row(table, "changes")
    assert row[1] == "Space Marine (Boltgun) at Space Marine"
    assert row[2] == "5/36" and row[3] == "13.9%"
    assert float(row[4]) == pytest.approx(5 / 36, abs=5e-4)
    assert float(row[5]) == pytest.approx(10 * 5 / 36, abs=5e-4)
    for frac in ("8/12", "5/12", "6/12"):  # RULES.md writes them as faces out of the D12
        assert re.search(rf"^\s+to \w+\s+{re.escape(frac)}\s", table, re.M)


def test_antares_reference_row(table):
    # RULES.md: Rever Acc 5 shoots Rever Res 5, SV 1, no armour or cover: 5/10 x 6/10 = 3/10
    row = summary_row(table, "antares")
    assert row[1] == "Rever (Carbine) at Rever"
    assert row[2] == "3/10" and row[3] == "30.0%"
    assert float(row[5]) == pytest.approx(3.0, abs=5e-4)


def test_expected_removals_are_shots_times_per_shot(table):
    # every basic matchup is one model per success, uncapped: E[10 shots] = 10 x per shot
    for key in systems.BUILTINS:
        row = summary_row(table, key)
        p = Fraction(row[2])
        assert float(row[4]) == pytest.approx(float(p), abs=5e-4)
        assert float(row[5]) == pytest.approx(10 * float(p), abs=5e-4)


def test_no_argument_prints_the_table(table):
    res = run()
    assert res.returncode == 0, res.stderr
    assert res.stdout == table


def test_unknown_command():
    res = run("frobnicate")
    assert res.returncode == 2
    assert "unknown command 'frobnicate'" in res.stderr
    assert "table" in res.stderr and "serve" in res.stderr


def test_help():
    res = run("--help")
    assert res.returncode == 0
    assert res.stdout.startswith("usage: python -m workbench")
