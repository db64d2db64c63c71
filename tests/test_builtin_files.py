"""A built-in system's own rule file, shipped in rules/, is that system (not a
second entry, not a broken one); the same key in a designer's folder is
refused; a copy of the file under a new key is a new system everywhere."""
from __future__ import annotations

from pathlib import Path

import pytest

from workbench import systems

SHIPPED = Path(__file__).resolve().parents[1] / "rules"


def _with_key(name: str, key: str) -> str:
    text = (SHIPPED / name).read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.startswith("key = "))
    return text.replace(old, f'key = "{key}"', 1)


@pytest.fixture()
def folders(tmp_path, monkeypatch):
    """A shipped folder holding a file keyed "antares", and a designer's folder."""
    shipped, mine = tmp_path / "shipped", tmp_path / "mine"
    shipped.mkdir()
    mine.mkdir()
    (shipped / "antares.toml").write_text(_with_key("antares.toml", "antares"), encoding="utf-8")
    monkeypatch.setattr(systems, "CHECKOUT_RULES", shipped)
    monkeypatch.setenv(systems.RULES_ENV, str(mine))
    return shipped, mine


def test_a_shipped_file_with_a_builtin_key_is_that_builtin(folders):
    assert systems.keys().count("antares") == 1
    assert systems.broken() == ()
    assert systems.get("antares").module.__name__ == "workbench.systems.antares"


def test_a_designers_file_with_a_builtin_key_is_refused(folders):
    _, mine = folders
    (mine / "antares.toml").write_text(_with_key("antares.toml", "antares"), encoding="utf-8")
    (bad,) = systems.broken()
    assert bad.key == "antares" and bad.path == mine / "antares.toml"
    assert "expected a key no other system uses" in bad.message and "a built-in system" in bad.message
    assert systems.keys().count("antares") == 1


def test_a_copy_of_a_builtin_file_under_a_new_key_is_a_new_system(folders):
    _, mine = folders
    text = _with_key("antares.toml", "my_antares").replace("default = 5", "default = 7", 1)
    (mine / "my_antares.toml").write_text(text, encoding="utf-8")
    assert "my_antares" in systems.keys() and systems.broken() == ()
    desc = systems.get("my_antares")
    assert desc.key == "my_antares" and desc.path == mine / "my_antares.toml"
    # the edit shows: the first stat's default is now 7 (Acc 7 hits on 7 or under: 7/10)
    assert desc.attack().stages[0].probability == systems.get("antares").shooting(acc=7, res=5, sv=1).stages[0].probability
