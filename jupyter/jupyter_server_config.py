# JupyterLab started by `make lab` reads this file (the Makefile puts this
# folder on JUPYTER_CONFIG_PATH): every notebook saved from the checkout is
# written without outputs and execution counts, stripped by nbstripout, so
# that a save never leaves outputs that the tests reject (notebooks are
# committed without outputs). The open notebook keeps its outputs on screen.
# Running a notebook also rewrites its kernel's name as the kernel shows it
# ("Python 3 (ipykernel)") and adds the kernel's language_info (version,
# mimetype, lexer...): both are put back to the committed form (COMMITTED_METADATA),
# so that running and saving a notebook leaves git with nothing to commit.

# nbstripout's default extra keys: metadata that changes on every run
EXTRA_KEYS = [
    "metadata.signature",
    "metadata.widgets",
    "cell.metadata.collapsed",
    "cell.metadata.ExecuteTime",
    "cell.metadata.execution",
    "cell.metadata.heading_collapsed",
    "cell.metadata.hidden",
    "cell.metadata.scrolled",
]


#: the notebook metadata every committed notebook carries (tests/test_notebooks.py)
COMMITTED_METADATA = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                      "language_info": {"name": "python"}}


def strip_outputs_on_save(model, path, contents_manager, **kwargs):
    """Jupyter's pre-save hook: strip a notebook model in place before it is written."""
    if model.get("type") != "notebook" or model.get("content") is None:
        return
    import nbformat
    from nbstripout import strip_output

    nb = nbformat.from_dict(model["content"])
    nb = strip_output(nb, keep_output=False, keep_count=False, keep_id=True, extra_keys=EXTRA_KEYS)
    kernel = nb.metadata.get("kernelspec", {})
    if kernel.get("name", "python3") == "python3" and nb.metadata.get("language_info", {}).get("name",
                                                                                             "python") == "python":
        nb.metadata.update(nbformat.from_dict(COMMITTED_METADATA))  # a Python kernel's run-time names
    model["content"] = nb


c = get_config()  # noqa: F821 - provided by Jupyter when it reads this file
c.ContentsManager.pre_save_hook = strip_outputs_on_save
