"""Helpers shared by the browser tests (kept out of conftest so that test modules can import them)."""
from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from workbench.serve import PROJECT_ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOTS = PROJECT_ROOT / "output" / "screenshots"
VIEWPORT = {"width": 1360, "height": 1800}  # tall enough for a whole dashboard in a screenshot


def installed_or_skip(path: str, script: str, what: str) -> str:
    """``path`` of a program the project's ``script`` installs; skip without
    it, but fail under CI (where the project's own files must install it)."""
    if os.path.exists(path):
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{path} is missing under CI: {script} must install it")
    pytest.skip(f"{path} is missing (run {script} as root); {what} skipped")


def chromium_or_skip() -> str:
    """The browser's path (Debian's chromium)."""
    return installed_or_skip(CHROMIUM, "scripts/install-chromium.sh", "browser tests")


# -- a dashboard's distribution plot, as drawn ----------------------------------------
PLOT = ".wb-plot-dist.js-plotly-plot, .wb-plot-dist .js-plotly-plot"
SLIDER_BS = ".wb-slider-bs"
# the plot's traces as drawn (x and y of each), "" while it has none
SIG_JS = ("sel => { const el = document.querySelector(sel); const d = el ? (el._fullData || []) : [];"
          " return d.length ? JSON.stringify(d.map(t => [t.visible, Array.from(t.x || []), Array.from(t.y || [])]))"
          " : ''; }")


def drawn(page, timeout: float) -> str:
    """The plot's traces once it has some."""
    page.wait_for_function(f"sel => ({SIG_JS})(sel) !== ''", arg=PLOT, timeout=timeout)
    return page.evaluate(SIG_JS, PLOT)


def redrawn(page, before: str, timeout: float) -> str:
    """The plot's traces once they differ from ``before``."""
    page.wait_for_function(f"([sel, before]) => {{ const now = ({SIG_JS})(sel); return now !== '' && now !== before; }}",
                           arg=[PLOT, before], timeout=timeout)
    return page.evaluate(SIG_JS, PLOT)


def move_slider(page, slider: str = SLIDER_BS) -> None:
    """As a person would: focus the handle and press the right arrow key (one step)."""
    page.locator(f"{slider} .noUi-handle").focus()
    page.keyboard.press("ArrowRight")



def off_machine(urls: list[str]) -> list[str]:
    """The URLs whose host is not a loopback address of this machine (127.0.0.1,
    or 127.0.0.2 where the session's server listens; data: and blob: URLs stay in the page)."""
    import ipaddress

    out = []
    for u in urls:
        parts = urlsplit(u)
        if parts.scheme in ("data", "blob", "about"):
            continue
        try:
            local = ipaddress.ip_address(parts.hostname or "").is_loopback
        except ValueError:  # a name, not an address: not this machine's
            local = False
        if not local:
            out.append(u)
    return out


def screenshot_path(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


# ---- talking to a dashboard's kernel over its websocket, as a script would (no browser)

def kernel_id_of(body: str) -> str:
    """The kernel id a rendered dashboard page carries in its page config."""
    import json
    import re

    config = re.search(r'<script id="jupyter-config-data" type="application/json">\s*(\{.*?\})\s*</script>',
                       body, re.S)
    return json.loads(config.group(1))["kernelId"]


def kernel_message(msg_type: str, content: dict, channel: str = "shell", metadata: dict | None = None) -> dict:
    import uuid

    return {"header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "username": "viewer",
                       "session": uuid.uuid4().hex, "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": metadata or {}, "content": content, "channel": channel}


def v1_frame(msg: dict) -> bytes:
    """``msg`` in Jupyter's v1 binary websocket framing (what a browser sends)."""
    import json

    from workbench.kernelchannel import build_v1

    parts = [json.dumps(msg[k]).encode() for k in ("header", "parent_header", "metadata", "content")]
    return build_v1(msg["channel"], parts)


def read_v1(frame) -> dict:
    """A v1 frame from the server as a message dict (``channel`` included; text frames as they are)."""
    import json

    from workbench.kernelchannel import parse_v1

    if isinstance(frame, str):
        return {"text": frame}
    channel, parts = parse_v1(frame, max_parts=1 << 16)
    msg = {k: json.loads(p) for k, p in zip(("header", "parent_header", "metadata", "content"), parts)}
    return {**msg, "channel": channel, "msg_type": msg["header"]["msg_type"]}


V1 = "v1.kernel.websocket.jupyter.org"


def run_in_thread(coro, timeout: float = 120):
    """Run ``coro`` on an event loop of its own thread (Playwright's sync API may hold this thread's)."""
    import asyncio
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result(timeout)


async def collect(ws, seconds: float, until=None) -> list:
    """Every message the websocket receives within ``seconds`` (until it closes),
    or, given ``until`` (a test of the messages so far), until that holds."""
    import asyncio

    got = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline and not (until and until(got)):
        try:
            raw = await asyncio.wait_for(ws.read_message(), deadline - loop.time())
        except asyncio.TimeoutError:
            break
        if raw is None:
            break
        got.append(read_v1(raw))
    return got


def replied(msg_id: str, msg_type: str):
    """A test for :func:`collect`: a message of ``msg_type`` answering ``msg_id`` has come."""
    return lambda got: any(m.get("msg_type") == msg_type and m.get("parent_header", {}).get("msg_id") == msg_id
                           for m in got)


def idle_after(*msg_ids: str):
    """A test for :func:`collect`: the kernel went idle after each of ``msg_ids``
    (every output of those requests has come before that status on iopub)."""
    def done(got) -> bool:
        idle = {m["parent_header"].get("msg_id") for m in got if m.get("msg_type") == "status"
                and m.get("content", {}).get("execution_state") == "idle"}
        return set(msg_ids) <= idle
    return done


def request(url: str, method: str = "GET", headers: dict | None = None, body: bytes | None = None,
            timeout: float = 120):
    """``(status, text, headers)`` of one request, redirects not followed."""
    import http.client

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body=body,
                     headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace"), resp.headers
    finally:
        conn.close()


def preheated_taken(srv, notebook: str) -> int:
    """How many viewers of ``notebook`` got a preheated kernel so far."""
    return sum("Using pre-heated kernel" in ln and ln.endswith(notebook) for ln in srv.log)


def check_a_link_with_values_restores_them(browser, srv) -> None:
    """A preheated kernel reads its viewer's link over the server's link channel
    (``voila/query/<kernel id>``), dialling the server itself: on a host other than
    127.0.0.1 (127.0.0.2 stands for a LAN address, being loopback on Linux), under a
    prefix, with and without an access token, the page shows the link's values, never
    silently its starting ones (test_serving and test_serving_own, one server each)."""
    from workbench.ui.query import LINK_UNREAD

    assert srv.url.startswith("http://127.0.0.2:")
    taken = preheated_taken(srv, "changes.ipynb")
    srv.wait_pools({"changes.ipynb": taken + 1}, timeout=300)  # a preheated kernel waits for this viewer
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        token = f"&token={srv.token}" if srv.token else ""
        page.goto(srv.url + f"voila/render/changes.ipynb?bs=8&shots=6{token}")
        page.wait_for_selector(".wb-slider-bs .widget-readout")
        page.wait_for_selector(".wb-link .wb-link-href")
        assert preheated_taken(srv, "changes.ipynb") == taken + 1, "the page did not get a preheated kernel"
        assert (readout(page, "bs"), readout(page, "shots")) == ("8", "6"), \
            page.inner_text("body")[:600] + "\n" + "\n".join(srv.log[-20:])
        assert LINK_UNREAD not in page.inner_text("body")
        if srv.token:
            assert srv.token not in page.url
    finally:
        context.close()


def readout(page, name: str) -> str:
    return page.inner_text(f".wb-slider-{name} .widget-readout").strip()
