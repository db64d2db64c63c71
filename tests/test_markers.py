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


def test_make_test_runs_every_part_and_fails_if_any_fails(tmp_path):
    """`make test` = ruff, then every test once: the slow ones (exactly the rest of the fast
    ones) on their own workers, grouped by what they share (--dist loadgroup), with mypy and
    the fast ones beside them (scripts/run-tests.sh); its status is bad when any part's is.
    The script runs here with a stand-in Python that records each call and exits as told."""
    import subprocess

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert recipe.index("-m ruff check .") < recipe.index("scripts/run-tests.sh")
    assert 'scripts/run-tests.sh "$(PY)" "$(TEST_LOGS)" "$(FAST)" "$(FAST_WORKERS)" "$(SLOW_WORKERS)"' in recipe
    fast = re.search(r"^FAST := (.*)$", makefile, re.M).group(1)
    calls = tmp_path / "calls.txt"
    python = tmp_path / "python"
    python.write_text("#!/usr/bin/env bash\n"
                      # one write per call: the three calls run at once
                      f"line=$(printf '%s|' \"$@\"); printf '%s\\n' \"$line\" >> {calls}\n"
                      'case "$*" in *mypy*) exit "$TYPED";; *"not ("*) exit "$SLOW";; *) exit "$FAST";; esac\n')
    python.chmod(0o755)
    for typed, fast_rc, slow in ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)):
        calls.write_text("")
        run = subprocess.run(["bash", str(ROOT / "scripts" / "run-tests.sh"), str(python), str(tmp_path / "logs"),
                              fast, "1", "2"], capture_output=True, text=True, timeout=60,
                             env={"PATH": "/usr/bin:/bin", "TYPED": str(typed), "FAST": str(fast_rc),
                                  "SLOW": str(slow)})
        assert (run.returncode == 0) == (typed == fast_rc == slow == 0), (typed, fast_rc, slow, run.stdout)
        made = sorted(line.rstrip("|").split("|") for line in calls.read_text().splitlines())
        assert made == sorted([["-m", "mypy"],
                               ["-m", "pytest", "-n", "1", "--dist", "loadgroup", "-m", fast],
                               ["-m", "pytest", "-n", "2", "--dist", "loadgroup", "-m", f"not ({fast})",
                                "--durations=15"]]), made
        assert f"mypy: exit {typed}; fast tests: exit {fast_rc}; slow tests" in run.stdout


def test_a_server_in_a_test_without_the_server_marker_is_refused():
    # this test is not marked: the harness says so before any process starts
    with pytest.raises(RuntimeError, match=r"not marked 'server'.*pytest\.mark\.server"):
        serverkit.ServerProcess(port=0)


def test_every_browser_test_module_is_marked_server_or_browser():
    # a module of tests/browser starts (or shares) a live server, or drives Chromium on a page
    # of its own: either way the quick run must leave it out
    for path in sorted((ROOT / "tests" / "browser").glob("test_*.py")):
        head = re.search(r"^pytestmark = (.*)$", path.read_text(encoding="utf-8"), re.M)
        assert head and ("pytest.mark.server" in head.group(1) or "pytest.mark.browser" in head.group(1)), path.name


def test_loadgroup_keeps_a_group_and_each_shared_server_in_one_worker(tmp_path):
    """With pytest 9 and pytest-xdist 3.8 an ``xdist_group`` is silently ignored
    unless tests/conftest.py carries xdist's group id over: six tests of one group
    must all run in one worker. And `make test`'s slow part on two workers: every
    test of the session's server (the fixture, or a module one of whose tests uses
    it, reached by ``getfixturevalue`` too) runs in one worker, each module
    starting its own server in one worker, and the other worker is not left idle."""
    import subprocess
    import sys

    here = Path(__file__).parent
    out = tmp_path / "workers.txt"
    record = (f"def record(what):\n"
              f"    with open({str(out)!r}, 'a') as f:\n"
              "        f.write(what + ' ' + os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n")
    (tmp_path / "conftest.py").write_text(
        "import importlib.util, os, pytest\n"
        f"spec = importlib.util.spec_from_file_location('shared_conftest', {str(here / 'conftest.py')!r})\n"
        "mod = importlib.util.module_from_spec(spec)\n"
        f"import sys; sys.path.insert(0, {str(here)!r})\n"
        "spec.loader.exec_module(mod)\n"
        "pytest_collection_modifyitems = mod.pytest_collection_modifyitems\n"
        + record +
        "@pytest.fixture(scope='session')\n"
        "def server():\n"
        "    record('session-start')\n"
        "    return 'srv'\n")
    for name in ("pages", "links"):
        (tmp_path / f"test_{name}.py").write_text(
            "import pytest\nfrom conftest import record\npytestmark = pytest.mark.server\n"
            "@pytest.mark.parametrize('i', range(3))\n"
            "def test_uses_it(server, i):\n    record('session')\n")
    (tmp_path / "test_mixed.py").write_text(  # as test_serving: one test names it, one reaches it by name
        "import pytest\nfrom conftest import record\npytestmark = pytest.mark.server\n"
        "def test_by_name(request):\n    request.getfixturevalue('server'); record('session')\n"
        "def test_named(server):\n    record('session')\n")
    for name in ("own_a", "own_b"):
        (tmp_path / f"test_{name}.py").write_text(
            "import pytest\nfrom conftest import record\npytestmark = pytest.mark.server\n"
            "@pytest.mark.parametrize('i', range(2))\n"
            f"def test_own(i):\n    record({name!r})\n")
    (tmp_path / "test_group.py").write_text(
        "import pytest\nfrom conftest import record\n"
        "@pytest.mark.xdist_group('one')\n"
        "@pytest.mark.parametrize('i', range(6))\n"
        "def test_in_group(i):\n    record('one')\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup",
                          "-p", "no:cacheprovider", "-o", "addopts=", str(tmp_path)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [ln.split() for ln in out.read_text().splitlines()]
    assert sum(what == "one" for what, _ in rows) == 6 and len({w for what, w in rows if what == "one"}) == 1, rows
    by_what: dict[str, set[str]] = {}
    for what, worker in rows:
        by_what.setdefault(what, set()).add(worker)
    assert sum(what == "session" for what, _ in rows) == 8 and len(by_what["session"]) == 1, rows
    assert sum(what == "session-start" for what, _ in rows) == 1, rows  # the session server started once
    assert len(by_what["own_a"]) == len(by_what["own_b"]) == 1, rows
    assert len({w for _, w in rows}) == 2, rows  # both workers had work
