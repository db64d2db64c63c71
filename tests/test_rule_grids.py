"""A rule file's granularity and equivalence grids come from its stats
(workbench.systems.grids): the distinct per-attack chances against brute force
(itertools over every face, Fractions), the budget's narrowing, files without
grids, and the equivalence search finding a built-in that rolls the same dice."""
from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from workbench import compare, rules
from workbench.errors import InputError
from workbench.systems import grids
from workbench.systems.description import describe_rules

D6 = range(1, 7)
D12 = range(1, 13)

HIT_AND_SAVE = """
[system]
key = "hitsave"
name = "Hit and save"
die = 6

[stats.bs]
min = 2
max = 6
default = 4

[stats.sv]
min = 2
max = 7
default = 5

[stats.shots]
min = 1
max = 10
default = 3

[stats.models]
optional = true
min = 1
max = 10
default = 5

[stats.wounds]
min = 1
max = 3
default = 2

[stats.stationary]
kind = "bool"
default = false

[attack]
count = "shots"

[[stages]]
name = "to hit"
target = "bs"
modifier = "stationary"

[[stages]]
name = "save"
target = "sv"
passes_on = "fail"

[removal]
models = "models"
wounds = "wounds"
"""


def _desc(text: str, key: str = "hitsave"):
    return describe_rules(rules.loads(text.replace('key = "hitsave"', f'key = "{key}"'), f"{key}.toml"), "#8172B3")


def test_the_granularity_of_a_rule_file_is_every_chance_its_dice_can_give():
    desc = _desc(HIT_AND_SAVE)
    g = compare.granularity(desc)
    # one attack at one wound, no unit size, the switch (stationary) off: to hit on bs+, the save fails below sv
    expected = {Fraction(sum(h >= bs and s < sv for h, s in product(D6, D6)), 36)
                for bs in range(2, 7) for sv in range(2, 8)}
    assert set(g.values) == expected
    assert all(isinstance(x, Fraction) for x in g.values)
    assert g.grid["shots"] == 1 and g.grid["models"] is None and g.grid["wounds"] == 1
    assert g.grid["bs"] == list(range(2, 7)) and g.grid["sv"] == list(range(2, 8))
    assert "stationary" not in g.grid, "a switch stays at its default"


def test_wide_ranges_are_narrowed_around_their_defaults_to_the_budget():
    text = HIT_AND_SAVE.replace("min = 2\nmax = 6\ndefault = 4", "min = -30\nmax = 30\ndefault = 20")
    text = text.replace("min = 2\nmax = 7\ndefault = 5", "min = 0\nmax = 400\ndefault = 3")
    text = text.replace('modifier = "stationary"', 'modifier = "stationary + aim"')
    text = text.replace("[attack]", "[stats.aim]\nmin = -2\nmax = 2\ndefault = 0\n\n[attack]")
    gran, search = grids.rule_grids(rules.loads(text, "wide.toml"))
    for grid, budget in ((gran, grids.GRANULARITY_CELLS), (search, grids.EQUIVALENCE_CELLS)):
        varied = {k: v for k, v in grid.items() if isinstance(v, list)}
        cells = 1
        for vals in varied.values():
            cells *= len(vals)
        assert cells <= budget
        for name, default in (("bs", 20), ("sv", 3), ("aim", 0)):
            vals = varied[name]
            assert default in vals and vals == list(range(vals[0], vals[-1] + 1)), name
        assert varied["aim"] == [-2, -1, 0, 1, 2], "the narrowest range is cut last"
        assert varied["bs"][-1] == 30 and varied["sv"][0] == 0, "a range is cut at its end farther from the default"


def test_a_file_whose_count_is_not_one_attack_has_no_grids():
    text = HIT_AND_SAVE.replace('count = "shots"', 'count = "shots + 1"')
    assert grids.rule_grids(rules.loads(text, "two.toml")) == (None, None)
    with pytest.raises(InputError, match="granularity grid"):
        compare.granularity(_desc(text, "twoshots"))


THREE_D12 = """
[system]
key = "three12"
name = "Three D12 tests"
die = 12

[stats.bs]
min = 1
max = 13
default = 5

[stats.ap]
min = 1
max = 13
default = 5

[stats.s]
min = 1
max = 13
default = 5

[stats.shots]
min = 1
max = 20
default = 4

[stats.models]
min = 1
max = 20
default = 4

[attack]
count = "shots"

[[stages]]
name = "to hit"
target = "bs"

[[stages]]
name = "to pierce"
target = "ap"

[[stages]]
name = "to wound"
target = "s"

[removal]
models = "models"
"""


def test_a_rule_file_rolling_the_changes_dice_finds_changes_at_distance_zero():
    desc = describe_rules(rules.loads(THREE_D12, "three12.toml"), "#8172B3")
    g = compare.granularity(desc)
    assert set(g.values) == {Fraction(a * b * c, 12 ** 3) for a, b, c in product(range(13), repeat=3)}
    matchup = dict(bs=5, ap=7, s=6, shots=4, models=4)
    found = compare.equivalent(desc, matchup, ["changes"])
    best = found.iloc[0]
    assert best["system"] == "changes" and best["tv_distance"] == 0.0
    assert (best["setting"]["bs"], best["setting"]["ap"], best["setting"]["s"]) == (5, 7, 6)


def test_the_granularity_figure_names_every_system_in_words():
    fig = compare.granularity_figure(["changes", "kill6"])
    from workbench import systems
    assert [t.name for t in fig.data] == [systems.get("changes").name, systems.get("kill6").name]
    assert "kill6" not in fig.data[1].hovertemplate
