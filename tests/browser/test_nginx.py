"""Several dashboard servers behind Debian's nginx (deploy/nginx.conf), end to end.

Two ``python -m workbench.serve --base-url /dice/`` processes on free loopback
ports, nginx (``/usr/sbin/nginx``, installed by scripts/install-nginx.sh) in
the foreground with its own prefix folder, on a free port, configured by
``workbench.deploy``; Debian's Chromium opens the dashboard through nginx:

* pages under the prefix render, every request of a page goes through the
  proxy under the prefix, and a slider move redraws the plot (the kernel
  websocket goes through the proxy);
* viewers spread over both processes, and each viewer stays with one (every
  request of a browser carries its sticky cookie and lands where its page was
  rendered, or its widgets could not work);
* a browser without the cookie gets one.
"""
from __future__ import annotations

import socket
import subprocess
import time

import pytest

from workbench.deploy import write_nginx_config
from workbench.serve import DASHBOARDS

from browserkit import drawn, installed_or_skip, move_slider, redrawn
from serverkit import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.slow, pytest.mark.xdist_group("nginx")]

NGINX = "/usr/sbin/nginx"
ONE = tuple(d for d in DASHBOARDS if d.notebook == "changes.ipynb")
VIEWERS = 2  # the fewest that can land on both processes; more come until both have served one
MAX_VIEWERS = 14


def nginx_or_skip() -> str:
    return installed_or_skip(NGINX, "scripts/install-nginx.sh", "nginx test")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    binary = nginx_or_skip()
    servers = [ServerProcess(port=0, base_url="/dice/", dashboards=ONE, pool_size=2, timeout=120) for _ in range(2)]
    nginx = None
    try:
        for srv in servers:
            srv.wait_pools({"changes.ipynb": 1}, timeout=300)
        port = free_port()
        run_dir = tmp_path_factory.mktemp("nginx")
        conf = write_nginx_config(run_dir, listen=f"127.0.0.1:{port}", base_url="/dice/",
                                  servers=[s.url.split("/")[2] for s in servers])
        nginx = subprocess.Popen([binary, "-p", str(run_dir), "-c", str(conf), "-e", "stderr"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if nginx.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("nginx did not start:\n" + nginx.stderr.read()) from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/dice/", servers
    finally:
        if nginx is not None:
            nginx.terminate()
            try:
                nginx.wait(15)
            except subprocess.TimeoutExpired:
                nginx.kill()
        for srv in servers:
            srv.stop()


def handed_out(server: ServerProcess) -> int:
    """How many page views this process has served a kernel for."""
    return sum("Using pre-heated kernel" in ln for ln in server.log)


def test_pages_render_and_redraw_through_nginx_on_both_processes(browser, proxied):
    base, servers = proxied
    contexts = []
    try:
        pages = []
        # Sticky ids hash onto a ring built from the servers' (free, so changing) ports: the first
        # viewers can all land on one process. Viewers keep coming, up to MAX_VIEWERS, until both
        # processes have served one (fourteen all on one process: one run in 8,000).
        for i in range(MAX_VIEWERS):
            if i >= VIEWERS and min(handed_out(s) for s in servers) >= 1:
                break
            context = browser.new_context()
            contexts.append(context)
            context.add_cookies([{"name": "workbench_viewer", "value": f"viewer-{i}", "url": base}])
            page = context.new_page()
            page.set_default_timeout(180_000)
            seen: list[str] = []
            page.on("request", lambda r, seen=seen: seen.append(r.url))
            page.on("websocket", lambda ws, seen=seen: seen.append(ws.url))
            page.seen = seen
            page.goto(base + "voila/render/changes.ipynb")
            pages.append(page)
        for page in pages:
            drawn(page, timeout=180_000)
        # a slider move redraws the plot: the kernel websocket goes through the proxy, to the process
        # that rendered the page
        before = drawn(pages[0], timeout=180_000)
        move_slider(pages[0])
        redrawn(pages[0], before, timeout=180_000)
        for page in pages:
            assert all(u.startswith((base, base.replace("http://", "ws://"), "blob:", "data:")) for u in page.seen)
            assert any("/dice/api/kernels/" in u and u.startswith("ws://") for u in page.seen)
    finally:
        for context in contexts:
            context.close()
    counts = [handed_out(s) for s in servers]
    assert sum(counts) == len(pages) and min(counts) >= 1, counts


def test_a_new_browser_gets_a_sticky_cookie(browser, proxied):
    base, _ = proxied
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(180_000)
        page.goto(base + "voila/render/changes.ipynb")
        page.wait_for_selector(".wb-plot-dist .main-svg")
        cookies = {c["name"]: c["value"] for c in context.cookies()}
        assert len(cookies.get("workbench_viewer", "")) >= 16
        page.goto(base)  # the prefix's landing page, through the proxy
        assert page.locator("ul.dashboards a").count() == len(ONE)
        first = cookies["workbench_viewer"]
        assert {c["name"]: c["value"] for c in context.cookies()}["workbench_viewer"] == first
    finally:
        context.close()
