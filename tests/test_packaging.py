"""Dependencies and files around the package: the lock files agree with
pyproject.toml and with each other, `make run` installs no test tool, the
declared floors install and work (the floors job), psutil is a test tool only,
and JupyterLab from `make lab` saves notebooks without outputs."""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from wheelkit import REQUIREMENTS, ROOT, clean_env, make_venv, run

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
TEST_TOOLS = ("pytest", "pytest-timeout", "hypothesis", "icepool", "playwright", "uv")


def pins(lock: str) -> dict[str, str]:
    """name -> version of a uv lock file (a name pinned per Python version keeps its first pin)."""
    out: dict[str, str] = {}
    for line in (REQUIREMENTS / lock).read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if m:
            out.setdefault(canonicalize_name(m.group(1)), m.group(2))
    return out


def declared(*extras: str) -> list[Requirement]:
    reqs = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    for extra in extras:
        reqs += [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"][extra]]
    return reqs


def floor(req: Requirement) -> str:
    lows = [s.version for s in req.specifier if s.operator in (">=", "==")]
    assert len(lows) == 1, f"{req}: one floor expected"
    return lows[0]


# -- declared versions -------------------------------------------------------------
def test_every_dependency_has_a_floor_and_an_upper_bound():
    for req in declared(*PYPROJECT["project"]["optional-dependencies"]):
        ops = {s.operator for s in req.specifier}
        assert ">=" in ops and "<" in ops, f"{req}: a floor and an upper bound expected"


@pytest.mark.parametrize("name,lowest", [
    ("plotly", "6.1.1"),      # anywidget FigureWidgets, and what kaleido 1.x needs
    ("kaleido", "1.0"),
    ("icepool", "2.0"),       # a test needs icepool 2
    ("ipywidgets", "8.1"),
    ("voila", "0.5.8"),       # serve wraps VoilaKernelWebsocketHandler, first shipped in 0.5.8
])
def test_floors_that_matter(name, lowest):
    req = next(r for r in declared(*PYPROJECT["project"]["optional-dependencies"]) if r.name == name)
    assert Version(floor(req)) == Version(lowest)


def test_voila_is_held_to_the_minor_series_serve_relies_on():
    req = next(r for r in declared("dashboard") if r.name == "voila")
    assert str(req.specifier) in (">=0.5.8,<0.6", "<0.6,>=0.5.8")


def test_psutil_is_a_test_tool_only():
    runtime = {r.name for r in declared("dashboard")}
    assert "psutil" not in runtime
    assert "psutil" in {r.name for r in declared("test")}
    # importing the server module does not import psutil (only its test harness does, lazily)
    res = run([sys.executable, "-c", "import sys, workbench.serve, workbench.cli; "
               "print('psutil' in sys.modules, 'pytest' in sys.modules)"], env={**os.environ})
    assert res.stdout.split() == ["False", "False"]


# -- lock files ------------------------------------------------------------------------
def test_locks_satisfy_pyproject():
    for lock, extras in (("run.txt", ("dashboard",)), ("lab.txt", ("dashboard", "lab")),
                         ("test.txt", ("dashboard", "lab", "test"))):
        pinned = pins(lock)
        for req in declared(*extras):
            name = canonicalize_name(req.name)
            assert name in pinned, f"{lock} does not pin {req.name}"
            assert req.specifier.contains(pinned[name], prereleases=True), f"{lock}: {name}=={pinned[name]} vs {req}"


def test_make_run_and_ci_install_the_same_versions():
    run_pins, lab_pins, test_pins = pins("run.txt"), pins("lab.txt"), pins("test.txt")
    for name, version in run_pins.items():
        assert lab_pins.get(name) == version, name
        assert test_pins.get(name) == version, name


def test_make_run_installs_no_test_tool():
    run_pins = pins("run.txt")
    assert not [t for t in TEST_TOOLS if canonicalize_name(t) in run_pins]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    run_rule = re.search(r"^run: *(.*)$", makefile, re.M).group(1).split()
    setup_rule = re.search(r"^setup: *(.*)$", makefile, re.M).group(1).split()
    assert run_rule == ["setup"] and setup_rule == ["$(RUN_STAMP)"]
    stamp = re.search(r"^\$\(RUN_STAMP\):.*?\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert "-r requirements/run.txt" in stamp and "test.txt" not in stamp and "lab.txt" not in stamp


def test_floors_lock_pins_the_declared_floors():
    floors = pins("floors.txt")
    for req in declared("dashboard"):
        assert Version(floors[canonicalize_name(req.name)]) == Version(floor(req)), req


# -- the floors job ---------------------------------------------------------------------
FLOORS_CHECK = """
import importlib.metadata as md, sys
from fractions import Fraction
from workbench.systems import changes, antares
from workbench import compare, serve
o = changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=10, models=5)
assert o.per_attack == Fraction(8, 12) * Fraction(5, 12) * Fraction(6, 12), o.per_attack
assert antares.shooting(acc=5, res=5, sv=1, shots=1).per_attack == Fraction(3, 10)
df = compare.sweep("changes", "shooting", bs=[3, 4, 5], s=5, ap=5, t=2, sv=3, progress=False)
assert len(df) == 3
import workbench.dashboard_server  # the Voila internals the server relies on exist at the floor
import workbench.ui, plotly.graph_objects as go
go.FigureWidget()  # live figures are anywidgets at the plotly floor
print(" ".join(f"{n}=={md.version(n)}" for n in sys.argv[1:]))
"""


@pytest.mark.packaging
@pytest.mark.slow
def test_floors_install_and_resolve(tmp_path, built_wheel):
    """Install the declared floors (requirements/floors.txt, `uv pip compile
    --resolution lowest-direct`) into a fresh venv with the wheel, then resolve there."""
    python = make_venv(tmp_path / "floors", REQUIREMENTS / "floors.txt", built_wheel)
    names = [r.name for r in declared("dashboard")]
    res = run([python, "-c", FLOORS_CHECK, *names], cwd=tmp_path, env=clean_env(), timeout=300)
    installed = dict(item.split("==") for item in res.stdout.split())
    for req in declared("dashboard"):
        assert Version(installed[req.name]) == Version(floor(req)), f"{req.name} {installed[req.name]} is not its floor"
    print("floors:", res.stdout.strip())


# -- notebooks saved from `make lab` lose their outputs ---------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_lab_target_uses_the_committed_config():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^lab:.*\n\t(.*)$", makefile, re.M).group(1)
    assert 'JUPYTER_CONFIG_PATH="$(CURDIR)/jupyter' in recipe and "jupyter lab" in recipe
    assert (ROOT / "jupyter" / "jupyter_server_config.py").is_file()


@pytest.mark.server
def test_a_notebook_saved_through_jupyter_is_stripped(tmp_path):
    """A real Jupyter server with the config of `make lab` saves a notebook
    that has outputs; the file on disk has none (what tests/test_notebooks.py checks)."""
    pytest.importorskip("nbstripout", reason="nbstripout is in the lab extra, which make test installs")
    root, home = tmp_path / "root", tmp_path / "home"
    root.mkdir(), home.mkdir()
    port, token = free_port(), "saving-test"
    env = clean_env(JUPYTER_CONFIG_PATH=str(ROOT / "jupyter"), JUPYTER_CONFIG_DIR=str(home / "config"),
                    JUPYTER_DATA_DIR=str(home / "data"), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
                    PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "jupyter_server", f"--ServerApp.port={port}",
                             "--ServerApp.port_retries=0", "--ServerApp.open_browser=False",
                             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
                             "--allow-root"],  # CI runs as root
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                       "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}}}},
          "cells": [{"cell_type": "code", "id": "a1", "metadata": {"scrolled": True}, "execution_count": 7,
                     "source": "1 + 1",
                     "outputs": [{"output_type": "execute_result", "execution_count": 7, "metadata": {},
                                  "data": {"text/plain": "2"}}]},
                    {"cell_type": "markdown", "id": "b2", "metadata": {}, "source": "# kept"}]}
    body = json.dumps({"type": "notebook", "format": "json", "content": nb}).encode()
    url = f"http://127.0.0.1:{port}/api/contents/saved.ipynb"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                req = urllib.request.Request(url, data=body, method="PUT",
                                             headers={"Authorization": f"token {token}",
                                                      "Content-Type": "application/json"})
                with urllib.request.urlopen(req, timeout=30) as r:
                    assert r.status in (200, 201)
                break
            except (ConnectionError, urllib.error.URLError):
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, "the Jupyter server did not start"
                time.sleep(0.3)
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
    saved = json.loads((root / "saved.ipynb").read_text(encoding="utf-8"))
    code, text = saved["cells"]
    assert code["outputs"] == [] and code["execution_count"] is None
    joined = lambda src: "".join(src) if isinstance(src, list) else src  # nbformat may store lines
    assert joined(code["source"]) == "1 + 1" and code["id"] == "a1" and "scrolled" not in code["metadata"]
    assert joined(text["source"]) == "# kept"
    assert "widgets" not in saved["metadata"]
    assert saved["metadata"]["kernelspec"]["name"] == "python3"
