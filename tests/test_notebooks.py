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


@pytest.mark.notebook
@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_executes_headless(path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.delenv("QUERY_STRING", raising=False)
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # the last cell displays the dashboard: a widget view
    shown = [o for o in outputs if o.output_type == "display_data"]
    assert any("application/vnd.jupyter.widget-view+json" in o.data for o in shown), path.name
