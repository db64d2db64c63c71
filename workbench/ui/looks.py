"""How the dashboards fit any screen, from a desktop to a 390 px wide phone.

One stylesheet for every dashboard (``static/page.css``, :func:`page_style`): plots share a row
on a wide screen and stack on a narrow one (:func:`row`), control labels wrap instead of being
cut off, and on a phone every control takes the full width and tables become one block per row
(:func:`table_html`), so nothing needs sideways scrolling. A plot has no fixed width
(``plot_layout``, of :mod:`workbench.figures`): it is as wide as its place on the page.
"""
from __future__ import annotations

import html
from typing import Iterable, Sequence

import ipywidgets as W

from .plotwidget import static_text

__all__ = ["page_style", "row", "show_widget", "table_html", "html_widget", "STYLE"]


STYLE = static_text("page.css")


def html_widget(cls: str, value: str = "") -> W.HTML:
    """An HTML widget of CSS class ``cls`` (a page's message line, table or note)."""
    return W.HTML(value).add_class(cls)


def page_style() -> W.HTML:
    """The stylesheet of the dashboards, as a widget to put at the top of one."""
    return html_widget("wb-style", f"<style>{STYLE}</style>")


def row(children, cls: str = "wb-row") -> W.HBox:
    """Widgets (plots, controls) side by side on a wide screen, one under the other on a narrow one;
    ``cls``: the box's CSS class."""
    return W.HBox(list(children), layout=W.Layout(flex_flow="row wrap", max_width="100%")).add_class(cls)


def show_widget(widget: W.Widget) -> None:
    """Display a dashboard's widget. ipywidgets shows a tooltip of ``None`` as the word "null"
    on the page: every widget of the tree without one first gets an empty tooltip (no tooltip)."""
    from IPython.display import display

    def tree(w: W.Widget):
        yield w
        for child in getattr(w, "children", ()) or ():
            if isinstance(child, W.Widget):
                yield from tree(child)

    for w in tree(widget):
        if w.has_trait("tooltip") and w.tooltip is None:
            w.tooltip = ""
    display(widget)


def table_html(heads: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "wb-table", *,
               row_classes: Sequence[str] | None = None, wrap: bool = True) -> str:
    """A table of ``heads`` (text) over ``rows`` (cells as HTML), class ``cls``; each cell carries
    its column's heading, which a phone shows beside the value when the table becomes one block
    per row; ``wrap``: inside a box that scrolls a table too wide for the page."""
    labels = [html.escape(h) for h in heads]
    body = "".join((f'<tr class="{row_classes[i]}">' if row_classes else "<tr>")
                   + "".join(f'<td data-label="{h}">{c}</td>' for h, c in zip(labels, cells)) + "</tr>"
                   for i, cells in enumerate(rows))
    out = (f'<table class="{cls}"><thead><tr>' + "".join(f"<th>{h}</th>" for h in labels)
           + f"</tr></thead><tbody>{body}</tbody></table>")
    return f'<div class="wb-table-wrap">{out}</div>' if wrap else out
