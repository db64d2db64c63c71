"""The forum panel: copy buttons, texts from teach, downloads as served files.

* The panel's texts are the teach posts; each tab's copy button holds the
  same text and file name.
* With a download route (``$WORKBENCH_DOWNLOAD_URL``) the figure links are
  short URLs of files written under ``$WORKBENCH_DOWNLOAD_DIR``, never data:
  URIs; the HTML page inlines plotly.js exactly once.
* :class:`DownloadHandler` serves those files as attachments from a real
  tornado server and refuses paths outside its folder.
* The copy button's ES module runs in Debian's Chromium: the clipboard gets
  the text (through navigator.clipboard, and through the textarea fallback
  when the page is not a secure context) and "Download" saves it as a file.
"""
from __future__ import annotations

import asyncio
import http.server
import os
import re
import socket
import struct
import threading
from pathlib import Path

import pytest

from workbench import teach
from workbench.errors import InputError
from workbench.systems import antares, changes, forgotten, gunfire
from workbench.ui import forum
from workbench.ui.forum import CopyButton, DownloadHandler, ForumPanel, download_route

CHROMIUM = "/usr/bin/chromium"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    return struct.unpack(">II", data[16:24])


@pytest.fixture
def served(tmp_path, monkeypatch):
    """Downloads published as the dashboard server does: files in tmp_path, links under /workbench/download."""
    monkeypatch.setenv(forum.DOWNLOAD_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(forum.DOWNLOAD_ENV, "/workbench/download")
    return tmp_path


def hrefs(links_html: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', links_html)


def served_file(folder: Path, url: str) -> Path:
    m = re.fullmatch(r"/workbench/download/([0-9a-f]{32})/([A-Za-z0-9_.-]+)", url)
    assert m, url
    return folder / m.group(1) / m.group(2)


def test_one_click_fills_every_tab_and_its_copy_button(served):
    state = {"o": gunfire.shooting(bs=4, ev=3, ap=3, av=5, s=1, t=2, shots=10, models=5)}
    panel = ForumPanel(lambda: state["o"])
    panel.generate(images=False)
    o = state["o"]
    out = panel.outputs
    assert out["explain"] == o.explain() == panel.explain_box.value == panel.copy["explain"].text
    assert out["markdown"] == teach.to_markdown(o) == panel.markdown_box.value == panel.copy["markdown"].text
    assert out["bbcode"] == teach.to_bbcode(o) == panel.bbcode_box.value == panel.copy["bbcode"].text
    assert [panel.copy[k].filename for k in ("explain", "markdown", "bbcode")] == [
        "gunfire_shooting.txt", "gunfire_shooting.md", "gunfire_shooting.bbcode.txt"]
    assert "[table]" not in out["bbcode"]
    panel.tables.value = True  # a board with [table]
    assert panel.copy["bbcode"].text == teach.to_bbcode(o, tables=True) == panel.bbcode_box.value
    assert "[table]" in panel.copy["bbcode"].text
    # the panel follows the current state
    state["o"] = antares.shooting(acc=5, res=5, sv=1, shots=2)
    panel.generate(images=False)
    assert "3/10" in panel.copy["explain"].text and panel.copy["markdown"].filename == "antares_shooting.md"


def test_figure_downloads_are_short_links_to_served_files(served):
    o = changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=10)
    panel = ForumPanel(lambda: o, width=400, height=300)
    panel.button.click()  # the one click, with images
    out = panel.outputs
    assert "data:" not in panel.links.value and len(panel.links.value) < 2000
    urls = hrefs(panel.links.value)
    assert [u.rsplit("/", 1)[1] for u in urls] == ["changes_shooting.html", "changes_shooting.png",
                                                    "changes_shooting.svg"]
    files = [served_file(served, u) for u in urls]
    assert files[0].read_bytes() == out["html"]
    assert files[1].read_bytes() == out["png"] and png_size(out["png"]) == (400, 300)
    assert files[2].read_bytes() == out["svg"]
    page = out["html"].decode()
    assert page.count("plotly.js v") == 1, "plotly.js inlined once"
    assert "<script src=" not in page  # offline: nothing fetched
    # a second click writes new files, in new unguessable folders
    panel.generate(images=False)
    again = hrefs(panel.links.value)
    assert len(again) == 1 and again[0] != urls[0] and served_file(served, again[0]).exists()


def test_without_a_download_route_the_links_fall_back_to_data(monkeypatch):
    monkeypatch.delenv(forum.DOWNLOAD_ENV, raising=False)
    panel = ForumPanel(lambda: antares.shooting(acc=5, res=5, sv=1, shots=2))
    panel.generate(images=False)
    assert hrefs(panel.links.value)[0].startswith("data:text/html;base64,")


def test_compare_post_is_one_side_by_side_table(served):
    outs = {"changes": changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=10),
            "forgotten": forgotten.shooting(shoot=6, attack_power=5, shots=10, armour="light"),
            "gunfire": gunfire.shooting(bs=4, ev=3, ap=3, av=5, s=1, t=2, shots=10),
            "antares": antares.shooting(acc=5, res=5, sv=1, shots=10)}
    panel = ForumPanel(lambda: outs)
    out = panel.generate(images=False)
    assert out["markdown"] == teach.to_markdown(outs) and out["bbcode"] == teach.to_bbcode(outs)
    md_head = [ln for ln in out["markdown"].splitlines() if ln.startswith("| ")]
    assert md_head[0].count("|") == 6  # a label column and four systems
    assert out["bbcode"].count("[code]") == 1 and "[table]" not in out["bbcode"]
    assert out["explain"].count("Per shot:") == 4
    assert hrefs(panel.links.value)[0].endswith("/comparison.html")
    assert panel.copy["markdown"].filename == "comparison.md"


def test_nothing_to_post_says_why():
    panel = ForumPanel(lambda: None)
    assert panel.generate() == {}
    assert "Nothing to post" in panel.status.value

    def bad():
        raise InputError("bs", "a whole number from 1 to 13", 0)

    panel = ForumPanel(bad)
    assert panel.generate() == {}
    assert "bs: expected a whole number" in panel.status.value
    assert panel.copy["markdown"].text == ""
    with pytest.raises(InputError, match=r"^get_outcome: expected a callable"):
        ForumPanel("not callable")


def test_publish_names_and_prunes(served, monkeypatch):
    url = forum.publish(b"abc", "a b/../c.md")
    path = served_file(served, url)
    assert path.name == "a_b_c.md" and path.read_bytes() == b"abc"
    old = path.parent
    os.utime(old, (0, 0))  # a download from 1970: removed by the next publish
    forum.publish(b"x", "next.md")
    assert not old.exists()
    with pytest.raises(InputError, match=r"^data: expected bytes"):
        forum.publish("text", "x.md")


def test_download_handler_serves_attachments_and_nothing_else(served):
    import tornado.httpclient
    import tornado.httpserver
    import tornado.netutil
    import tornado.web

    url = forum.publish(b"<html>plot</html>", "changes_shooting.html")
    (served.parent / "secret.txt").write_text("not for you")
    pattern, handler, kwargs = download_route("/")
    assert handler is DownloadHandler and pattern == "/workbench/download/(.*)"
    assert kwargs == {"path": str(served)}

    async def run():
        app = tornado.web.Application([(pattern, handler, kwargs)])
        sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
        port = sockets[0].getsockname()[1]
        server = tornado.httpserver.HTTPServer(app)
        server.add_sockets(sockets)
        client = tornado.httpclient.AsyncHTTPClient()
        base = f"http://127.0.0.1:{port}"
        try:
            ok = await client.fetch(base + url)
            codes = []
            for bad in ("/workbench/download/../secret.txt", "/workbench/download/%2e%2e/secret.txt",
                        "/workbench/download/", url.rsplit("/", 1)[0] + "/", "/workbench/download/nope/x.md"):
                r = await client.fetch(base + bad, raise_error=False)
                codes.append(r.code)
            return ok, codes
        finally:
            server.stop()

    ok, codes = asyncio.run(run())
    assert ok.body == b"<html>plot</html>"
    assert ok.headers["Content-Disposition"] == 'attachment; filename="changes_shooting.html"'
    assert all(c in (403, 404) for c in codes), codes


# ---------------------------------------------------------------------------
# the copy button's module in a real browser
# ---------------------------------------------------------------------------
PAGE = """<!doctype html><html><body><div id="host"></div>
<script type="module">
import widget from "./copy.js";
const state = {text: %(text)s, label: "Copy Markdown", filename: "post.md", mime: "text/markdown", copies: 0};
const handlers = {};
const model = {
  get: (k) => state[k],
  set: (k, v) => { state[k] = v; },
  save_changes: () => { window.saved = (window.saved || 0) + 1; },
  on: (ev, fn) => { (handlers[ev] = handlers[ev] || []).push(fn); },
};
window.state = state;
widget.render({model, el: document.getElementById("host")});
window.ready = true;
</script></body></html>"""


def _chromium():
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing under CI")
        pytest.skip(f"{CHROMIUM} is missing; the browser test of the copy button is skipped")
    return CHROMIUM


@pytest.fixture
def copy_page(tmp_path):
    """The ESM of CopyButton on a page served from 127.0.0.1 (a secure context)."""
    import json

    text = "**Firer (BS 5+) at target** - 8/12 × 5/12\n| N | P |\n[b]bold[/b]"
    (tmp_path / "copy.js").write_text(CopyButton.class_traits()["_esm"].default_value)  # the module's code
    (tmp_path / "index.html").write_text(PAGE % {"text": json.dumps(text)}, encoding="utf-8")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(tmp_path), **kw)

        def log_message(self, *a):
            pass

        def guess_type(self, path):
            return "text/javascript" if str(path).endswith(".js") else super().guess_type(path)

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Quiet)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/index.html", text
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.browser
@pytest.mark.server  # its page comes from a server of its own (http.server)
@pytest.mark.parametrize("secure", [True, False], ids=["clipboard-api", "textarea-fallback"])
def test_copy_button_copies_and_downloads_in_chromium(copy_page, secure, tmp_path):
    from playwright.sync_api import sync_playwright

    url, text = copy_page
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), args=["--no-sandbox", "--disable-gpu"])
        try:
            context = browser.new_context(accept_downloads=True)
            context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.rsplit("/", 1)[0])
            page = context.new_page()
            if not secure:  # as on a page served over plain http from another machine
                page.add_init_script("Object.defineProperty(window, 'isSecureContext', {value: false});")
            page.goto(url)
            page.wait_for_function("window.ready === true")
            assert page.evaluate("window.isSecureContext") is secure
            page.evaluate("navigator.clipboard.writeText('something else')")
            page.click("button.wb-copy-button")
            page.wait_for_function("window.state.copies === 1")
            assert page.evaluate("navigator.clipboard.readText()") == text
            assert page.inner_text(".wb-copy-note") == "Copied."
            assert page.evaluate("window.saved") == 1
            with page.expect_download() as dl:
                page.click("button.wb-save-button")
            download = dl.value
            assert download.suggested_filename == "post.md"
            saved = tmp_path / "saved.md"
            download.save_as(saved)
            assert saved.read_text(encoding="utf-8") == text
        finally:
            browser.close()
