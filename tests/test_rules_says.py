"""A stage's ``says`` (docs/rulefiles.md, "A stage in your own words"): the file's own words
before the engine's, on every path that shows a stage, and refused with field and line when broken."""
from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from brute_rules import to_toml
from test_rules_hypothesis import stages_strategy
from workbench import rules
from workbench.errors import InputError

DOC = Path(__file__).resolve().parents[1] / "docs" / "rulefiles.md"

HEAD = """
[system]
key = "sayso"
name = "Says so"
die = 12

[stats.bs]
min = 1
max = 13
default = 5

[stats.cover]
min = -12
max = 12
default = 0

[stats.weapon]
options = { light = 0, heavy = 1 }
default = "light"

[stats.action]
options = { snap = 0, shot = 1, aimed = 2 }
default = "aimed"

[stats.shots]
min = 0
max = 100
default = 3

[attack]
count = "shots"

[removal]
damage = "1"

[view]
trial = "shot"
"""


def _documented_stage() -> str:
    """The [[stages]] example of the section "A stage in your own words", as the page writes it."""
    section = DOC.read_text().split("### A stage in your own words", 1)[1]
    return section.split("```toml\n", 1)[1].split("```", 1)[0]


def _file(stage: str) -> rules.RuleSystem:
    return rules.loads(HEAD + "\n" + stage, "sayso.toml")


def _brute(target: int) -> Fraction:
    return Fraction(sum(1 for face in range(1, 13) if face >= target), 12)


@pytest.mark.parametrize("bs,cover,weapon,action", list(itertools.product(
    (2, 4, 9), (-1, 0, 3), ("light", "heavy"), ("shot", "aimed"))))
def test_the_documented_example_reads_as_the_page_says_and_counts_as_a_brute_force(bs, cover, weapon, action):
    rs = _file(_documented_stage())
    o = rs.attack(bs=bs, cover=cover, weapon=weapon, action=action)
    heavy = weapon == "heavy" and action == "shot"
    target = bs + (4 if heavy else 0) + cover
    p = _brute(target)
    (stage,) = o.stages
    assert stage.probability == p
    said = f"BS {bs}+" + (" +4 (heavy weapon, shot action)" if heavy else "") + f" against cover {cover:+d} "
    assert stage.detail.startswith(said), stage.detail
    assert stage.detail.endswith(f"{p.numerator * 12 // p.denominator}/12"), stage.detail
    assert f"To hit: {said}" in o.explain()


def test_the_page_quotes_the_example_it_shows():
    rs = _file(_documented_stage())
    text = rs.attack(bs=4, cover=0, weapon="heavy", action="shot").explain()
    assert "To hit: BS 4+ +4 (heavy weapon, shot action) against cover +0 needs 8+ on a d12: goes on 5/12" in text
    assert "To hit: BS 4+ +4 (heavy weapon, shot action) against cover +0 needs 8+ on a d12: goes on 5/12" in \
        DOC.read_text().replace("\n", " ")


def test_says_reaches_the_sampled_path_and_the_volley():
    stage = _documented_stage()
    rs = _file(stage + '\n[volley]\nprofile = ["bs", "shots"]\n')
    sampled = rs.attack(bs=3, cover=1, method="sampled", samples=2_000, seed=1)
    assert sampled.stages[0].detail.startswith("BS 3+ against cover +1 ")
    same = rs.volley([{"bs": 3}, {"bs": 3, "shots": 5}], cover=1)
    assert same.stages[0].detail.startswith("BS 3+ against cover +1 ")
    differ = rs.volley([{"bs": 3}, {"bs": 6}], cover=1)
    assert differ.stages == ()   # two profiles' own words: no one stage speaks for both


def test_stages_at_are_the_stages_attack_shows_on_either_path():
    rs = _file(_documented_stage())
    for stats in ({"bs": 4, "weapon": "heavy", "action": "shot"}, {"bs": 9, "cover": -1}):
        exact, sampled = rs.attack(**stats), rs.attack(method="sampled", samples=500, seed=2, **stats)
        assert rs.stages_at(**stats) == exact.stages == sampled.stages
    assert rs.stages_at(bs=4, weapon="heavy", action="shot")[0].detail.startswith(
        "BS 4+ +4 (heavy weapon, shot action) against cover +0 needs 8+ on a d12")


def test_the_trial_word_of_the_view_names_an_attack():
    o = _file(_documented_stage()).attack(shots=4)
    text = o.explain()
    assert "Per shot:" in text and "With 4 shots:" in text and "Per attack" not in text


def test_braces_and_a_plain_string():
    o = _file('[[stages]]\nname = "to hit"\ntarget = "bs"\nsays = "{{BS}} {bs + 1}"\n').attack(bs=4)
    assert o.stages[0].detail.startswith("{BS} 5 needs 4+ on a d12")


@pytest.mark.parametrize("says,field,expected", [
    ('"BS {bs+}"', "stages[0].says", "an expression in {bs+}"),
    ('"BS {nope}"', "stages[0].says", "a stat name"),
    ('"BS { bs"', "stages[0].says", "text whose braces hold an expression"),
    ("3", "stages[0].says", "a string, or a list of 1 to 16"),
    ("[]", "stages[0].says", "a string, or a list of 1 to 16"),
    ('["a", { text = "b", when = "zz" }]', "stages[0].says[1].when", "a stat name"),
    ('["a", { text = "b", where = "bs" }]', "stages[0].says[1].where", "one of the keys text, when"),
    ('["a", { text = "{bs:+" }]', "stages[0].says[1].text", "text whose braces hold an expression"),
    ('["a", 5]', "stages[0].says[1]", "a string or a { text, when } table"),
])
def test_a_broken_says_names_its_field_and_line(says, field, expected):
    text = HEAD + f'\n[[stages]]\nname = "to hit"\ntarget = "bs"\nsays = {says}\n'
    with pytest.raises(rules.RuleFileError) as err:
        rules.loads(text, "sayso.toml")
    assert err.value.field == field and expected in str(err.value)
    assert err.value.line == text.splitlines().index(f"says = {says}") + 1


def test_stages_at_says_one_attacks_stages_as_an_outcome_does():
    rs = _file(_documented_stage())
    kw = dict(bs=4, cover=2, weapon="heavy", action="shot")
    assert rs.stages_at(**kw) == rs.attack(**kw, shots=7).stages
    assert rs.stages_at(**kw)[0].detail.startswith("BS 4+ +4 (heavy weapon, shot action) against cover +2 needs 10+")
    with pytest.raises(InputError) as err:   # the stats are checked as for a resolution
        rs.stages_at(bs=99)
    assert err.value.field == "bs" and "from 1 to 13" in str(err.value) and "99" in str(err.value)


# ---------------------------------------------------------------------------
# random files (hypothesis): says changes no number, and says what its placeholders hold
# ---------------------------------------------------------------------------
STATS = {"k": {"min": -5, "max": 5, "default": 0}, "flag": {"kind": "bool", "default": False}}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stages=stages_strategy(), count=st.integers(0, 3), k=st.integers(-5, 5), flag=st.booleans(),
       a=st.integers(-3, 3), data=st.data())
def test_random_files_with_says_keep_their_numbers_and_say_what_their_placeholders_hold(stages, count, k, flag, a,
                                                                                          data):
    says = []
    for i in range(len(stages)):
        piece = data.draw(st.sampled_from(["plain", "signed", "sum", "when"]))
        says.append({"plain": f"s{i} k {{k}}", "signed": f"s{i} {{k:+}}", "sum": f"s{i} {{k * {a} + flag}}",
                     "when": [f"s{i}", {"text": "flag {flag}", "when": "flag"}]}[piece])
    die = stages[0]["die"]
    plain = rules.loads(to_toml(stages, count, {"damage": 1}, stats=STATS, die=die), "plain.toml")
    said = rules.loads(to_toml(stages, count, {"damage": 1}, stats=STATS, die=die,
                               stage_extra=[{"says": s} for s in says]), "said.toml")
    for method in ("exact", "sampled"):
        p = plain.attack(k=k, flag=flag, method=method, samples=500, seed=3)
        s = said.attack(k=k, flag=flag, method=method, samples=500, seed=3)
        assert np.array_equal(p.pmf, s.pmf) and dict(p.effects) == dict(s.effects)
        assert len(p.stages) == len(s.stages)
        for i, (ps, ss) in enumerate(zip(p.stages, s.stages)):
            assert ss.detail == f"{_expected(says[i], i, k, flag, a)} {ps.detail}"
            assert ss.probability == ps.probability


def _expected(says, i: int, k: int, flag: bool, a: int) -> str:
    """What a random file's ``says`` reads at ``k`` and ``flag``, written out by hand."""
    if isinstance(says, list):
        return f"s{i}" + (f" flag {int(flag)}" if flag else "")
    return (says.replace("{k}", str(k)).replace("{k:+}", f"{k:+d}")
            .replace(f"{{k * {a} + flag}}", str(k * a + int(flag))))
