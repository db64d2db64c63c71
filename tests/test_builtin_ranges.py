"""The built-ins' stat-level functions refuse what their rule files refuse: every whole-number
argument that is a stat of the function's file is checked against that stat's range, read from
the file, one past either end naming the argument and the file's range."""
from __future__ import annotations

import inspect

import pytest

from workbench.errors import InputError
from workbench.systems import antares, changes, forgotten, gunfire, ownfile

#: (function, its rule file: key and part, the smallest valid call, the context a stat needs to be read)
CASES = [
    (changes.shooting, ("changes", None), dict(bs=5, s=5, ap=5), {}),
    (changes.shooting_table, ("changes", None), dict(bs=5, s=5, ap=5), {}),
    (changes.melee, ("changes", "melee"), dict(ws=5, s=5, ap=5), {}),
    (gunfire.shooting, ("gunfire", None), dict(bs=4, ev=3, ap=3, av=3, s=1, t=1), {}),
    (gunfire.shooting_table, ("gunfire", None), dict(bs=4, ev=3, ap=3, av=3, s=1, t=1), {}),
    (antares.shooting, ("antares", None), dict(acc=5, res=5), {}),
    (forgotten.shooting, ("forgotten", "shooting"), dict(shoot=6, attack_power=5),
     dict.fromkeys(("damage", "defence"), dict(damage_rule="v1", damage=3, defence=3))),
    (forgotten.close_combat, ("forgotten", "close_combat"), dict(attacker_cqc=6, defender_cqc=6, attacker_phys=5,
                                                                 defender_phys=5),
     dict.fromkeys([f"{side}_{k}" for side in ("attacker", "defender") for k in ("damage", "strength", "defence")],
                   dict(damage_rule="v1", attacker_damage=3, attacker_strength=3, defender_defence=3))),
]


def _int_stats(function, key, part):
    rs = ownfile.load(key, part)
    names = {s.name: s for s in rs.stats if s.kind == "int"}
    return [names[p] for p in inspect.signature(function).parameters if p in names]


@pytest.mark.parametrize("function, where, call, context", CASES, ids=lambda x: getattr(x, "__qualname__", None))
def test_each_whole_number_argument_is_refused_past_its_files_range(function, where, call, context):
    stats = _int_stats(function, *where)
    assert stats, "the function takes some whole-number stat of its file"
    for stat in stats:
        for bad in (stat.min - 1, stat.max + 1):
            kw = {**call, **context.get(stat.name, {}), stat.name: bad}
            with pytest.raises(InputError) as info:
                function(**kw)
            assert info.value.field == stat.name, (stat.name, bad, str(info.value))
            assert f"from {stat.min} to {stat.max}" in info.value.expected, (stat.name, bad, str(info.value))
