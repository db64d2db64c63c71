"""The live server is read-only for viewers (plain HTTP and a websocket, no browser).

* a dashboard page carries none of its notebook's source lines, but its
  rendered markdown and widgets (so the check cannot pass on an empty page);
* no other file, notebook or listing of the project is served, whatever the
  route or path traversal (raw paths are sent, unnormalised);
* a viewer's ``execute_request`` over the kernel websocket (v1 framing) is refused, while
  the same socket answers a ``kernel_info_request`` (so the check cannot pass
  on a dead socket), and the code it carried never ran;
* using the dashboards writes nothing under ``notebooks/``.
"""
from __future__ import annotations

import hashlib
import html
import http.client
import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from workbench.serve import DASHBOARDS, PROJECT_ROOT

from browserkit import V1, collect, idle_after, kernel_id_of, kernel_message, run_in_thread, v1_frame

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.xdist_group("full-server")]

README_LINE = (PROJECT_ROOT / "README.md").read_text().splitlines()[0]  # "# Dice design workbench"
PYPROJECT_LINE = 'name = "dice-workbench"'


def raw_get(server, path: str) -> tuple[int, str]:
    """GET exactly ``path`` under the server's prefix (no client-side normalisation of ``..`` or ``%2e``)."""
    parts = urlsplit(server.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        conn.putrequest("GET", parts.path.rstrip("/") + path, skip_accept_encoding=True)
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace")
    finally:
        conn.close()


def code_lines(notebook: Path) -> list[str]:
    nb = json.loads(notebook.read_text())
    return [ln.strip() for c in nb["cells"] if c["cell_type"] == "code"
            for ln in "".join(c["source"]).splitlines() if ln.strip()]


@pytest.fixture(scope="module")
def rendered(server) -> dict:
    """Every dashboard rendered once (with a value in its link), and the notebooks
    folder's digest before and after: ``{"pages": {name: (status, body)}, "before", "after"}``."""
    before = _tree_digest(PROJECT_ROOT / "notebooks")
    pages = {d.notebook: raw_get(server, f"/voila/render/{d.notebook}?shots=2") for d in DASHBOARDS}
    return {"pages": pages, "before": before, "after": _tree_digest(PROJECT_ROOT / "notebooks")}


@pytest.mark.parametrize("name", [d.notebook for d in DASHBOARDS])
def test_dashboard_page_shows_no_source_line(rendered, name):
    status, body = rendered["pages"][name]
    assert status == 200
    assert "jupyter-config-data" in body and "application/vnd.jupyter.widget-view+json" in body
    nb = json.loads((PROJECT_ROOT / "notebooks" / name).read_text())
    title = next("".join(c["source"]).splitlines()[0].lstrip("# ").strip()
                 for c in nb["cells"] if c["cell_type"] == "markdown")
    assert html.escape(title, quote=False) in body or title in body  # the rendered markdown is there
    lines = code_lines(PROJECT_ROOT / "notebooks" / name)
    assert lines
    for line in lines:
        for form in {line, html.escape(line), html.escape(line, quote=False)}:
            assert form not in body, f"source line {line!r} is in the page"
    assert not re.search(r'(src|href)="(https?:)?//', body)  # nothing linked off the machine


FORBIDDEN = [
    "/README.md", "/pyproject.toml", "/notebooks/changes.ipynb", "/tree", "/tree/", "/files/README.md",
    "/api/contents", "/api/contents/notebooks", "/voila/tree", "/voila/tree/", "/voila/api/contents",
    "/voila/api/contents/", "/voila/files/README.md", "/voila/files/changes.ipynb",
    "/voila/render/README.md", "/voila/render/../README.md", "/voila/render/%2e%2e/README.md",
    "/voila/render/..%2fREADME.md", "/voila/render/%2e%2e%2fREADME.md",
    "/voila/render/../notebooks/changes.ipynb", "/voila/render/../../etc/passwd",
    "/voila/render/changes.ipynb/../../README.md", "/voila/render/other.ipynb",
    "/voila/static/../../README.md", "/voila/static/%2e%2e/%2e%2e/README.md",
    "/voila/static/../../../../../../../../etc/passwd", "/voila/static/",
    "/voila/templates/lab/static/../../../../../README.md", "/voila/labextensions/../../README.md",
    "/voila/labextensions/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/voila/api/themes/../../README.md",
    "/static/../README.md", "/api/kernels", "/api/sessions", "/api/terminals", "/lab", "/edit/README.md",
]


@pytest.mark.parametrize("path", FORBIDDEN)
def test_no_other_file_listing_or_traversal_is_served(server, path):
    status, body = raw_get(server, path)
    assert status in (400, 403, 404, 405), (status, body[:200])
    for secret in (README_LINE, PYPROJECT_LINE, "root:x:0:0", '"nbformat"', "compare.ipynb"):
        assert secret not in body, (path, secret)


def test_the_routes_still_serve_what_the_page_needs(server):
    """Control for the test above: the same handlers do serve their own files."""
    assert raw_get(server, "/voila/static/voila.js")[0] == 200
    assert raw_get(server, "/voila/templates/lab/static/index.css")[0] == 200
    assert raw_get(server, "/")[0] == 200


def test_viewer_cannot_execute_code_in_the_kernel(server, tmp_path):
    status, body = raw_get(server, "/voila/render/antares.ipynb")
    assert status == 200
    kernel = kernel_id_of(body)
    marker = tmp_path / "executed.txt"
    code = f"open({str(marker)!r}, 'w').write('ran'); print('VIEWER-CODE-RAN')"

    async def talk():
        from tornado.websocket import websocket_connect
        ws_url = server.url.replace("http://", "ws://") + f"api/kernels/{kernel}/channels"
        ws = await websocket_connect(ws_url, subprotocols=[V1])
        execute = kernel_message("execute_request", {"code": code, "silent": False, "store_history": False,
                                                     "user_expressions": {}, "allow_stdin": False})
        info = kernel_message("kernel_info_request", {})
        ws.write_message(v1_frame(execute), binary=True)
        ws.write_message(v1_frame(info), binary=True)
        # the kernel answers in order: once it went idle after the info request, any
        # output of the execute request (had it reached the kernel) has come before
        # (the reply comes on the shell channel, which is not ordered with iopub: wait for both; the
        # limit only bounds a failure, as a page's first kernel may still be busy on a loaded machine)
        went_idle = idle_after(info["header"]["msg_id"])

        def answered(got) -> bool:
            return went_idle(got) and any(m.get("msg_type") == "kernel_info_reply" for m in got)
        got = await collect(ws, 120, until=answered)
        ws.close()
        return execute["header"]["msg_id"], info["header"]["msg_id"], got

    exec_id, info_id, got = run_in_thread(talk(), 180)
    replies = {(m.get("parent_header", {}).get("msg_id"), m.get("msg_type")) for m in got}
    assert (info_id, "kernel_info_reply") in replies  # the socket works...
    assert not [r for r in replies if r[0] == exec_id]  # ...but the execute_request got no reply, output or status
    assert not any("VIEWER-CODE-RAN" in json.dumps(m) for m in got)
    assert not marker.exists()


def _tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_using_the_dashboards_writes_nothing_to_the_notebooks(rendered):
    assert [status for status, _ in rendered["pages"].values()] == [200] * len(DASHBOARDS)
    assert rendered["before"] and rendered["after"] == rendered["before"]
    assert not list((PROJECT_ROOT / "notebooks").rglob(".ipynb_checkpoints"))
