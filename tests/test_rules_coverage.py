"""docs/rules/coverage.md, the table of every dice rule of the seeds, against the code.

The page gives each sentence of the seeds that touches dice a row: modelled
(functions and pytest node ids), undefined, out of scope or missing. These
tests check that every function it names imports, every test it names is
collected by pytest, every row has a quote and an allowed status, and the
counts at the top equal the rows. The checks are plain functions of the
page's text, so a broken copy of the page can be fed to them (see
``test_the_checks_catch_a_broken_page``).

The last tests check four rules of the Changes turn that no other test
covered (Get up, Evade, a Tactical Charge in the remaining units phase, a
unit that acted does nothing more).
"""
from __future__ import annotations

import importlib
import re
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from workbench.turn import Battle, UnitSpec, Weapon, get_policy
from workbench.turn.policies import Policy
from workbench.turn.state import EVADING, FIGHTING, OCCUPIED, POSTPONED

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "rules" / "coverage.md"
STATUSES = ("modelled", "undefined", "out of scope", "missing")
SEEDS = {"C": "changes (000)", "F": "forgotten (002)", "G": "gunfire (003)", "A": "antares (004)"}
ROW = re.compile(r"^\|\s*([CFGA])-(\d+)\s*\|")
CODE = re.compile(r"`([^`]+)`")


# -- reading the page ----------------------------------------------------------
def rows(text: str) -> list[dict]:
    """Every rule row: id, quote, status, functions, tests, note."""
    out = []
    for line in text.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 6, f"{m.group(1)}-{m.group(2)}: expected 6 cells, got {len(cells)}: {line}"
        rid, quote, status, where, tested, note = cells
        out.append(dict(id=rid, seed=m.group(1), quote=quote, status=status,
                        functions=CODE.findall(where), tests=CODE.findall(tested), note=note,
                        where=where, tested=tested))
    return out


def counts(text: str) -> dict[str, dict[str, int]]:
    """The counts table at the top: {seed label: {status: n, "rows": n}}."""
    section = text.split("## Counts", 1)[1].split("\n## ", 1)[0]
    table = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[1].isdigit():
            table[cells[0]] = dict(zip(STATUSES + ("rows",), map(int, cells[1:])))
    return table


def resolve(path: str):
    """Import the longest module prefix of a dotted path, then getattr the rest."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


# -- the checks ---------------------------------------------------------------
def row_problems(text: str) -> list[str]:
    found, problems = rows(text), []
    seen = Counter(r["id"] for r in found)
    problems += [f"{i}: id used {n} times" for i, n in seen.items() if n > 1]
    for r in found:
        if not r["quote"].strip(' "“”'):
            problems.append(f"{r['id']}: no quote of the seed")
        if r["status"] not in STATUSES:
            problems.append(f"{r['id']}: status {r['status']!r} not one of {STATUSES}")
        elif r["status"] == "modelled":
            if not r["functions"] or not r["tests"]:
                problems.append(f"{r['id']}: modelled needs a function and a test")
        else:
            if not r["note"]:
                problems.append(f"{r['id']}: {r['status']} needs the reason")
            if r["functions"] or r["tests"]:
                problems.append(f"{r['id']}: {r['status']} names code or tests")
        if any(not t.startswith("tests/") or "::" not in t for t in r["tests"]):
            problems.append(f"{r['id']}: a test is not a node id tests/<file>.py::<name>: {r['tests']}")
        if any(not f.startswith("workbench.") for f in r["functions"]):
            problems.append(f"{r['id']}: a function is not a dotted workbench path: {r['functions']}")
    return problems


def count_problems(text: str) -> list[str]:
    found, table, problems = rows(text), counts(text), []
    expected = {label: dict.fromkeys(STATUSES + ("rows",), 0) for label in list(SEEDS.values()) + ["all"]}
    for r in found:
        for label in (SEEDS[r["seed"]], "all"):
            if r["status"] in STATUSES:
                expected[label][r["status"]] += 1
            expected[label]["rows"] += 1
    if set(table) != set(expected):
        problems.append(f"counts table has rows {sorted(table)}, expected {sorted(expected)}")
    for label, want in expected.items():
        if table.get(label) != want:
            problems.append(f"counts for {label}: the table says {table.get(label)}, the rows give {want}")
    # the summary's list of missing rows is the rows marked missing
    m = re.search(r"Rows\s+\*\*missing\*\*:([^.]*)\.", text)
    listed = set(re.findall(r"[CFGA]-\d+", m.group(1))) if m else set()
    actual = {r["id"] for r in found if r["status"] == "missing"}
    if listed != actual:
        problems.append(f"the summary lists missing rows {sorted(listed)}, the table has {sorted(actual)}")
    # and its list of rows against the seed is the rows whose note says so
    m = re.search(r"Rows \*\*against the seed\*\*:(.*?)Rows\s+\*\*missing", text, re.S)
    listed = set(re.findall(r"[CFGA]-\d+", m.group(1))) if m else set()
    actual = {r["id"] for r in found if "**against the seed**" in r["note"]}
    if listed != actual:
        problems.append(f"the summary lists rows against the seed {sorted(listed)}, the table has {sorted(actual)}")
    return problems


def function_problems(text: str) -> list[str]:
    problems = []
    for r in rows(text):
        for path in r["functions"]:
            try:
                resolve(path)
            except (ImportError, AttributeError) as exc:
                problems.append(f"{r['id']}: {path} does not exist ({exc})")
    return problems


def collected(files: set[str]) -> set[str]:
    """Node ids pytest collects from the files, parameters stripped."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           *sorted(files)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return {line.split("[", 1)[0] for line in proc.stdout.splitlines() if "::" in line}


def test_problems(text: str, ids: set[str]) -> list[str]:
    return [f"{r['id']}: {t} is not collected by pytest" for r in rows(text) for t in r["tests"] if t not in ids]


test_problems.__test__ = False  # a helper, not a test


# -- the tests -------------------------------------------------------------------
@pytest.fixture(scope="module")
def text() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_every_seed_has_rows_with_a_quote_and_an_allowed_status(text):
    found = rows(text)
    assert {r["seed"] for r in found} == set(SEEDS)
    assert len(found) > 100
    assert row_problems(text) == []


def test_the_counts_at_the_top_equal_the_rows(text):
    assert count_problems(text) == []


def test_every_function_named_exists(text):
    assert sum(len(r["functions"]) for r in rows(text)) > 100
    assert function_problems(text) == []


def test_every_test_named_is_collected(text):
    named = {t for r in rows(text) for t in r["tests"]}
    assert len(named) > 50
    ids = collected({t.split("::")[0] for t in named})
    assert test_problems(text, ids) == []


def test_the_checks_catch_a_broken_page(text):
    """Each check fails on a copy of the page with one thing broken."""
    row = next(line for line in text.splitlines() if line.startswith("| C-8 |"))
    # a function name broken
    bad = text.replace("`workbench.systems.changes.shooting` | `tests/test_changes.py::test_better_of",
                       "`workbench.systems.changes.shootin` | `tests/test_changes.py::test_better_of")
    assert bad != text and any("shootin does not exist" in p for p in function_problems(bad))
    # a test name broken
    ids = {t for r in rows(text) for t in r["tests"]}
    bad = text.replace("test_better_of_cover_and_invulnerable", "test_better_of_cover_and_invulnerabl")
    assert any("invulnerabl is not collected" in p for p in test_problems(bad, ids))
    # a status outside the list, an empty quote, a modelled row without a test
    assert any("status 'done'" in p for p in row_problems(text.replace(row, row.replace("| modelled |",
                                                                                        "| done |"))))
    cells = row.split("|")
    cells[2] = "  "
    assert any("no quote" in p for p in row_problems(text.replace(row, "|".join(cells))))
    cells = row.split("|")
    cells[5] = " "
    assert any("needs a function and a test" in p for p in row_problems(text.replace(row, "|".join(cells))))
    # a row whose status changes, so the counts no longer match
    assert count_problems(text.replace(row, row.replace("| modelled |", "| undefined |")))
    # a row against the seed that the summary does not list
    assert any("against the seed" in p for p in count_problems(text.replace(row, row[:-2] + "; **against the seed** |")))


# -- rules of the turn no other test checked -------------------------------------
BOLTER = Weapon("Boltgun", s=5, ap=5, shots=1, kind="light")


def marine(name, models=5, **kw):
    return UnitSpec(name=name, models=models, weapons=kw.pop("weapons", (BOLTER,)), **kw)


class _Nobody(Policy):
    """Declares no attack and does nothing in the remaining units phase."""

    name = "nobody"

    def targets(self, battle, side):
        return []

    def remaining(self, battle, unit, foes):
        return None


class _ChargeBack(_Nobody):
    """In the remaining units phase: a Tactical Charge at the first active unit."""

    def remaining(self, battle, unit, foes):
        return ("tactical_charge", foes[0]) if foes else None


def test_get_up_removes_the_go_to_ground_marker():
    """Seed: "Get up – remove the GO TO GROUND MARKER from a unit that has one"; its
    cover +2 against the unit's attackers goes with it."""
    b = Battle([marine("A1")], [marine("B1", gone_to_ground=True)])
    a1, b1 = b.unit("A", "A1"), b.unit("B", "B1")
    before = b.gun_tests(a1, BOLTER, "aimed", b1)[0].success
    assert b1.gone_to_ground
    b._act(np.random.default_rng(0), b1, a1, "get_up", [], set())
    assert not b1.gone_to_ground and b1.marker is None
    after = b.gun_tests(a1, BOLTER, "aimed", b1)[0].success
    assert (before, after) == (Fraction(6, 12), Fraction(8, 12))  # BS 5+ against cover +2: 7+; then 5+


@pytest.mark.parametrize("visible, marker", [(False, EVADING), (True, POSTPONED)])
def test_an_unseen_unit_left_out_evades(visible, marker):
    """Seed: "Evade 4” – if this unit is not within LINE OF SIGHT of any enemy units, you
    may move the unit up to 4” and place an EVADING marker"; a seen unit that did not
    attack is POSTPONED instead."""
    b = Battle([marine("A1", visible=visible)], [marine("B1")])
    b.turn("A", {"A": _Nobody(), "B": _Nobody()}, np.random.default_rng(0))
    assert b.unit("A", "A1").marker == marker


def test_a_tactical_charge_in_the_remaining_phase_ends_fighting():
    """Seed, remaining units phase step 4: "Place a FIGHTING marker next to every unit
    that has become LOCKED IN CLOSE COMBAT in this phase" (and the pair then fights in
    the late combats)."""
    b = Battle([marine("A1", a=0)], [marine("B1", a=0)], log=True)
    t = b.turn("A", {"A": _Nobody(), "B": _ChargeBack()}, np.random.default_rng(0))
    a1, b1 = b.unit("A", "A1"), b.unit("B", "B1")
    assert a1.marker == FIGHTING and b1.marker == FIGHTING
    assert b1 in a1.locked and t.fights == 1
    # without the charge nobody is locked and nobody fights
    b2 = Battle([marine("A1", a=0)], [marine("B1", a=0)])
    t2 = b2.turn("A", {"A": _Nobody(), "B": _Nobody()}, np.random.default_rng(0))
    assert t2.fights == 0 and b2.unit("B", "B1").marker is None



def test_a_unit_that_acted_does_nothing_more_this_turn():
    """Seed: "actions resolved, the units that performed them may not do anything in
    this turn anymore": with three enemy units left to shoot, the one active unit is
    declared once, is OCCUPIED after its phase, and fires no snap shot later."""
    b = Battle([marine("A1")], [marine("B1"), marine("B2"), marine("B3")], log=True)
    t = b.turn("A", {"A": get_policy("focus"), "B": _Nobody()}, np.random.default_rng(0))
    assert t.phases == 1 and t.declared_units == 1
    assert b.unit("A", "A1").status == OCCUPIED
    assert [e for e in t.events if e.startswith("A:A1 ")] == [e for e in t.events if e.startswith("A:A1 aimed")]
    assert len([e for e in t.events if e.startswith("A:A1 aimed")]) == 1
