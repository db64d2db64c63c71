"""The forum-post panel every dashboard carries.

``ForumPanel(get_outcome)`` is an ipywidgets ``VBox``: one click on "Forum
post" takes the dashboard's current outcome (``get_outcome()``, e.g.
``dashboard.current_outcome``) and fills three text boxes ready to copy (the
explanation in plain words, Markdown, BBCode) and a row of download links
(Markdown, BBCode, HTML and, when "with images" is ticked, PNG and SVG).

Downloads are ``data:`` URIs in ``<a download=...>`` anchors: nothing is
written to disk and no file server is needed, so they work in Voila as in
JupyterLab. PNG/SVG rendering starts Chromium through kaleido and takes a few
seconds; without a browser the texts and the HTML are still produced and the
panel says why the images are missing.
"""
from __future__ import annotations

import base64
import html
import re
from typing import Any, Callable, Mapping

import ipywidgets as W

from .. import export, teach
from ..errors import WorkbenchError
from ..outcome import Outcome

__all__ = ["ForumPanel", "data_link"]

_MIME = {"png": "image/png", "svg": "image/svg+xml", "html": "text/html", "md": "text/markdown",
         "txt": "text/plain"}


def data_link(data: bytes, filename: str, label: str | None = None) -> str:
    """An HTML anchor that downloads ``data`` as ``filename`` (a base64 data: URI)."""
    ext = filename.rsplit(".", 1)[-1].lower()
    mime = _MIME.get(ext, "application/octet-stream")
    b64 = base64.b64encode(data).decode("ascii")
    return (f'<a download="{html.escape(filename)}" href="data:{mime};base64,{b64}" '
            f'target="_blank" class="wb-download">{html.escape(label or filename)}</a>')


def _stem(o: Outcome) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", f"{o.system}_{o.function}").strip("_") or "outcome"


class ForumPanel(W.VBox):
    """Buttons and boxes that turn the current outcome into a forum post.

    ``get_outcome``: a callable returning the current
    :class:`~workbench.outcome.Outcome` (or ``None`` while the inputs are
    invalid), or a mapping of names to outcomes (the compare dashboard: one
    section per outcome and a side-by-side figure). ``images``: whether the one click also renders PNG and SVG.
    After :meth:`generate`, ``outputs`` holds the texts and the bytes of each
    download (keys ``explain, markdown, bbcode, html, png, svg``).
    """

    def __init__(self, get_outcome: Callable[[], Outcome | None], *, images: bool = True,
                 width: int = export.DEFAULT_WIDTH, height: int = export.DEFAULT_HEIGHT):
        if not callable(get_outcome):
            from ..errors import InputError
            raise InputError("get_outcome", "a callable returning the current Outcome",
                             type(get_outcome).__name__)
        self.get_outcome = get_outcome
        self.size = (width, height)
        self.outputs: dict[str, Any] = {}
        self.button = W.Button(description="Forum post", icon="comment", button_style="primary",
                               tooltip="Explain the current result and make Markdown, BBCode and figures")
        self.images = W.Checkbox(value=images, description="with PNG/SVG (a few seconds)", indent=False)
        self.status = W.HTML("")
        box = dict(layout=W.Layout(width="100%", height="16em"))
        self.explain_box = W.Textarea(**box)
        self.markdown_box = W.Textarea(**box)
        self.bbcode_box = W.Textarea(**box)
        self.tabs = W.Tab(children=[self.explain_box, self.markdown_box, self.bbcode_box])
        for i, name in enumerate(("Explain", "Markdown", "BBCode")):
            self.tabs.set_title(i, name)
        self.links = W.HTML("")
        self.button.on_click(lambda _b: self.generate())
        super().__init__([W.HBox([self.button, self.images, self.status]), self.tabs, self.links])
        self.add_class("wb-forum")

    def generate(self, images: bool | None = None) -> dict[str, Any]:
        """Fill the boxes and links from ``get_outcome()``; return :attr:`outputs`."""
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
            return self.outputs
        self.status.value = "Writing…"
        sep = {"explain": "\n\n", "markdown": "\n---\n\n", "bbcode": "\n\n"}
        out: dict[str, Any] = {
            "explain": sep["explain"].join(teach.explain(x) for x in many.values()),
            "markdown": sep["markdown"].join(teach.to_markdown(x) for x in many.values()),
            "bbcode": sep["bbcode"].join(teach.to_bbcode(x) for x in many.values())}
        self.explain_box.value = out["explain"]
        self.markdown_box.value = out["markdown"]
        self.bbcode_box.value = out["bbcode"]
        first = next(iter(many.values()))
        fig = export.outcome_figure(first) if len(many) == 1 else export.outcomes_figure(many)
        width, height = self.size
        out["html"] = export.figure_html(fig).encode("utf-8")
        stem = _stem(first) if len(many) == 1 else "comparison"
        links = [data_link(out["markdown"].encode(), f"{stem}.md", "Markdown"),
                 data_link(out["bbcode"].encode(), f"{stem}.bbcode.txt", "BBCode"),
                 data_link(out["html"], f"{stem}.html", "HTML (interactive, offline)")]
        note = ""
        if images:
            self.status.value = "Rendering PNG and SVG…"
            try:
                imgs = export.figure_images(fig, ("png", "svg"), width=width, height=height)
            except WorkbenchError as exc:
                note = f" <span style='color:#b00'>(no PNG/SVG: {html.escape(str(exc))})</span>"
            else:
                out.update(imgs)
                links += [data_link(imgs["png"], f"{stem}.png", "PNG"),
                          data_link(imgs["svg"], f"{stem}.svg", "SVG")]
        self.links.value = "Download: " + " · ".join(links) + note
        self.status.value = "Ready: copy a tab or download a file."
        self.outputs = out
        return out
