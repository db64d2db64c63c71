"""The markers that keep `make test-fast` fast: registered, named by the
Makefile, and enforced by the harness that starts servers and browsers."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import serverkit

ROOT = Path(__file__).resolve().parents[1]
SLOW_BY_NATURE = {"browser", "server", "notebook", "packaging"}


def test_the_slow_markers_are_registered_and_test_fast_leaves_them_out():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    registered = {m.split(":", 1)[0] for m in config["markers"]}
    assert SLOW_BY_NATURE <= registered and "--strict-markers" in config["addopts"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    fast = re.search(r"^FAST := (.*)$", makefile, re.M).group(1)
    assert set(re.findall(r"not (\w+)", fast)) == SLOW_BY_NATURE and " or " not in fast
    recipe = re.search(r"^test-fast:.*\n\t(.*)$", makefile, re.M).group(1)
    assert '-m "$(FAST)"' in recipe


def test_a_server_in_a_test_without_the_server_marker_is_refused():
    # this test is not marked: the harness says so before any process starts
    with pytest.raises(RuntimeError, match=r"not marked 'server'.*pytest\.mark\.server"):
        serverkit.ServerProcess(port=0)


def test_every_browser_test_module_is_marked_server():
    # a module of tests/browser starts (or shares) a live server in every test
    for path in sorted((ROOT / "tests" / "browser").glob("test_*.py")):
        head = re.search(r"^pytestmark = (.*)$", path.read_text(encoding="utf-8"), re.M)
        assert head and "pytest.mark.server" in head.group(1), path.name
