"""Teaching export: explain(), Markdown and BBCode posts.

Reference numbers: RULES.md "Reference numbers" (changes 8/12 x 5/12 x 6/12
= 5/36; antares 5/10 x 6/10 = 3/10) and the gunfire seed examples (3 pens
of S1 on T2: 1 kill; 4 pens of S2 on T1: 4 kills). Table numbers are checked
against the pmf they print, parsed back from the text.
"""
from __future__ import annotations

import math

import numpy as np
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench import systems, teach
from workbench.errors import InputError
from workbench.systems import antares, changes, forgotten, gunfire


def marine(**kw):
    """RULES.md: space marine, S5+ AP5+ gun, aimed shot, at a space marine in the open (T +2, Sv +3)."""
    return changes.shooting(**{**dict(bs=5, s=5, ap=5, t=2, sv=3, action="aimed", shots=10), **kw})


def test_explain_changes_reference():
    o = marine()
    text = o.explain()
    assert text == teach.explain(o)
    assert "To hit: BS 5+ against cover +0 needs 5+ on a d12: goes on 8/12." in text
    assert re.search(r"To pierce: AP 5\+ against armour \+3 needs 8\+ on a d12: goes on 5/12\.", text)
    assert re.search(r"To wound: S 5\+ against T \+2 needs 7\+ on a d12: goes on 6/12\.", text)
    assert "Per shot: 8/12 × 5/12 × 6/12 = 5/36 (13.9 %)." in text
    p = 5 / 36
    assert f"With 10 shots: expected {10 * p:.2f} models removed" in text
    assert f"P(at least 1) = {100 * (1 - (1 - p) ** 10):.1f} %" in text


def test_explain_antares_reference():
    text = antares.shooting(acc=5, res=5, sv=1, shots=1).explain()
    assert re.search(r"To hit: Acc 5 needs 5 or less on a d10.*5/10", text)
    assert re.search(r"Res test failed: Res 5 \+ armour 0 \+ cover 0 − SV 1 needs 4 or less.*6/10\.", text)
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
    assert f"S (strength): {s}; T (toughness): {t}" in text
    branch = ("S at least T: each penetrating hit removes one model." if s >= t
              else "S below T: models removed = floor(penetrating hits x S / T), the remainder discarded.")
    assert f"- {branch}\n" in text


def every_outcome():
    """Every shooting system and the variants of each (every system, every variant)."""
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


#: computed once at collection (four tests take them; Outcomes are immutable)
EVERY_OUTCOME = tuple(every_outcome())


@pytest.mark.parametrize("o", EVERY_OUTCOME, ids=lambda o: f"{o.system}.{o.function}")
def test_explain_names_every_stage_and_the_product(o):
    text = o.explain()
    lines = text.splitlines()
    for stage in o.stages:
        name = stage.name[:1].upper() + stage.name[1:]
        line = next((ln for ln in lines if ln.startswith(name + ":")), None)
        assert line is not None, name
        # the stage's fraction is on its line (as counted on the die or reduced)
        fracs = [Fraction(int(a), int(b)) for a, b in re.findall(r"(\d+)/(\d+)", line)]
        assert stage.probability in fracs or (stage.probability in (0, 1) and str(stage.probability) in line), line
    per = shown_per_attack(o)
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
        assert teach.plain_note(o, note) in text
    for name in o.effects:
        assert o.effect_words(name) in text
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
    """(lines above the table, rows (N, exactly, at least), lines below) of a one-outcome post."""
    lines = md.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("| N"))
    assert re.fullmatch(r"\|(-+:\|)+", lines[start + 1].replace("---:", "-:")), lines[start + 1]
    rows = []
    end = start + 2
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        cells = [c.strip() for c in ln.strip("|").split("|")]
        assert len(cells) == 3
        rows.append((int(cells[0]), cells[1], cells[2]))
        end += 1
    return lines[:start], rows, lines[end:]


#: the tags a stock phpBB 3 board renders (its BBCode FAQ); [*] needs no closing tag
STOCK_PHPBB = {"b", "i", "u", "quote", "code", "list", "*", "url", "img", "color", "size"}


def bbcode_tags_balanced(text: str) -> list[str]:
    stack, seen = [], []
    for closing, tag in re.findall(r"\[(/?)([a-z]+|\*)(?:=[^\]]*)?\]", text):
        seen.append(tag)
        if tag == "*":
            assert not closing and stack and stack[-1] == "list", "[*] outside a [list]"
            continue
        if closing:
            assert stack and stack[-1] == tag, f"[/{tag}] closes {stack[-1:]}"
            stack.pop()
        else:
            stack.append(tag)
    assert not stack, f"unclosed {stack}"
    return seen


def code_block_rows(bb: str) -> list[list[str]]:
    """The rows of the aligned text table in the post's one [code] block (header, rule, rows),
    split on runs of two or more spaces."""
    blocks = re.findall(r"\[code\](.*?)\[/code\]", bb, flags=re.S)
    assert len(blocks) == 1, blocks
    lines = blocks[0].splitlines()
    assert set(lines[1].replace(" ", "")) == {"-"}  # the rule under the header
    return [re.split(r"\s{2,}", ln.strip()) for ln in [lines[0]] + lines[2:]]


def assert_table(o, rows):
    """rows: (N, P(exactly N), P(at least N)) for N = 0 .. max, checked against the pmf."""
    assert [int(r[0]) for r in rows] == list(range(o.pmf.size))
    for n, exactly, at_least in rows:
        n = int(n)
        assert_pct(exactly, o.pmf[n])
        if n == 0:
            assert at_least.startswith("100.0"), at_least  # P(at least 0) is certain
        else:  # the tail summed here, not at_least_curve
            assert_pct(at_least, min(1.0, math.fsum(o.pmf[n:])))


def shown_per_attack(o) -> Fraction | None:
    """The chance a per-attack line shows: the product of the stages, or where criticals skip stages
    (the product is then neither) the chance one attack scores at least one."""
    return o.per_attack if o.per_attack_any is None else o.per_attack_any


def product_of(line: str) -> Fraction:
    """The reduced per-attack product a line shows: '... = 5/36 (13.9 %)' -> 5/36."""
    return Fraction(re.findall(r"(?:[=:]|\*\*Per \w+:|\[b\]Per \w+:) (\d+(?:/\d+)?) \(", line)[-1])


@pytest.mark.parametrize("o", EVERY_OUTCOME, ids=lambda o: f"{o.system}.{o.function}")
def test_markdown_post_structure(o):
    md = o.to_markdown()
    assert md == teach.to_markdown(o)
    head, rows, tail = parse_markdown(md)
    # the first line is the matchup in one bold line
    assert head[0] == f"**{teach.matchup_line(o)}**"
    assert "\n" not in teach.matchup_line(o) and len(head[0]) < 300
    # the stage fractions, then the product, above the table
    above = "\n".join(head)
    for stage in o.stages:
        line = next(ln for ln in head if ln.startswith(f"- {stage.name[:1].upper()}{stage.name[1:]}:"))
        fracs = [Fraction(int(a), int(b)) for a, b in re.findall(r"(\d+)/(\d+)", line)]
        assert stage.probability in fracs or (stage.probability in (0, 1) and str(stage.probability) in line), line
    if o.per_attack is not None:
        per = next(ln for ln in head if ln.startswith("- **Per "))
        assert product_of(per) == shown_per_attack(o)
        assert head.index(per) > max(i for i, ln in enumerate(head) if ln.startswith("- ") and ln != per)
    assert f"expected {o.mean:.2f}" in above
    assert_table(o, rows)
    # every setting, in one line, comes last
    settings = [k for k in o.inputs if k not in ("method", "samples", "seed")]
    if settings:
        filled = [t for t in tail if t]
        if teach.dashboard_link(o) is not None:
            assert filled.pop().startswith("[See it on the dashboard](voila/render/")
        assert filled[-1].startswith("Settings: ")
        assert not any(ln.startswith("- bs:") for ln in head)
    short = teach.to_markdown(o, inputs=False)
    assert "Settings:" not in short and short.splitlines()[0] == head[0]
    for note in o.notes:
        assert teach.plain_note(o, note) in md


@pytest.mark.parametrize("o", EVERY_OUTCOME, ids=lambda o: f"{o.system}.{o.function}")
def test_bbcode_post_is_stock_phpbb_and_its_numbers_equal_the_pmf(o):
    bb = o.to_bbcode()
    assert bb == teach.to_bbcode(o)
    tags = bbcode_tags_balanced(bb)
    assert set(tags) <= STOCK_PHPBB, set(tags) - STOCK_PHPBB
    assert "[table]" not in bb and "[td]" not in bb
    lines = bb.splitlines()
    assert lines[0] == f"[b]{teach.matchup_line(o)}[/b]"
    table_at = next(i for i, ln in enumerate(lines) if ln.startswith("[code]"))
    for stage in o.stages:
        i = next(i for i, ln in enumerate(lines) if ln.startswith(f"[*]{stage.name[:1].upper()}{stage.name[1:]}:"))
        assert i < table_at
    if o.per_attack is not None:
        i = next(i for i, ln in enumerate(lines) if ln.startswith("[b]Per "))
        assert i < table_at and product_of(lines[i]) == shown_per_attack(o)
    rows = code_block_rows(bb)
    assert rows[0] == [f"N ({o.label})", "P(exactly N)", "P(at least N)"]
    assert_table(o, rows[1:])
    if teach.dashboard_link(o) is not None:
        last = lines.pop()
        assert last.startswith("[url=voila/render/") and last.endswith("]See it on the dashboard[/url]")
    if any(k not in ("method", "samples", "seed") for k in o.inputs):
        assert lines[-1].startswith("[size=85]Settings: ")


@pytest.mark.parametrize("o", [marine(), antares.shooting(acc=5, res=5, sv=1, shots=3)], ids=["changes", "antares"])
def test_bbcode_tables_switch_writes_a_table(o):
    bb = teach.to_bbcode(o, tables=True)
    tags = bbcode_tags_balanced(bb)
    assert tags.count("table") == 2 and "[code]" not in bb
    rows = re.findall(r"\[tr\](.*?)\[/tr\]", bb[bb.index("[table]"):])
    assert len(rows) == o.pmf.size + 1  # header + one row per N
    assert_table(o, [re.findall(r"\[td\](.*?)\[/td\]", r) for r in rows[1:]])


def test_matchup_line_reads_like_the_table_talk():
    o = marine()
    assert teach.matchup_line(o, ("Space Marine", "Boltgun", "Space Marines")) == (
        "Space Marine (BS 5+, Boltgun S 5+ AP 5+, 10 shots) at Space Marines (T +2, Sv +3) "
        "- 40k Changes, shooting, action: aimed")
    assert teach.matchup_line(marine(models=5, cover=1, go_to_ground=True)) == (
        "Firer (BS 5+, S 5+ AP 5+, 10 shots) at target (T +2, Sv +3, cover +1, 5 models) "
        "- 40k Changes, shooting, action: aimed, target gone to ground")
    assert teach.matchup_line(antares.shooting(acc=5, res=5, sv=1, shots=3), system=False) == (
        "Firer (Acc 5, SV 1, 3 shots) at target (Res 5) - shooting")
    assert teach.matchup_line(gunfire.shooting(bs=4, ev=3, ap=3, av=5, s=1, t=2, shots=10, models=5)) == (
        "Firer (BS 4, S 1 AP 3, 10 shots) at target (Ev 3, AV 5, T 2, 5 models) - Gunfire, shooting")
    assert teach.matchup_line(forgotten.shooting(shoot=6, attack_power=5, shots=3, armour="light")).startswith(
        "Firer (SHOOT 6+, ATTACK POWER 5, 3 shots) at target (light armour")
    with pytest.raises(InputError, match=r"^names: expected three names: \(firer, weapon, target\)"):
        teach.matchup_line(o, ("Space Marine", "Space Marines"))


def four_systems():
    """The compare page's four basic matchups (RULES.md reference numbers for changes and antares)."""
    return {"changes": marine(models=5),
            "forgotten": forgotten.shooting(shoot=6, attack_power=5, shots=10, armour="light", models=5),
            "gunfire": gunfire.shooting(bs=4, ev=3, ap=3, av=5, s=1, t=2, shots=10, models=5),
            "antares": antares.shooting(acc=5, res=5, sv=1, shots=10, models=5)}


NAMES = {"changes": "40k Changes", "forgotten": "The Forgotten", "gunfire": "Gunfire", "antares": "Antares-style d10"}


def test_compare_markdown_is_one_table_with_a_column_per_system():
    outs = four_systems()
    md = teach.to_markdown(outs)
    lines = md.splitlines()
    tables = [i for i, ln in enumerate(lines) if ln.startswith("|") and (i == 0 or not lines[i - 1].startswith("|"))]
    assert len(tables) == 1, "one table"
    start = tables[0]
    head = [c.strip() for c in lines[start].strip("|").split("|")]
    assert head == [""] + [NAMES[k] for k in outs]
    body = {}
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        cells = [c.strip() for c in ln.strip("|").split("|")]
        assert len(cells) == 5
        body[cells[0]] = cells[1:]
    # one matchup line per system above the table
    above = lines[:start]
    for k, o in outs.items():
        assert f"- **{NAMES[k]}**: {teach.matchup_line(o, system=False)}" in above
    # rows: expected removed, P(at least 1), per attack, the stages
    expected = next(v for r, v in body.items() if r.startswith("expected "))
    assert expected == [f"{o.mean:.2f}" for o in outs.values()]
    for cell, o in zip(body["P(at least 1)"], outs.values()):
        assert_pct(cell, o.at_least(1))
    assert [Fraction(c.split()[0]) for c in body["per shot"]] == [Fraction(5, 36), Fraction(1, 5),
                                                                  Fraction(3, 5) * Fraction(3, 10),
                                                                  Fraction(3, 10)]
    assert body["to hit"] == ["8/12", "5/10", "6/10", "5/10"]
    assert body["to pierce"] == ["5/12", "–", "–", "–"]
    assert body["Res test failed"] == ["–", "–", "–", "6/10"]
    assert len(teach.to_markdown(outs, inputs=False).splitlines()) < 40


def test_compare_bbcode_is_one_stock_code_table():
    outs = four_systems()
    bb = teach.to_bbcode(outs)
    assert set(bbcode_tags_balanced(bb)) <= STOCK_PHPBB and "[table]" not in bb
    rows = code_block_rows(bb)
    header = rows[0]
    assert header == [NAMES[k] for k in outs]  # the empty corner cell is stripped
    by_name = {r[0]: r[1:] for r in rows[1:]}
    assert by_name["to hit"] == ["8/12", "5/10", "6/10", "5/10"]
    assert all(len(r) == 4 for r in by_name.values())
    table = teach.to_bbcode(outs, tables=True)
    assert bbcode_tags_balanced(table).count("table") == 2
    assert table.count("[tr]") == len(rows)


def test_compare_post_rejects_a_mapping_of_non_outcomes():
    with pytest.raises(InputError, match=r"^outcome: expected a workbench Outcome or a mapping"):
        teach.to_markdown({"changes": [1.0]})


def test_markdown_of_the_reference_matches_a_binomial():
    """5/36 per shot, 10 shots (RULES.md): P(exactly N) = C(10, N) p^N (1-p)^(10-N)."""
    _head, rows, _tail = parse_markdown(marine().to_markdown())
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
    with pytest.raises(AssertionError):
        bbcode_tags_balanced("[*]item")


def test_teach_rejects_non_outcomes():
    with pytest.raises(InputError, match=r"^outcome: expected a workbench Outcome.*got 'dict'"):
        teach.explain({"pmf": [1.0]})
    with pytest.raises(InputError, match=r"^outcome: expected a workbench Outcome"):
        teach.to_bbcode(None)


def test_ratio_counts_faces():
    assert teach.ratio(Fraction(2, 3), "needs 5+ on a D12") == "8/12"
    assert teach.ratio(Fraction(1, 100), "needs a 1 on a d10 then another 1") == "1/100"
    assert teach.ratio(Fraction(5, 36)) == "5/36"


def test_compare_post_takes_names_per_column_and_can_leave_the_settings_out():
    outs = four_systems()
    names = {"changes": ("Space Marine", "Boltgun", "Space Marine"), "antares": ("Rever", "Carbine", "Rever")}
    md = teach.to_markdown(outs, names=names, inputs=False)
    assert "- **40k Changes**: Space Marine (BS 5+, Boltgun S 5+ AP 5+, 10 shots) at Space Marine (" in md
    assert "- **Antares-style d10**: Rever (Acc 5, Carbine SV 1, 10 shots) at Rever (" in md
    assert "- **Gunfire**: Firer (" in md  # no names given for it
    assert "Settings:" not in md and "Settings:" in teach.to_markdown(outs)
    bb = teach.to_bbcode(outs, names=names, inputs=False)
    assert "[*][b]40k Changes[/b]: Space Marine (BS 5+" in bb and "Settings:" not in bb
    with pytest.raises(InputError, match=r"^names: expected a mapping of the outcomes' names"):
        teach.to_markdown(outs, names=("a", "b", "c"))


# ---------------------------------------------------------------------------
# the words of a post are the dashboard's words
# ---------------------------------------------------------------------------
_CODE = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b|effects\[|\bTrue\b|\bFalse\b|\bNone\b|[=:] [<>] ")


def _texts(o):
    return {"explain": o.explain(), "markdown": teach.to_markdown(o), "bbcode": teach.to_bbcode(o)}


@pytest.mark.parametrize("o", EVERY_OUTCOME, ids=lambda o: f"{o.system}.{o.function}")
def test_posts_have_no_code_words(o):
    """No argument name (snake_case), effect key, Python value or a comparison
    after "=" ("P(x) = < 0.000001 %") reaches a forum reader; the dashboard
    link (its query keeps the link scheme's names) is left out of the check."""
    for kind, text in _texts(o).items():
        prose = re.sub(r"\(voila/render/[^)]*\)|\[url=[^\]]*\]", "", text)
        found = _CODE.findall(prose)
        assert not found, (kind, found)


def test_settings_read_as_the_dashboard_labels_them():
    """Seed 001: heavy weapons in a SHOT action fire at "BALLISTIC SKILL U+4":
    the default reading reads "BS +4"; a firer gone to ground is a yes/no."""
    o = changes.shooting(bs=6, s=5, ap=5, t=2, sv=3, shots=10, models=10)
    controls = {c.name: c for c in systems.get("changes").controls("shooting")}
    settings = next(ln for ln in teach.to_markdown(o).splitlines() if ln.startswith("Settings: "))
    assert "firer gone to ground: no;" in settings
    assert "heavy weapon in a SHOT action: BS +4;" in settings
    # every setting is "<the control's label>: ..." in the dashboard's order, separated by "; "
    parts = settings[len("Settings: "):].rstrip(".").split("; ")
    assert [p.split(": ")[0] for p in parts] == [controls[k].label for k in o.inputs
                                                 if k not in ("method", "samples", "seed")]
    explain = o.explain().splitlines()[1]
    assert explain.startswith("Inputs: BS (roll needed): 6; S (roll needed): 5;")
    flat = changes.shooting(bs=6, s=5, ap=5, weapon="heavy", action="shot", heavy_shot="flat_4")
    assert "heavy weapon in a SHOT action: a flat 4+" in flat.explain()


def test_dropdowns_and_posts_share_the_option_words():
    """A dropdown's options read as the post writes them (one source: the control's words)."""
    from workbench.ui.dashboard import make_control
    for key, fn, name, value, words in [("changes", "shooting", "heavy_shot", "bs_plus_4", "BS +4"),
                                        ("forgotten", "shooting", "kill_on", "above", "above ATTACK POWER"),
                                        ("forgotten", "shooting", "shock_rule", "seed",
                                         "a downed model, a non-damaging hit or 2 near misses")]:
        c = {c.name: c for c in systems.get(key).controls(fn)}[name]
        labels = dict((v, label) for label, v in make_control(c).options)
        assert labels[value] == words
        assert c.setting(value) == f"{c.label}: {words}"


def test_a_bound_is_not_written_after_an_equals_sign():
    """5 shots hitting on a natural 12 only: P(5 removed) = (1/12 x 5/12 x 6/12)^5 < 1e-8."""
    o = changes.shooting(bs=12, s=5, ap=5, t=2, sv=3, shots=5, models=5)
    p5 = (Fraction(1, 12) * Fraction(5, 12) * Fraction(6, 12)) ** 5
    assert p5 < Fraction(1, 10 ** 8) and o.exactly(5) == pytest.approx(float(p5), rel=1e-9)
    text = o.explain()
    assert "has P(exactly 5) < 0.000001 %." in text and "= <" not in text
    assert "P(the whole unit is destroyed) < 0.000001 %" in text


@pytest.mark.parametrize("o", [changes.shooting(bs=6, s=5, ap=5, heavy_shot="flat_4", weapon="heavy"),
                               changes.melee(ws=4, s=5, ap=5, attacks=3),
                               changes.volley([dict(bs=5, s=5, ap=5, shots=4), dict(bs=4, s=6, ap=4, shots=2)],
                                              t=2, sv=3, models=3),
                               forgotten.shooting(shoot=7, attack_power=4, kill_on="at_or_above", aimed="hit"),
                               gunfire.shooting(bs=5, ev=3, ap=3, av=3, s=1, t=1, shots=4)],
                         ids=["shooting", "melee", "volley", "forgotten", "gunfire"])
def test_a_post_ends_with_the_link_of_the_dashboard_that_shows_it(o):
    """The link's query, read as the command line and the dashboard read a
    link, gives back the same matchup (the same distribution)."""
    from workbench.cli import matchup_outcome
    link = teach.dashboard_link(o)
    assert link.startswith(f"voila/render/{o.system}.ipynb")
    query = link.partition("?")[2]
    again = matchup_outcome(o.system, query)
    assert again.function == o.function
    np.testing.assert_allclose(again.pmf, o.pmf, atol=1e-12)
    assert teach.to_markdown(o).rstrip().endswith(f"[See it on the dashboard]({link})")
    assert teach.to_bbcode(o).rstrip().endswith(f"[url={link}]See it on the dashboard[/url]")
    assert teach.dashboard_link(o, "https://host/x/").startswith("https://host/x/voila/render/")
