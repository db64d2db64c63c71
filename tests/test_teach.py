"""Teaching export: explain(), Markdown and BBCode (issue 4).

Reference numbers: RULES.md "Reference numbers" (changes 8/12 x 5/12 x 6/12
= 5/36; antares 5/10 x 6/10 = 3/10) and the gunfire seed examples (3 pens
of S1 on T2: 1 kill; 4 pens of S2 on T1: 4 kills). Table numbers are checked
against the pmf they print, parsed back from the text.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench import teach
from workbench.errors import InputError
from workbench.systems import antares, changes, forgotten, gunfire


def marine(**kw):
    """RULES.md: space marine, S5+ AP5+ gun, aimed shot, at a space marine in the open (T +2, Sv +3)."""
    return changes.shooting(**{**dict(bs=5, s=5, ap=5, t=2, sv=3, action="aimed", shots=10), **kw})


def test_explain_changes_reference():
    o = marine()
    text = o.explain()
    assert text == teach.explain(o)
    assert "To hit: BS 5+ against cover +0 needs 5+ on a D12: 8/12." in text
    assert re.search(r"To pierce: AP 5\+ against armour \+3 needs 8\+.*: 5/12\.", text)
    assert re.search(r"To wound: S 5\+ against T \+2 needs 7\+.*: 6/12\.", text)
    assert "Per shot: 8/12 × 5/12 × 6/12 = 5/36 (13.9 %)." in text
    p = 5 / 36
    assert f"With 10 shots: expected {10 * p:.2f} models removed" in text
    assert f"P(at least 1) = {100 * (1 - (1 - p) ** 10):.1f} %" in text


def test_explain_antares_reference():
    text = antares.shooting(acc=5, res=5, sv=1, shots=1).explain()
    assert re.search(r"To hit: Acc 5: .*5/10", text)
    assert re.search(r"Target fails Res: .*6/10\.", text)
    assert "Per shot: 5/10 × 6/10 = 3/10 (30.0 %)." in text
    assert "With 1 shot: expected 0.30 models removed; P(at least 1) = 30.0 %." in text


@pytest.mark.parametrize("s, t, shots, kills", [(1, 2, 3, 1), (2, 1, 4, 4)])
def test_explain_gunfire_seed_examples(s, t, shots, kills):
    """Seed 003: "3 penetrating hits with their S1 rifles on a unit of T2 Knights ... kill one
    Knight"; "Knights ... 4 penetrating hits ... S2 ... T1 ... 4 dead guard". BS 10 against
    Ev 0 and AP 10 against AV 0 make every shot hit and penetrate (6 + 0 - 10 <= 1)."""
    text = gunfire.shooting(bs=10, ev=0, ap=10, av=0, s=s, t=t, shots=shots).explain()
    assert "Per shot: 10/10 × 10/10 = 1 (100.0 %)." in text
    assert f"expected {kills:.2f} models removed" in text
    assert f"P(exactly {kills}) = 100.0 %" in text
    assert f"S {s} against T {t}" in text


def every_outcome():
    """Every shooting system and the variants of each (issue 4: 'for every system and variant')."""
    yield marine(natural_12_always_succeeds=True, natural_1_always_fails=True, bs=1, s=12)
    yield marine(weapon="heavy", action="shot", shots=2, models=1)
    yield marine(go_to_ground=True, cover=1, inv=2, wounds=2, models=3)
    yield changes.melee(ws=5, s=5, ap=5, attacks=3, d=2, t=2, sv=3)
    yield forgotten.shooting(shoot=6, attack_power=5, shots=3, armour="light", cover=True)
    yield forgotten.shooting(shoot=6, attack_power=5, shots=2, heroic_save=7)
    yield forgotten.shooting(shoot=6, attack_power=5, damage_rule="v1", damage=3, defence=3)
    yield gunfire.shooting(bs=4, ev=3, ap=3, av=5, s=1, t=2, shots=5, models=5, die=6, base=4)
    yield gunfire.shooting(bs=4, ev=3, ap=3, av=5, s=3, t=1, shots=5, explosive=2,
                           natural_max_always_succeeds=True)
    yield antares.shooting(acc=0, res=12, sv=1, shots=3)
    yield antares.shooting(acc=5, res=5, sv=1, shots=3, critical_ignores_res=True, models=2)
    yield antares.shooting(acc=5, res=5, sv=1, shots=3, method="sampled", samples=2000, seed=3)
    # the other functions: several units at once, close combat, single tests, distances
    yield changes.volley([dict(bs=5, s=5, ap=5, shots=4), dict(bs=4, s=6, ap=4, shots=2)], t=2, sv=3,
                         models=3)
    yield forgotten.close_combat(attacker_cqc=6, defender_cqc=6, attacker_phys=6, defender_phys=6)
    yield antares.reaction(5)
    yield changes.leadership(5, 1)
    yield changes.charge_distance()


@pytest.mark.parametrize("o", list(every_outcome()), ids=lambda o: f"{o.system}.{o.function}")
def test_explain_names_every_stage_and_the_product(o):
    text = o.explain()
    lines = text.splitlines()
    for st in o.stages:
        name = st.name[:1].upper() + st.name[1:]
        line = next((ln for ln in lines if ln.startswith(name + ":")), None)
        assert line is not None, name
        # the stage's fraction is on its line (as counted on the die or reduced)
        fracs = [Fraction(int(a), int(b)) for a, b in re.findall(r"(\d+)/(\d+)", line)]
        assert st.probability in fracs or (st.probability in (0, 1) and str(st.probability) in line), line
    per = o.per_attack
    if per is None:  # no per-attack stages (a volley of several units, a distance)
        assert not [ln for ln in lines if ln.startswith("Per ")]
        assert f"expected {o.mean:.2f}" in text
        return
    per_line = next(ln for ln in lines if ln.startswith("Per "))
    shown = re.findall(r"[=:] (\d+(?:/\d+)?) \(", per_line)[-1]  # the reduced product
    assert Fraction(shown) == per
    assert f"({100 * float(per):.1f} %)" in per_line
    assert f"expected {o.mean:.2f}" in text
    for note in o.notes:
        assert note in text
    for name in o.effects:
        assert name.replace("_", " ") in text
    if o.method == "sampled":
        assert "Sampled: 2,000" in text


def pct_range(cell: str) -> tuple[float, float]:
    """The interval of percentages a table cell allows: "12.34 %" -> its
    rounding interval, "< 0.000001 %" -> (0, 0.000001), "> 99.999999 %" -> (99.999999, 100)."""
    text = cell.strip().removesuffix("%").strip()
    if text.startswith("<"):
        return 0.0, float(text[1:])
    if text.startswith(">"):
        return float(text[1:]), 100.0
    half = 0.5 * 10 ** -(len(text.split(".")[1]) if "." in text else 0)
    return float(text) - half - 1e-9, float(text) + half + 1e-9


def assert_pct(cell: str, p: float) -> None:
    lo, hi = pct_range(cell)
    assert lo <= 100 * p <= hi, (cell, 100 * p)
    text = cell.strip().removesuffix("%").strip()
    if 0 < p < 1 and text[0].isdigit():  # a possible, uncertain result never reads as impossible or certain
        assert float(text) not in (0.0, 100.0), (cell, p)


def parse_markdown(md: str):
    lines = md.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| N"))
    assert re.fullmatch(r"\|(-+:\|)+", lines[start + 1].replace("---:", "-:")), lines[start + 1]
    rows = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        cells = [c.strip() for c in ln.strip("|").split("|")]
        assert len(cells) == 3
        rows.append((int(cells[0]), cells[1], cells[2]))
    return lines[:start], rows


def bbcode_tags_balanced(text: str) -> list[str]:
    stack, seen = [], []
    for closing, tag in re.findall(r"\[(/?)([a-z]+)(?:=[^\]]*)?\]", text):
        seen.append(tag)
        if closing:
            assert stack and stack[-1] == tag, f"[/{tag}] closes {stack[-1:]}"
            stack.pop()
        else:
            stack.append(tag)
    assert not stack, f"unclosed {stack}"
    return seen


@pytest.mark.parametrize("o", list(every_outcome()), ids=lambda o: f"{o.system}.{o.function}")
def test_markdown_table_equals_the_pmf(o):
    md = o.to_markdown()
    assert md == teach.to_markdown(o)
    head, rows = parse_markdown(md)
    assert [r[0] for r in rows] == list(range(o.pmf.size))
    tail = np.cumsum(o.pmf[::-1])[::-1]
    for n, exactly, at_least in rows:
        assert_pct(exactly, o.pmf[n])
        assert_pct(at_least, min(1.0, tail[n]))
    # the inputs are listed above the table
    above = "\n".join(head)
    for k in o.inputs:
        if k not in ("method", "samples", "seed"):
            assert f"- {k}: " in above


@pytest.mark.parametrize("o", list(every_outcome()), ids=lambda o: f"{o.system}.{o.function}")
def test_bbcode_tags_match_and_numbers_equal_the_pmf(o):
    bb = o.to_bbcode()
    assert bb == teach.to_bbcode(o)
    tags = bbcode_tags_balanced(bb)
    assert tags.count("table") == 2
    body = bb[bb.index("[table]"):]
    rows = re.findall(r"\[tr\](.*?)\[/tr\]", body)
    assert len(rows) == o.pmf.size + 1  # header + one row per N
    tail = np.cumsum(o.pmf[::-1])[::-1]
    for n, row in enumerate(rows[1:]):
        cells = re.findall(r"\[td\](.*?)\[/td\]", row)
        assert int(cells[0]) == n
        assert_pct(cells[1], o.pmf[n])
        assert_pct(cells[2], min(1.0, tail[n]))
    above = bb[:bb.index("[table]")]
    for k in o.inputs:
        if k not in ("method", "samples", "seed"):
            assert f"\n{k}: " in above


def test_markdown_of_the_reference_matches_a_binomial():
    """5/36 per shot, 10 shots (RULES.md): P(exactly N) = C(10, N) p^N (1-p)^(10-N)."""
    _head, rows = parse_markdown(marine().to_markdown())
    p = 5 / 36
    for n, exactly, _ in rows:
        assert_pct(exactly, math.comb(10, n) * p ** n * (1 - p) ** (10 - n))
    assert rows[10][1] == "< 0.000001 %"  # (5/36)^10 = 2.7e-9: rare, not impossible


@pytest.mark.parametrize("p, text", [
    (0, "0.0 %"), (1, "100.0 %"), (Fraction(5, 36), "13.9 %"),
    (Fraction(1, 3125), "0.032 %"),          # (1/5)^5: five of five downed
    (1 - Fraction(1, 3125), "99.968 %"),
    (Fraction(1, 10 ** 12), "< 0.000001 %"), (1 - Fraction(1, 10 ** 12), "> 99.999999 %"),
])
def test_pct_never_rounds_a_possible_result_to_impossible_or_certain(p, text):
    assert teach.pct(p) == text


@given(st.floats(min_value=0.0, max_value=1.0), st.integers(min_value=0, max_value=3))
def test_pct_is_within_its_last_digit_and_never_falsely_0_or_100(p, digits):
    assert_pct(teach.pct(p, digits), p)


def test_bbcode_checker_catches_a_mismatch():
    with pytest.raises(AssertionError):
        bbcode_tags_balanced("[table][tr][td]1[/tr][/td][/table]")


def test_teach_rejects_non_outcomes():
    with pytest.raises(InputError, match=r"^outcome: expected a workbench Outcome.*got 'dict'"):
        teach.explain({"pmf": [1.0]})
    with pytest.raises(InputError, match=r"^outcome: expected a workbench Outcome"):
        teach.to_bbcode(None)


def test_ratio_counts_faces():
    assert teach.ratio(Fraction(2, 3), "needs 5+ on a D12") == "8/12"
    assert teach.ratio(Fraction(1, 100), "needs a 1 on a d10 then another 1") == "1/100"
    assert teach.ratio(Fraction(5, 36)) == "5/36"
