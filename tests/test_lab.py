"""What `make lab` and `make` do around the notebooks and the virtual
environment: the port and no-browser options of `make lab`, notebooks saved
after a run give back the committed file (no kernel name or language_info
left by the run), the rule editor's scratch copy goes when its kernel ends,
and a .venv made with a Python older than 3.11 stops make with one line
saying what to do."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CHECK = ROOT / "scripts" / "check-python.sh"


def lab_command(*assignments: str) -> str:
    res = subprocess.run(["make", "-n", "-s", "lab", *assignments], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, env={k: v for k, v in os.environ.items() if k not in ("PORT", "NO_BROWSER")})
    return next(line for line in res.stdout.splitlines() if "jupyter lab" in line)


def test_make_lab_takes_a_port_and_no_browser():
    plain = lab_command()
    assert "--ServerApp.port" not in plain and "--no-browser" not in plain
    chosen = lab_command("PORT=8897", "NO_BROWSER=1")
    assert "--ServerApp.port=8897 --ServerApp.port_retries=0" in chosen and "--no-browser" in chosen


# -- saving a notebook after a run -----------------------------------------------------
def pre_save_hook():
    """The hook jupyter/jupyter_server_config.py installs (read as Jupyter reads it)."""
    config = type("Config", (), {})()
    config.ContentsManager = type("CM", (), {})()
    scope = {"get_config": lambda: config}
    exec((ROOT / "jupyter" / "jupyter_server_config.py").read_text(encoding="utf-8"), scope)
    return config.ContentsManager.pre_save_hook


@pytest.mark.parametrize("name", ["changes.ipynb", "rule_editor.ipynb"])
def test_a_notebook_run_and_saved_is_the_committed_file(name):
    pytest.importorskip("nbstripout", reason="nbstripout is in the lab extra, which make test installs")
    committed = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
    run = json.loads(json.dumps(committed))
    # what a run in JupyterLab leaves in the model (ipykernel's kernel name and language_info)
    run["metadata"]["kernelspec"]["display_name"] = "Python 3 (ipykernel)"
    run["metadata"]["language_info"] = {"codemirror_mode": {"name": "ipython", "version": 3},
                                        "file_extension": ".py", "mimetype": "text/x-python", "name": "python",
                                        "nbconvert_exporter": "python", "pygments_lexer": "ipython3",
                                        "version": "3.11.2"}
    for cell in run["cells"]:
        if cell["cell_type"] == "code":
            cell["execution_count"] = 3
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x\n"}]
    model = {"type": "notebook", "content": run}
    pre_save_hook()(model, path=name, contents_manager=None)
    assert json.loads(json.dumps(model["content"])) == committed


# -- the rule editor's scratch copy ------------------------------------------------------
def test_a_scratch_copy_goes_when_its_process_ends():
    code = ("from workbench.resources import data_dir; from workbench.ui.editor import scratch_copy; "
            "p = scratch_copy(data_dir('rules') / 'kill6.toml'); print(p); assert p.read_text().strip()")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    copy = Path(res.stdout.strip())
    assert copy.name == "kill6.toml" and copy.parent.name.startswith("rule-editor-")
    assert not copy.parent.exists()


@pytest.mark.notebook
def test_the_rule_editor_notebook_leaves_no_folder_behind(monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.delenv("QUERY_STRING", raising=False)
    nb = nbformat.read(NOTEBOOKS / "rule_editor.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("print(path.parent)"))
    NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    folder = Path(nb.cells[-1].outputs[0]["text"].strip())
    assert folder.name.startswith("rule-editor-")
    assert not folder.exists(), "the kernel ended and left its scratch folder"


# -- a .venv made with the wrong Python ---------------------------------------------------
def fake_python(folder: Path, version: str) -> Path:
    """A stand-in interpreter that says it is Python ``version`` (no other Python is on this machine)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "python"
    path.write_text(f"#!/bin/sh\necho {version}\n")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("version,ok", [("3.10", False), ("2.7", False), ("3.11", True), ("3.13", True),
                                        ("4.0", True)])
def test_check_python_reads_the_version(tmp_path, version, ok):
    res = subprocess.run(["bash", CHECK, fake_python(tmp_path, version), "venv"], capture_output=True, text=True)
    assert (res.returncode == 0) is ok
    assert (res.stderr == "") is ok


def test_the_real_interpreter_passes():
    assert subprocess.run(["bash", CHECK, sys.executable, "new"]).returncode == 0


def copy_of_the_make_files(tmp_path: Path) -> Path:
    work = tmp_path / "checkout"
    for name in ("Makefile", "pyproject.toml", "setup.py"):
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, work / name)
    for folder in ("scripts", "requirements"):
        shutil.copytree(ROOT / folder, work / folder)
    return work


def test_a_venv_of_python_3_10_says_make_clean(tmp_path):
    work = copy_of_the_make_files(tmp_path)
    fake_python(work / ".venv" / "bin", "3.10")
    res = subprocess.run(["make", "setup"], cwd=work, capture_output=True, text=True, timeout=120)
    assert res.returncode != 0
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert errors == [errors[0]] and "Python 3.10" in errors[0] and "run 'make clean'" in errors[0], res.stderr
    assert "pip install" not in res.stdout  # stopped before anything was installed into it


def test_making_a_venv_with_python_3_10_is_refused(tmp_path):
    work = copy_of_the_make_files(tmp_path)
    old = fake_python(tmp_path / "old", "3.10")
    res = subprocess.run(["make", "setup", f"PYTHON={old}"], cwd=work, capture_output=True, text=True, timeout=120)
    assert res.returncode != 0 and not (work / ".venv").exists()
    assert re.search(r"^error: .*is Python 3\.10; .*PYTHON=", res.stderr, re.M), res.stderr
