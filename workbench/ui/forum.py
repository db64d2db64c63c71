"""The forum-post panel every dashboard carries.

``ForumPanel(get_outcome)``: one click on "Forum post" fills three tabs ready to paste from the
dashboard's current outcome: the explanation in plain words, Markdown and BBCode
(:mod:`workbench.teach`; a mapping of outcomes gives one side-by-side table). Each tab's
:class:`CopyButton` copies and downloads in the browser, from the text it already holds. The
figure downloads (PNG, SVG, an HTML page that works offline) are **files** the kernel writes
under :func:`downloads_dir`, linked at ``$WORKBENCH_DOWNLOAD_URL`` where the dashboard server
serves that folder (:func:`download_route`); without a route (a notebook in JupyterLab), the
panel falls back to ``data:`` links. Without a browser for kaleido the texts and the HTML are
still made and the panel says why the images are missing.
"""
from __future__ import annotations

import base64
import functools
import html
import os
import re
import secrets
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import quote

import anywidget
import ipywidgets as W
import traitlets

from .. import export, teach
from ..errors import InputError, WorkbenchError
from ..outcome import Outcome
from . import guard
from .plotwidget import Module, static_text

__all__ = ["ForumPanel", "CopyButton", "data_link", "file_link", "downloads_dir", "publish",
           "DownloadHandler",  # noqa: F822 (built on first use by __getattr__: a base install has no tornado)
           "download_route", "DOWNLOAD_ENV", "DOWNLOAD_DIR_ENV", "DOWNLOAD_PATH"]

_MIME = {"png": "image/png", "svg": "image/svg+xml", "html": "text/html", "md": "text/markdown",
         "txt": "text/plain"}

#: where the server publishes :func:`downloads_dir` (a URL prefix, read by the kernels)
DOWNLOAD_ENV = "WORKBENCH_DOWNLOAD_URL"
#: the folder the kernels write downloads to and the server serves (default: a per-user temp folder)
DOWNLOAD_DIR_ENV = "WORKBENCH_DOWNLOAD_DIR"
#: the route's path under the server's base URL
DOWNLOAD_PATH = "workbench/download"
#: downloads older than this many seconds are removed when new ones are written
KEEP_SECONDS = 24 * 3600


# ---------------------------------------------------------------------------
# copy and download in the browser
# ---------------------------------------------------------------------------


class CopyButton(anywidget.AnyWidget):
    """A "Copy" button (and a "Download" one when ``filename`` is set) for ``text``.

    The browser copies the text it holds (``navigator.clipboard``, or a
    hidden textarea where the page is not a secure context) and downloads it
    from a Blob; ``copies`` counts the copies the browser reported.
    """

    _esm = Module("copy", static_text("copy.js", "copybutton.js"))
    text = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("Copy").tag(sync=True)
    filename = traitlets.Unicode("").tag(sync=True)
    mime = traitlets.Unicode("text/plain").tag(sync=True)
    copies = traitlets.Int(0).tag(sync=True)


# ---------------------------------------------------------------------------
# files the server serves
# ---------------------------------------------------------------------------
def downloads_dir() -> Path:
    """The folder downloads are written to: ``$WORKBENCH_DOWNLOAD_DIR`` or a
    per-user folder in the system's temp directory (the same for the server
    and its kernels, which run as the same user on the same machine)."""
    env = os.environ.get(DOWNLOAD_DIR_ENV)
    if env:
        return Path(env)
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"workbench-downloads-{user}"


def _prune(folder: Path, keep: float = KEEP_SECONDS) -> None:
    cutoff = time.time() - keep
    for sub in folder.iterdir() if folder.is_dir() else ():
        try:
            if sub.is_dir() and sub.stat().st_mtime < cutoff:
                shutil.rmtree(sub, ignore_errors=True)
        except OSError:
            pass


def _safe_name(filename: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(filename))
    name = re.sub(r"_+", "_", re.sub(r"\.\.+", "", name)).strip("._")
    if not name:
        raise InputError("filename", "a file name with letters or digits", filename)
    return name


def publish(data: bytes, filename: str) -> str | None:
    """Write ``data`` as ``filename`` in a new, unguessable folder of
    :func:`downloads_dir`; return its URL under ``$WORKBENCH_DOWNLOAD_URL``,
    or None when no server publishes the folder (the variable is unset)."""
    base = os.environ.get(DOWNLOAD_ENV)
    if not base:
        return None
    if not isinstance(data, (bytes, bytearray)):
        raise InputError("data", "bytes", type(data).__name__)
    root = downloads_dir()
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    _prune(root)
    token = secrets.token_hex(16)
    name = _safe_name(filename)
    folder = root / token
    folder.mkdir(mode=0o700)
    (folder / name).write_bytes(bytes(data))
    return f"{base.rstrip('/')}/{token}/{quote(name)}"


def _anchor(href: str, filename: str, label: str | None) -> str:
    return (f'<a download="{html.escape(filename)}" href="{html.escape(href)}" '
            f'target="_blank" class="wb-download">{html.escape(label or filename)}</a>')


def data_link(data: bytes, filename: str, label: str | None = None) -> str:
    """An HTML anchor that downloads ``data`` as ``filename`` (a base64 data: URI)."""
    mime = _MIME.get(filename.rsplit(".", 1)[-1].lower(), "application/octet-stream")
    return _anchor(f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}", filename, label)


def file_link(data: bytes, filename: str, label: str | None = None) -> str:
    """An anchor to ``data`` written as a served file (:func:`publish`), or a
    :func:`data_link` when no server publishes downloads."""
    url = publish(data, filename)
    return data_link(data, filename, label) if url is None else _anchor(url, _safe_name(filename), label)


@functools.cache
def _download_handler() -> type:
    """:class:`DownloadHandler`, made on first use: tornado is the dashboard
    server's (the ``dashboard`` extra), and a panel in a notebook or a base
    install never needs it."""
    import tornado.web

    class DownloadHandler(tornado.web.StaticFileHandler):
        """Serves :func:`downloads_dir` as attachments; nothing is listed, and a
        path outside the folder is refused (tornado's static-file checks)."""

        def set_extra_headers(self, path):
            name = Path(path).name
            self.set_header("Content-Disposition", f"attachment; filename=\"{name}\"")
            self.set_header("X-Content-Type-Options", "nosniff")
            self.set_header("Cache-Control", "private, max-age=3600")

        def validate_absolute_path(self, root, absolute_path):
            if os.path.isdir(absolute_path):
                raise tornado.web.HTTPError(404)
            return super().validate_absolute_path(root, absolute_path)

    DownloadHandler.__module__ = __name__
    return DownloadHandler


def __getattr__(name: str) -> Any:
    if name == "DownloadHandler":  # the server's handler class, built (importing tornado) when asked for
        return _download_handler()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def download_route(server_url: str = "/") -> tuple[str, type, dict[str, str]]:
    """The tornado route that serves the panel's downloads:
    ``(pattern, DownloadHandler, {"path": downloads_dir()})``. The server
    adds it to its handlers and sets ``$WORKBENCH_DOWNLOAD_URL`` to
    ``<server url>workbench/download`` before the kernels start."""
    base = server_url if server_url.endswith("/") else server_url + "/"
    folder = downloads_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return (f"{base}{DOWNLOAD_PATH}/(.*)", _download_handler(), {"path": str(folder)})


# ---------------------------------------------------------------------------
# the panel
# ---------------------------------------------------------------------------
def _stem(o: Outcome) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", f"{o.system}_{o.function}").strip("_") or "outcome"


_FORMATS = (("explain", "Explain", "Copy text", "text/plain"),
            ("markdown", "Markdown", "Copy Markdown", "text/markdown"),
            ("bbcode", "BBCode", "Copy BBCode", "text/plain"))


class PostTabs(W.VBox):
    """A "Forum post" button (``button``, with ``tooltip``, beside ``extra`` widgets and ``status``),
    a tab per text of ``formats`` (``(key, title, copy label, mime)``: its ``<key>_box`` and its
    :class:`CopyButton` in ``copy``) and ``links`` for the figure's files; ``outputs``: what the
    last post made."""

    def __init__(self, formats=_FORMATS, *, tooltip: str, extra=()):
        self.outputs: dict[str, Any] = {}
        self.button = W.Button(description="Forum post", icon="comment", button_style="primary", tooltip=tooltip)
        self.status = W.HTML("")
        self.copy: dict[str, CopyButton] = {}
        pages = []
        for key, _title, label, mime in formats:
            box = W.Textarea(layout=W.Layout(width="100%", height="16em"))
            setattr(self, f"{key}_box", box)
            self.copy[key] = CopyButton(label=label, mime=mime).add_class(f"wb-copy-{key}")
            pages.append(W.VBox([self.copy[key], box]))
        self.tabs = W.Tab(children=pages, titles=[f[1] for f in formats])
        self.links = W.HTML("")
        super().__init__([W.HBox([self.button, *extra, self.status]), self.tabs, self.links])
        self.add_class("wb-forum")

    def _set_text(self, key: str, text: str, filename: str) -> None:
        getattr(self, f"{key}_box").value = text
        self.copy[key].filename = filename
        self.copy[key].text = text
        self.outputs[key] = text


class ForumPanel(PostTabs):
    """Buttons and boxes that turn the current outcome into a forum post.

    ``get_outcome``: a callable returning the current :class:`~workbench.outcome.Outcome` (or
    ``None`` while the inputs are invalid), or a mapping of names to outcomes (the compare
    dashboard: one side-by-side table and figure). ``images``: whether the one click also renders
    PNG and SVG. After :meth:`generate`, ``outputs`` holds the texts and the bytes of each figure
    download (keys ``explain, markdown, bbcode, html, png, svg``).
    """

    def __init__(self, get_outcome: Callable[[], Outcome | Mapping[str, Outcome] | None], *, images: bool = True,
                 width: int = export.DEFAULT_WIDTH, height: int = export.DEFAULT_HEIGHT):
        if not callable(get_outcome):
            raise InputError("get_outcome", "a callable returning the current Outcome",
                             type(get_outcome).__name__)
        self.get_outcome = get_outcome
        self.size = (width, height)
        self._current: Any = None
        self.images = guard.Checkbox(value=images, description="with PNG/SVG (a few seconds)", indent=False)
        self.tables = guard.Checkbox(value=False, description="my board has [table]", indent=False,
                                 tooltip="BBCode tables as [table] instead of an aligned [code] block "
                                         "(a stock phpBB board has no [table])")
        super().__init__(tooltip="Explain the current result and make Markdown, BBCode and figures",
                         extra=(self.images, self.tables))
        self.button.on_click(lambda _b: self.generate())
        self.tables.observe(lambda _c: self._rewrite_bbcode(), names="value")

    def _rewrite_bbcode(self) -> None:
        if self._current is None:
            return
        target, stem = self._current
        self._set_text("bbcode", teach.to_bbcode(target, tables=self.tables.value), f"{stem}.bbcode.txt")

    def generate(self, images: bool | None = None) -> dict[str, Any]:
        """Fill the tabs and links from ``get_outcome()``; return :attr:`outputs`."""
        images = self.images.value if images is None else bool(images)
        try:
            o = self.get_outcome()
        except WorkbenchError as exc:
            o, why = None, str(exc)
        else:
            why = "no result for the current settings"
        if isinstance(o, Mapping):  # a dashboard showing several outcomes (e.g. the compare one)
            many = {str(k): x for k, x in o.items() if isinstance(x, Outcome)}
        else:
            many = {"": o} if isinstance(o, Outcome) else {}
        if not many:
            self.status.value = f"<span style='color:#b00'>Nothing to post: {html.escape(why)}.</span>"
            self.outputs = {}
            self._current = None
            return self.outputs
        self.status.value = "Writing…"
        first = next(iter(many.values()))
        target: Any = first if len(many) == 1 else many
        stem = _stem(first) if len(many) == 1 else "comparison"
        self.outputs = {}
        self._current = (target, stem)
        self._set_text("explain", "\n\n".join(teach.explain(x) for x in many.values()), f"{stem}.txt")
        self._set_text("markdown", teach.to_markdown(target), f"{stem}.md")
        self._set_text("bbcode", teach.to_bbcode(target, tables=self.tables.value), f"{stem}.bbcode.txt")
        fig = export.outcome_figure(first) if len(many) == 1 else export.outcomes_figure(many)
        self.outputs["html"] = export.figure_html(fig).encode("utf-8")
        links = [file_link(self.outputs["html"], f"{stem}.html", "HTML (interactive, offline)")]
        note = ""
        if images:
            self.status.value = "Rendering PNG and SVG…"
            try:
                imgs = export.figure_images(fig, ("png", "svg"), width=self.size[0], height=self.size[1])
            except WorkbenchError as exc:
                note = f" <span style='color:#b00'>(no PNG/SVG: {html.escape(str(exc))})</span>"
            else:
                self.outputs.update(imgs)
                links += [file_link(imgs["png"], f"{stem}.png", "PNG"),
                          file_link(imgs["svg"], f"{stem}.svg", "SVG")]
        self.links.value = "Figure: " + " · ".join(links) + note
        self.status.value = "Ready: copy a tab or download a file."
        return self.outputs
