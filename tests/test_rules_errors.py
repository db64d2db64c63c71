"""Broken rule files: the error names the file, the field, what is allowed,
what was found and the line; nothing in a file can run code or read files."""
from __future__ import annotations

import builtins
import os
import sys

import pytest

from workbench import rules
from workbench.rules import RuleFileError
from workbench.rules.expr import MAX_LITERAL

GOOD = """\
[system]
key = "errgame"
name = "Error game"
die = 6

[stats.bs]
min = 2
max = 6
default = 4

[stats.kind_of_cover]
options = { none = 0, heavy = 2 }
default = "none"

[attack]
count = "3"

[[stages]]
name = "hit"
target = "bs"

[[stages]]
name = "wound"
target = "4"

[removal]
models = "5"
"""


def _error(text: str) -> RuleFileError:
    with pytest.raises(RuleFileError) as exc:
        rules.loads(text, "game.toml")
    assert str(exc.value).startswith("game.toml")
    assert isinstance(exc.value, ValueError)
    return exc.value


def test_the_good_file_loads():
    assert rules.loads(GOOD).attack().pmf.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("old, new, field, marker, words", [
    ('target = "4"', 'target = "bs / 2"', "stages[1].target", 'target = "bs / 2"', "'/'"),
    ('target = "4"', 'target = "hp + 1"', "stages[1].target", 'target = "hp', "a stat name"),
    ('target = "4"', 'target = "bss"', "stages[1].target", 'target = "bss"', "did you mean 'bs'"),
    ("max = 6", "max = 1", "stats.bs.max", "max = 1", "at least min"),
    ("default = 4", "default = 9", "stats.bs.default", "default = 9", "from 2 to 6"),
    ("die = 6", "die = 1", "system.die", "die = 1", "from 2 to 100"),
    ("die = 6", 'die = "6"', "system.die", 'die = "6"', "whole number"),
    ('key = "errgame"', 'key = "Err Game"', "system.key", "key = ", "lower-case identifier"),
    ('default = "none"', 'default = "light"', "stats.kind_of_cover.default", 'default = "light"', 'one of "none", "heavy"'),
    ('count = "3"', "count = 2.5", "attack.count", "count = 2.5", "expression"),
    ('models = "5"', 'models = "5"\nspill = "yes"', "removal.spill", "spill", "true or false"),
    ('models = "5"', 'models = "5"\nremoved = "successes"\ndamage = "2"', "removal.damage", "damage =", "pooled"),
    ('models = "5"', 'damage_roll = "d0"', "removal.damage_roll", "damage_roll", "dice notation"),
    ('models = "5"', 'damage_roll = "3 dice"', "removal.damage_roll", "damage_roll", "dice notation"),
    ('models = "5"', 'damage = "1"\ndamage_roll = "d3"', "removal.damage_roll", "damage_roll", "either"),
    ('name = "hit"', 'name = "hit"\nroll = "under"', "stages[0].roll", "roll =", '"high", "low"'),
    ('name = "hit"', 'name = "hit"\nalways_fail = [1]\ncritical = [1]', "stages[0].critical", "critical =",
     "always_fail"),
    ('name = "hit"', 'name = "hit"\nalways_fail = [2]\nalways_succeed = [2]', "stages[0].always_succeed",
     "always_succeed =", "always_fail"),
    ('name = "hit"', 'name = "hit"\ncritical = [0]', "stages[0].critical[0]", "critical =", "face from 1 to 6"),
    ('name = "hit"', 'name = "hit"\ndie = 4\ncritical = [6]', "stages[0].critical[0]", "critical =",
     "face from 1 to 4"),
    ('name = "hit"', 'name = "hit"\ncritical = [6]\npasses_on = "fail"', "stages[0].critical", "critical =",
     "passes_on"),
    ('name = "hit"', 'name = "hit"\non_critical = "explode"', "stages[0].on_critical", "on_critical =",
     "skip_next"),
    ('name = "hit"', 'name = "hit"\nreroll = "sixes"', "stages[0].reroll", "reroll =", '"ones"'),
    ('name = "hit"', 'name = "hit"\ntaget = "3"', "stages[0].taget", "taget =", "one of the keys"),
    ('name = "wound"', 'name = "hit"', "stages[1].name", 'name = "hit"', "used once"),
    ("die = 6", 'die = 6\nnotes = [{ text = "x", when = "hp > 1" }]', "system.notes[0].when", "notes =",
     "a stat name"),
    ("die = 6", 'die = 6\nnotes = ["a", { text = "x", when = 2.5 }]', "system.notes[1].when", "notes =",
     "expression"),
    ("die = 6", 'die = 6\nnotes = [{ text = "x", when = "bs / 2" }]', "system.notes[0].when", "notes =", "'/'"),
    ("die = 6", 'die = 6\nnotes = [{ text = "x" }]', "system.notes[0].when", "notes =", "required"),
    ("die = 6", 'die = 6\nnotes = [{ text = "x", when = "bs", if = "1" }]', "system.notes[0].if", "notes =",
     "one of the keys text, when"),
    ("die = 6", 'die = 6\nnotes = [3]', "system.notes[0]", "notes =", "a string or a { text, when } table"),
    ("[stats.bs]", "[stats.max]", "stats.max", "[stats.max]", "not a Python keyword"),
    ("[stats.bs]", "[stats.class]", "stats.class", "[stats.class]", "not a Python keyword"),
])
def test_bad_fields_name_file_field_allowed_found_and_line(old, new, field, marker, words):
    text = GOOD.replace(old, new, 1)
    assert text != GOOD
    line = [i for i, t in enumerate(text.splitlines(), 1) if t.startswith(marker)][-1]
    err = _error(text)
    assert err.field == field, str(err)
    assert err.line == line, str(err)
    assert words in str(err) and f"line {line}" in str(err)


def test_toml_syntax_errors_carry_tomls_line():
    err = _error(GOOD.replace('name = "hit"', 'name = "hit'))
    assert err.field == "TOML" and err.line == 19


def test_missing_parts():
    err = _error(GOOD.split("[[stages]]")[0])
    assert err.field == "stages"
    err = _error(GOOD.replace('[system]\nkey = "errgame"\n', "[system]\n"))
    assert err.field == "system.key" and "required" in str(err) and err.line == 1
    err = _error(GOOD.replace('target = "bs"\n', ""))
    assert err.field == "stages[0].target" and err.line == 18


def test_unreadable_and_non_utf8_files(tmp_path):
    with pytest.raises(RuleFileError, match="readable"):
        rules.load(tmp_path / "missing.toml")
    p = tmp_path / "latin.toml"
    p.write_bytes(GOOD.replace("Error game", "Err\xe9").encode("latin-1"))
    with pytest.raises(RuleFileError, match="UTF-8"):
        rules.load(p)


@pytest.mark.parametrize("expr, words", [
    ("__import__('os').system('echo hi')", "min, max or abs"),
    ("open('/etc/passwd')", "min, max or abs"),
    ("bs.__class__", "attribute access"),
    ("(lambda: 1)()", "min, max or abs"),
    ("f'{bs}'", "f-string"),
    ("bs ** 2", "'**'"),
    ("bs / 2", "'/'"),
    ("bs % 2", "'%'"),
    ("[1][0]", "subscript"),
    ("'4'", "string"),
    ("True", "write 1 or 0"),
    ("1.5", "only integers"),
    ("+bs", "unary '+'"),
    ("bs if bs else x", "a stat name"),
    ("globals()", "min, max or abs"),
    ("min(bs)", "two or more"),
    ("abs(bs, 2)", "one argument"),
    ("max(*[1, 2])", "plain arguments"),
    ("bs := 3", "Python syntax"),
    (str(MAX_LITERAL + 1), "integers up to"),
    ("1" * 400, "integers up to"),
    ("bs + " * 150 + "1", "characters"),
    ("min(" * 40 + "1" + ", 1)" * 40, "levels of nesting"),
    ("-" * 60 + "1", "levels of nesting"),
    ("bs +", "Python syntax"),
    ("", "an expression"),
])
def test_expressions_outside_the_whitelist_are_refused_at_load(expr, words, monkeypatch):
    """Nothing in a rule file reaches eval, exec, open or an import, and compile
    is only ever asked for a syntax tree (what ast.parse does)."""
    import ast

    real_compile, real_import = builtins.compile, builtins.__import__

    def trap(*args, **kwargs):
        raise AssertionError("a rule file reached a builtin it must never call")

    def tree_only(source, filename, mode, flags=0, *args, **kwargs):
        assert flags & ast.PyCF_ONLY_AST, "compile() asked for code, not a syntax tree"
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    def no_new_modules(name, globals=None, locals=None, fromlist=(), level=0):
        # only modules already loaded (no new module, no os.system behind an import)
        assert level > 0 or name in sys.modules or name.startswith("workbench."), name
        return real_import(name, globals, locals, fromlist, level)

    text = GOOD.replace('target = "4"', "target = '''" + expr + "'''")
    for name in ("eval", "exec", "open"):
        monkeypatch.setattr(builtins, name, trap)
    monkeypatch.setattr(builtins, "compile", tree_only)
    monkeypatch.setattr(builtins, "__import__", no_new_modules)
    monkeypatch.setattr(os, "system", trap)
    try:
        with pytest.raises(RuleFileError) as exc:
            rules.loads(text, "game.toml")
    finally:
        monkeypatch.undo()
    err = exc.value
    line = [i for i, t in enumerate(text.splitlines(), 1) if t.startswith("target = '''")][0]
    assert err.field == "stages[1].target" and err.line == line, str(err)
    assert words in str(err), str(err)


def test_huge_values_at_resolution_are_refused_not_overflowed():
    text = GOOD.replace('target = "4"', 'target = "' + " * ".join(["999999"] * 4) + '"')
    sysm = rules.loads(text, "game.toml")
    with pytest.raises(ValueError, match="values up to"):
        sysm.attack()


def test_too_many_attacks_or_unit_states_are_refused_with_the_field():
    from workbench.errors import InputError
    sysm = rules.loads(GOOD.replace('count = "3"', 'count = "100000"'), "game.toml")
    with pytest.raises(InputError) as exc:
        sysm.attack()
    assert exc.value.field == "attack.count"
    sysm = rules.loads(GOOD.replace('models = "5"', 'models = "-1"'), "game.toml")
    with pytest.raises(InputError) as exc:
        sysm.attack()
    assert exc.value.field == "removal.models" and "-1" in str(exc.value)
    sysm = rules.loads(GOOD.replace('models = "5"', 'wounds = "0"'), "game.toml")
    with pytest.raises(InputError) as exc:
        sysm.attack()
    assert exc.value.field == "removal.wounds"
    sysm = rules.loads(GOOD.replace('models = "5"', 'removed = "successes - 2"'), "game.toml")
    with pytest.raises(InputError) as exc:
        sysm.attack()
    assert exc.value.field == "removal.removed"
