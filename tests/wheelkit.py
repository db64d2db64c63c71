"""Building the wheel and fresh virtual environments for the packaging tests.

uv (a test dependency) builds and installs: it keeps every wheel it fetched in
its cache, so a second fresh environment with the same lock file takes
seconds. Environments are made OUTSIDE the checkout, without the system's
site-packages, and commands run there without PYTHONPATH, so that nothing
of the checkout can be imported by accident.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "requirements"
UV = [sys.executable, "-m", "uv"]


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a command in a fresh venv: no PYTHONPATH, no active venv."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "WORKBENCH_PROFILES", "PORT")}
    env.update(extra)
    return env


def run(cmd: list[str], timeout: float = 600, **kw) -> subprocess.CompletedProcess:
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)
    if res.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} exited {res.returncode}:\n{res.stdout}\n{res.stderr}")
    return res


def build_wheel(out: Path, *options: str) -> Path:
    """Build the sdist, then the wheel from the unpacked sdist (as an index
    would), into ``out``; returns the wheel (the sdist is beside it).
    ``options``: more options of ``uv build``."""
    run([*UV, "build", "--out-dir", out, *options, ROOT], cwd=out)
    wheels = sorted(out.glob("dice_workbench-*.whl"))
    assert len(wheels) == 1, list(out.iterdir())
    return wheels[0]


def make_venv(path: Path, *requirements: str | Path, constraints: str | Path | None = None) -> Path:
    """A fresh venv at ``path`` (outside the checkout, no system site-packages)
    with ``requirements`` (``-r`` lock files and wheel paths) installed; returns its python.
    ``constraints``: a lock file that only pins the versions of what the
    requirements pull in (``-c``: a wheel without extras at the locked versions)."""
    assert ROOT not in path.resolve().parents, path
    run([*UV, "venv", "--quiet", "--python", sys.executable, path], cwd=path.parent)
    python = path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    args: list[str] = []
    for r in requirements:
        if str(r).endswith(".txt"):
            args += ["-r", str(r)]
        else:
            args.append(str(r))
    if constraints is not None:
        args += ["-c", str(constraints)]
    run([*UV, "pip", "install", "--quiet", "--python", python, *args], cwd=path.parent)
    return python
