"""Every notebook in notebooks/ is stored without outputs and runs headless."""
from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
ALL = sorted(NOTEBOOKS.glob("*.ipynb"))
EXPECTED = {"changes.ipynb", "forgotten.ipynb", "gunfire.ipynb", "antares.ipynb", "compare.ipynb", "rule_editor.ipynb"}


def test_the_dashboard_notebooks_exist():
    assert EXPECTED <= {p.name for p in ALL}


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_stored_without_outputs(path):
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4
    assert nb.metadata["kernelspec"]["name"] == "python3"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a code cell has outputs"
            assert cell.execution_count is None, f"{path.name}: a code cell has an execution count"


@pytest.fixture(scope="module")
def kernel():
    """One kernel for every notebook of this module, started as Voila and nbclient
    start one (in notebooks/, without a link's ``QUERY_STRING``): a kernel start and
    the workbench's imports are most of a notebook's run, and each notebook starts
    from an empty namespace (``%reset -f``), so one that forgot an import still fails."""
    import os

    from jupyter_client.manager import KernelManager

    env = {k: v for k, v in os.environ.items() if k not in ("QUERY_STRING", "VOILA_PREHEAT")}
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(NOTEBOOKS), env=env)
    try:
        yield km
    finally:
        km.shutdown_kernel(now=True)


@pytest.mark.notebook
@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_executes_headless(path, kernel):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell("%reset -f"))
    client = NotebookClient(nb, km=kernel, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    try:
        client.execute()
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
    outputs = [o for c in nb.cells[1:] if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # the last cell displays the dashboard: a widget view
    shown = [o for o in outputs if o.output_type == "display_data"]
    assert any("application/vnd.jupyter.widget-view+json" in o.data for o in shown), path.name
