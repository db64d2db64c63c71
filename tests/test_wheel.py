"""The package works anywhere: the built wheel carries the profiles, the
notebooks, the rule files and the Voila template; installed into a fresh
virtual environment outside the checkout, its ``dice-workbench`` command runs
from another folder and serves a dashboard page."""
from __future__ import annotations

import email
import json
import os
import re
import signal
import subprocess
import sys
import tarfile
import threading
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from wheelkit import REQUIREMENTS, ROOT, build_wheel, clean_env, make_venv, run

pytestmark = [pytest.mark.packaging, pytest.mark.slow, pytest.mark.xdist_group("wheel")]

DATA = {"profiles": "**/*.toml", "notebooks": "*.ipynb", "rules": "**/*.toml", "deploy": "*.conf"}
TEMPLATE = ROOT / "workbench" / "voila"


@pytest.fixture(scope="module")
def wheel(built_wheel) -> Path:
    return built_wheel  # tests/conftest.py: built once for this module and test_packaging's floors


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


# -- what an index shows, and what the sdist carries ------------------------------------
def metadata(wheel: Path) -> email.message.Message:
    z = zipfile.ZipFile(wheel)
    return email.message_from_bytes(z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))))


def test_wheel_metadata_a_package_index_shows(wheel):
    meta = metadata(wheel)
    names = zipfile.ZipFile(wheel).namelist()
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    licence = next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
    text = zipfile.ZipFile(wheel).read(licence).decode()
    assert text.startswith("MIT License") and "The dice design workbench authors" in text
    assert meta["Author"] == "The dice design workbench authors"
    classifiers = meta.get_all("Classifier")
    assert "License :: OSI Approved :: MIT License" not in classifiers  # PEP 639: the expression says it
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3.11" in classifiers
    # only the Pythons the project runs on: requires-python and the tested 3.11 agree
    assert meta["Requires-Python"] == ">=3.11"
    # no invented project URL: an index page links nowhere that does not exist
    assert not meta.get_all("Project-URL") and not meta.get("Home-page")
    assert "workbench/py.typed" in names  # type checkers read the annotations of the installed package
    readme = meta.get_payload()
    assert readme.startswith("# Dice design workbench")
    relative = re.findall(r"\]\((?!https?://|#)([^)]+)\)", readme)
    assert not relative, f"links an index page cannot follow: {relative}"


def git_files() -> set[str]:
    """The files of the project: git's, or in an unpacked sdist, the folder's own."""
    if (ROOT / ".git").exists():
        return set(run(["git", "-C", ROOT, "ls-files"]).stdout.split())
    skip = {".venv", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis", "output"}
    return {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
            and not any(part.endswith(".egg-info") for part in p.parts)} - {"PKG-INFO", "setup.cfg"}


def sdist_files(sdist: Path) -> set[str]:
    with tarfile.open(sdist) as tar:
        names = [m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile()]
    return {n for n in names if n not in ("PKG-INFO", "setup.cfg") and ".egg-info/" not in n}


def test_sdist_is_the_whole_project(wheel):
    """The sdist ships every file of the project (tests with their helpers,
    docs, benchmarks, lock files, Makefile), and nothing else; only the CI
    entry point and git's files stay out."""
    sdist = next(wheel.parent.glob("dice_workbench-*.tar.gz"))
    shipped = sdist_files(sdist)
    expected = {f for f in git_files() if not f.startswith(".ci/") and f not in (".gitignore",)}
    assert expected - shipped == set(), "missing from the sdist"
    assert shipped - expected == set(), "in the sdist but not in the project"
    assert {"LICENSE", "Makefile", "docs/rules.md", "tests/wheelkit.py", "tests/fuzzkit.py"} <= shipped


# Every import of a shipped test module finds its module: installed (the
# test extra) or shipped beside it (a helper such as wheelkit or browserkit).
IMPORTS_CHECK = r"""
import ast, importlib.util, json, sys
from pathlib import Path
root = Path(sys.argv[1])
missing = []
for path in sorted((root / "tests").rglob("*.py")):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or importlib.util.find_spec(top) is not None:
                continue
            if any((folder / f"{top}.py").is_file() or (folder / top).is_dir()
                   for folder in (path.parent, root / "tests")):
                continue
            missing.append(f"{path.relative_to(root)}: {name}")
print(json.dumps(missing))
"""


def test_the_tests_the_sdist_ships_find_their_helpers(wheel, tmp_path):
    sdist = next(wheel.parent.glob("dice_workbench-*.tar.gz"))
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path, filter="data")
    unpacked = next(tmp_path.iterdir())
    assert len(list((unpacked / "tests").rglob("test_*.py"))) >= 38
    # in a folder of its own, so that nothing of the checkout is importable by accident
    res = run([sys.executable, "-I", "-c", IMPORTS_CHECK, unpacked], cwd=tmp_path)
    assert json.loads(res.stdout) == []


# -- the deploy command from the wheel ---------------------------------------------------
def test_installed_deploy_writes_the_nginx_configuration(installed, tmp_path):
    res = cli(installed, "deploy", "--listen", "8080", "--base-url", "/dice/", "--server", "127.0.0.1:8866",
              "--server", "127.0.0.1:8867", "--run-dir", str(tmp_path / "nginx"))
    conf = (tmp_path / "nginx" / "nginx.conf").read_text(encoding="utf-8")
    assert "server 127.0.0.1:8866;" in conf and "server 127.0.0.1:8867;" in conf
    assert "listen 8080;" in conf and "location /dice/" in conf
    assert not re.search(r"@[A-Z_]+@", conf)  # every field of the template filled in
    assert f"nginx -p {tmp_path / 'nginx'}" in res.stdout
    bin_dir, _ = installed
    res = run([bin_dir / "python", "-m", "workbench.deploy", "--server", "127.0.0.1:8866", "--run-dir",
               str(tmp_path / "again")], cwd=tmp_path, env=clean_env())
    again = (tmp_path / "again" / "nginx.conf").read_text(encoding="utf-8")
    assert "server 127.0.0.1:8866;" in again and "8867" not in again and "location / {" in again


# -- a base install (no extras) builds the dashboards -----------------------------------
BASE_CHECK = r"""
import importlib.util, sys
from workbench import systems
from workbench.ui import CompareDashboard, SystemDashboard
import ipywidgets as W

def tree(widget, seen=None):
    seen = set() if seen is None else seen
    if isinstance(widget, W.Widget) and id(widget) not in seen:
        seen.add(id(widget))
        for child in getattr(widget, "children", ()):
            tree(child, seen)
    return seen

for key in systems.keys():
    d = SystemDashboard(key)
    print(key, len(tree(d.widget)))
print("compare", len(tree(CompareDashboard().widget)))
server = [m for m in ("voila", "jupyter_server", "tornado", "ipykernel") if importlib.util.find_spec(m)]
print("server-modules", ",".join(server) or "none")
"""


def test_a_base_install_builds_the_dashboards(wheel, tmp_path):
    """The wheel without extras, at the locked versions: every system's
    dashboard and the compare page build their widget trees, with none of
    the dashboard server's packages installed."""
    python = make_venv(tmp_path / "base", wheel, constraints=REQUIREMENTS / "run.txt")
    res = run([python, "-c", BASE_CHECK], cwd=tmp_path, env=clean_env(), timeout=300)
    lines = dict(line.rsplit(" ", 1) for line in res.stdout.splitlines())
    assert lines.pop("server-modules") == "none"
    from workbench import systems
    assert set(lines) == set(systems.keys()) | {"compare"}
    assert all(int(n) > 10 for n in lines.values()), lines  # controls, plot, numbers, forum panel
    assert "Traceback" not in res.stderr


# -- the build backend: the floor and the newest release build the same files -----------
@pytest.mark.parametrize("setuptools", ["77.0.3", "84.2.1"])
def test_setuptools_floor_and_newest_build_the_same_wheel(wheel, tmp_path, setuptools):
    """The floor of ``[build-system] requires`` (77: PEP 639 licence fields)
    and a release past the old cap of 81 build the same files."""
    constraint = tmp_path / "build-constraint.txt"
    constraint.write_text(f"setuptools=={setuptools}\n")
    other = build_wheel(tmp_path, "--build-constraint", str(constraint))
    generator = zipfile.ZipFile(other).read("dice_workbench-0.1.0.dist-info/WHEEL").decode()
    assert f"Generator: setuptools ({setuptools})" in generator
    strip = lambda names: {n for n in names if not n.endswith((".dist-info/WHEEL", ".dist-info/RECORD"))}
    assert strip(zipfile.ZipFile(other).namelist()) == strip(zipfile.ZipFile(wheel).namelist())
    assert sdist_files(next(tmp_path.glob("*.tar.gz"))) == sdist_files(next(wheel.parent.glob("*.tar.gz")))
