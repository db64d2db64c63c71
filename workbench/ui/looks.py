"""How the dashboards fit any screen, from a desktop to a 390 px wide phone.

* :func:`plot_layout`: a plotly layout with no fixed width (``autosize``):
  a plot is as wide as its place on the page, and follows the window when it
  is resized;
* :func:`page_style`: one stylesheet for every dashboard, as an HTML widget
  at the top of the dashboard. Plots share a row on a wide screen and stack
  on a narrow one; control labels wrap instead of being cut off; dropdowns
  keep a readable width; on a phone every control takes the full width and
  tables become one block per row, so nothing needs sideways scrolling;
* :func:`row`: widgets side by side on a wide screen, one under the other
  on a narrow one.
"""
from __future__ import annotations

import html
from typing import Iterable, Sequence

import ipywidgets as W

from ..figures import PLOT_HEIGHT, plot_layout

__all__ = ["PLOT_HEIGHT", "plot_layout", "page_style", "row", "show_widget", "table_html", "html_widget", "STYLE"]


STYLE = """
.wb-dashboard, .wb-diagnostics { max-width: 100%; box-sizing: border-box; overflow-wrap: anywhere; }
.wb-dashboard .widget-box, .wb-diagnostics .widget-box { max-width: 100%; box-sizing: border-box; }
.wb-dashboard .widget-html-content, .wb-diagnostics .widget-html-content { white-space: normal; }

/* plots: two to a row on a wide screen, one per row on a narrow one */
.wb-plot { flex: 1 1 440px; min-width: 0 !important; max-width: 100%; width: auto; }
.wb-row { gap: 4px 12px; align-items: flex-start; }
.wb-effects { flex: 1 1 320px; min-width: 0; max-width: 560px; }
/* the stage-by-stage charts: one under the other, never wider than the page */
.wb-stage-charts .wb-plot { flex: 1 1 100%; max-width: 900px; }
.wb-stage-section { margin: 6px 0; }

/* control labels wrap rather than being cut off; dropdowns stay readable */
.wb-control { height: auto !important; min-height: var(--jp-widgets-inline-height, 28px); align-items: center; }
.wb-control .widget-label, .wb-control .widget-label-basic, .wb-control .widget-label-basic span,
.wb-concept .widget-label, .wb-wrap .widget-label-basic, .wb-wrap .widget-label-basic span,
.wb-forum .widget-label-basic, .wb-forum .widget-label-basic span {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  height: auto !important; line-height: 1.2 !important; overflow-wrap: anywhere;
}
.wb-control .widget-label-basic, .wb-wrap .widget-label-basic, .wb-forum .widget-label-basic {
  display: flex; align-items: center; gap: 4px; }
.wb-wrap, .wb-forum .widget-checkbox { height: auto !important; max-width: 100%; }
.wb-dashboard .widget-tab-contents, .wb-diagnostics .widget-tab-contents { box-sizing: border-box; max-width: 100%; }
.wb-dashboard .widget-tab-contents > *, .wb-diagnostics .widget-tab-contents > *,
.wb-forum .widget-textarea, .wb-forum textarea { max-width: 100%; box-sizing: border-box; }
.wb-forum .widget-textarea { width: calc(100% - 4px) !important; }
.wb-control select, .wb-profiles select, .wb-diagnostics select { min-width: 7em; }
.wb-controls > .widget-box, .wb-controls.widget-box { column-gap: 16px; }
.wb-mode .widget-toggle-button { width: auto !important; padding: 0 1em; }
.wb-mode.widget-toggle-buttons .widget-container { flex-wrap: wrap; }
.wb-forum .widget-hbox, .wb-profiles .widget-hbox { flex-wrap: wrap; }

/* tables: readable numbers, never wider than the page */
.wb-effects-box table, .wb-compare, .wb-table { border-collapse: collapse; max-width: 100%; }
.wb-effects-box th, .wb-effects-box td, .wb-compare th, .wb-compare td, .wb-table th, .wb-table td {
  padding: 2px 8px; vertical-align: top; }
.wb-table-wrap { max-width: 100%; overflow-x: auto; }
/* a table's words wrap between words, never inside one ("accurac|y"): a table too wide scrolls in its wrap */
.wb-effects-box th, .wb-compare th, .wb-compare td, .wb-table th, .wb-table td {
  overflow-wrap: normal; word-break: normal; hyphens: manual; }
.wb-compare th { vertical-align: bottom; }

/* the headline numbers, above the plots */
.wb-headline .wb-headline-text { margin: 4px 0; font-size: 1.15em; line-height: 1.35; }
.wb-headline-mean, .wb-headline-one { white-space: nowrap; }

/* results that no longer apply (the controls hold values the rules refuse): greyed, and said so */
.wb-stale { opacity: 0.3; filter: grayscale(1); pointer-events: none; user-select: none; }
.wb-stale-note { display: block; color: #333; margin-top: 2px; }

/* the share link: one line, never a screenful */
.wb-link-href { display: inline-block; max-width: 100%; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; vertical-align: bottom; }

/* a control's meaning, for a tap as well as a hover */
.wb-help summary { cursor: pointer; }
.wb-help dl { margin: 4px 0; } .wb-help dt { font-weight: 600; } .wb-help dd { margin: 0 0 4px 1em; }

@media (max-width: 640px) {
  /* phones first: the title, the headline numbers and the first plot, then the controls */
  .wb-dashboard > * { order: 10; }
  .wb-dashboard > .wb-style { order: 0; }
  .wb-dashboard > .wb-title { order: 1; }
  .wb-dashboard > .wb-headline { order: 2; }
  .wb-dashboard > .wb-error { order: 3; }
  .wb-dashboard > .wb-row-first { order: 4; }
  .wb-dashboard > .wb-title p { margin: 2px 0; line-height: 1.35; }
  .wb-dashboard > .wb-title h2 { margin: 4px 0; font-size: 1.3em; }
  .wb-control, .wb-concept, .wb-profiles .widget-dropdown, .wb-diagnostics .widget-dropdown,
  .wb-diagnostics .widget-slider { width: 100% !important; max-width: 100% !important; }
  .wb-control .widget-label, .wb-concept .widget-label, .wb-profiles .widget-label,
  .wb-diagnostics .widget-label { width: 38% !important; min-width: 38% !important; max-width: 38% !important; }
  .wb-control .widget-readout { min-width: 2.5em; }
  .wb-plot { flex-basis: 100%; }
  .wb-effects { flex-basis: 100%; max-width: 100%; }
  /* a long choice ("a downed model, a non-damaging hit or 2 ...") never widens its control past the screen */
  .wb-control.widget-dropdown select { flex: 1 1 0; min-width: 0; width: 0; }
  /* a table becomes one block per row, each cell with its column's name */
  .wb-compare, .wb-compare tbody, .wb-compare tr, .wb-compare td,
  .wb-table, .wb-table tbody, .wb-table tr, .wb-table td { display: block; width: 100%; box-sizing: border-box; }
  .wb-compare thead, .wb-table thead { display: none; }
  .wb-compare tr, .wb-table tr { border-top: 1px solid #ccc; padding: 4px 0; }
  .wb-compare td, .wb-table td { padding: 1px 4px; }
  .wb-compare td::before, .wb-table td::before { content: attr(data-label) ": "; font-weight: 600; }
  .wb-compare td:first-child::before { content: ""; }
  .wb-compare td:first-child { font-weight: 700; }
}
"""


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
