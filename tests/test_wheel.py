"""The package works anywhere: the built wheel carries the profiles, the
notebooks, the rule files and the Voila template; installed into a fresh
virtual environment outside the checkout, its ``dice-workbench`` command runs
from another folder and serves a dashboard page."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from wheelkit import REQUIREMENTS, ROOT, build_wheel, clean_env, make_venv, run

pytestmark = [pytest.mark.packaging, pytest.mark.slow, pytest.mark.xdist_group("wheel")]

DATA = {"profiles": "**/*.toml", "notebooks": "*.ipynb", "rules": "**/*.toml"}
TEMPLATE = ROOT / "workbench" / "voila"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> tuple[Path, Path]:
    """(the venv's bin folder, a working folder far from the checkout)."""
    venv = tmp_path_factory.mktemp("installed") / "venv"
    python = make_venv(venv, REQUIREMENTS / "run.txt", wheel)
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    return python.parent, elsewhere


def test_wheel_carries_the_data_folders_and_the_template(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = []
    for folder, pattern in DATA.items():
        files = sorted((ROOT / folder).glob(pattern))
        expected += [f"workbench/_data/{folder}/{p.relative_to(ROOT / folder).as_posix()}" for p in files]
    expected += [f"workbench/voila/{p.relative_to(TEMPLATE).as_posix()}" for p in TEMPLATE.rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts]
    assert len(expected) >= 6 + 5 + 4
    missing = [n for n in expected if n not in names]
    assert not missing, missing
    assert not [n for n in names if n.startswith(("tests/", "notebooks/", "profiles/", "rules/"))]
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "dice-workbench = workbench.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def cli(installed, *args: str) -> subprocess.CompletedProcess:
    bin_dir, elsewhere = installed
    return run([bin_dir / "dice-workbench", *args], cwd=elsewhere, env=clean_env(), timeout=300)


def test_installed_copy_is_not_the_checkout(installed):
    bin_dir, elsewhere = installed
    res = run([bin_dir / "python", "-c", "import workbench, workbench.resources as r; "
               "print(workbench.__file__); print(r.data_dir('profiles')); print(r.data_dir('notebooks'))"],
              cwd=elsewhere, env=clean_env())
    module, profiles, notebooks = res.stdout.split()
    site = Path(module).parent
    assert ROOT not in Path(module).parents
    assert Path(profiles) == site / "_data" / "profiles"
    assert Path(notebooks) == site / "_data" / "notebooks"


def test_installed_table(installed):
    res = cli(installed, "table")
    # RULES.md: a marine at a marine is 8/12 x 5/12 x 6/12 = 5/36; a Rever at a Rever 5/10 x 6/10 = 3/10
    assert re.search(r"^changes\s+Space Marine \(Boltgun\) at Space Marine\s+5/36\s", res.stdout, re.M)
    assert re.search(r"^antares\s+Rever \(Carbine\) at Rever\s+3/10\s", res.stdout, re.M)
    print(res.stdout)


def test_installed_explain_and_post(installed, tmp_path):
    res = cli(installed, "explain", "changes", "bs=4&shots=10")
    assert "9/12 × 5/12 × 6/12 = 5/32" in res.stdout
    print(res.stdout)
    out = tmp_path / "post.html"
    cli(installed, "post", "antares", "shots=5", "--format", "html", "--out", str(out))
    assert b"plotly" in out.read_bytes()


def test_installed_usage_error(installed):
    bin_dir, elsewhere = installed
    res = subprocess.run([bin_dir / "dice-workbench", "table", "--bogus"], cwd=elsewhere, env=clean_env(),
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert "unrecognized arguments: --bogus" in res.stderr


def fetch(url: str, timeout: float = 180) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode("utf-8", "replace")


@pytest.mark.server
def test_installed_serves_a_dashboard(installed):
    bin_dir, elsewhere = installed
    proc = subprocess.Popen([str(bin_dir / "dice-workbench"), "serve", "--port", "0", "--pool-size", "0"],
                            cwd=elsewhere, env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    lines: list[str] = []
    errors: list[str] = []
    threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True).start()
    threading.Thread(target=lambda: errors.extend(proc.stderr), daemon=True).start()
    try:
        deadline = time.monotonic() + 120
        url = None
        while url is None:
            found = [m.group(0) for ln in list(lines) for m in [re.search(r"http://127\.0\.0\.1:\d+/\S*", ln)] if m]
            if found:
                url = found[0]
                break
            assert proc.poll() is None, "the server exited:\n" + "".join(lines + errors)
            assert time.monotonic() < deadline, "the server did not start:\n" + "".join(errors[-40:])
            time.sleep(0.2)
        status, landing = fetch(url)
        assert status == 200
        pages = re.findall(r'href="([^"]*voila/render/[^"?]+\.ipynb)', landing)
        assert "voila/render/changes.ipynb" in " ".join(pages), landing[:2000]
        status, page = fetch(url.rstrip("/") + "/voila/render/changes.ipynb")
        assert status == 200
        assert "application/vnd.jupyter.widget-view+json" in page  # the notebook ran and drew its widgets
        assert "Traceback" not in page and "ModuleNotFoundError" not in page
        print(f"served {url} from {bin_dir.parent}: landing {len(landing)} bytes, "
              f"changes dashboard {len(page)} bytes")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # the server and the kernels it started
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(30)
