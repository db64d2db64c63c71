"""Live plotly figures, updated in place, and the text helpers of the plots.

Every plot on a dashboard is a ``plotly.graph_objects.FigureWidget`` built
once and changed with ``batch_update()`` (one message to the browser per
change), never rebuilt.

Two details of plotly's widget matter on a served page:

* a ``FigureWidget`` sends its full state only when it is displayed *itself*;
  shown inside a ``VBox`` the browser would get the state it had when it was
  built and only the later deltas. :func:`show_widget` brings every figure in a
  widget tree up to date before display;
* each figure carries plotly's 5 MB widget module. When the dashboard server
  publishes that module at a local URL (``WORKBENCH_PLOTLY_ESM_URL``, set by
  :mod:`workbench.serve`), figures point at it so a page loads it once.
"""
from __future__ import annotations

import copy
import os
from typing import Iterator

import ipywidgets as W
import plotly.graph_objects as go


__all__ = ["live_figure", "replace_figure", "figures_in", "widgets_in", "no_null_tooltips", "show_widget",
           "figure_widget"]

#: set by workbench.serve: where the page can load plotly's widget module from
PLOTLY_ESM_ENV = "WORKBENCH_PLOTLY_ESM_URL"


def figure_widget(figure: go.Figure | None = None) -> go.FigureWidget:
    """A ``FigureWidget`` of ``figure`` (the module served locally when it can
    be), CSS class ``wb-plot``, as wide as its place on the page."""
    fw = go.FigureWidget(figure if figure is not None else go.Figure())
    fw.layout.width = None
    fw.layout.autosize = True
    fw._config = {**fw._config, "responsive": True, "displaylogo": False}
    fw.add_class("wb-plot")
    url = os.environ.get(PLOTLY_ESM_ENV)
    if url:
        fw._esm = url
    return fw


def live_figure(figure: go.Figure) -> tuple[go.FigureWidget, go.FigureWidget]:
    """``(figure, widget)``: the object to update and the widget to put on the
    page (the same ``FigureWidget``; the pair keeps the dashboards' code
    independent of how figures are shown)."""
    fw = figure_widget(figure)
    return fw, fw


def replace_figure(fw: go.FigureWidget, figure: go.Figure) -> None:
    """Show another figure (other traces, another layout) in the same widget.

    When the new figure has as many traces of the same types, the traces are
    restyled in place: the browser gets one update and never draws an empty
    plot in between (deleting and re-adding traces would flash a blank plot
    and let a reader, or a test, see it). Otherwise the traces are replaced.
    """
    new = list(figure.data)
    same_shape = len(new) == len(fw.data) and all(
        a.type == b.type for a, b in zip(fw.data, new))
    with fw.batch_update():
        if same_shape:
            for trace, target in zip(fw.data, new):
                _restyle(trace, target)
        else:
            fw.data = ()
            fw.add_traces(new)
        fw.layout = figure.layout
        fw.layout.width = None  # as wide as its place on the page (see workbench.ui.looks)
        fw.layout.autosize = True
        if fw.layout.title.font.size is None:  # a title that fits a phone's width
            fw.layout.title.font.size = 14


def _restyle(trace, target) -> None:
    """Make ``trace`` equal to ``target``: set what differs, clear what ``target`` lacks."""
    have = trace.to_plotly_json()
    want = target.to_plotly_json()
    for key in have.keys() - want.keys() - {"uid", "type"}:
        trace[key] = None
    trace.update(want, overwrite=True)


def figures_in(widget: W.Widget) -> Iterator[go.FigureWidget]:
    """Every ``FigureWidget`` in a widget tree."""
    if isinstance(widget, go.FigureWidget):
        yield widget
        return
    for child in getattr(widget, "children", ()) or ():
        yield from figures_in(child)


def _sync(fw: go.FigureWidget) -> None:
    # what FigureWidget._repr_mimebundle_ does when a figure is displayed alone
    fw._widget_layout = copy.deepcopy(fw._layout_obj._props)
    fw._widget_data = copy.deepcopy(fw._data)


def widgets_in(widget: W.Widget) -> Iterator[W.Widget]:
    """Every widget of a widget tree, ``widget`` first."""
    yield widget
    for child in getattr(widget, "children", ()) or ():
        if isinstance(child, W.Widget):
            yield from widgets_in(child)


def no_null_tooltips(widget: W.Widget) -> None:
    """ipywidgets shows a tooltip of ``None`` as the word "null" on the
    page: give every widget without one an empty tooltip (no tooltip)."""
    for w in widgets_in(widget):
        if w.has_trait("tooltip") and w.tooltip is None:
            w.tooltip = ""


def show_widget(widget: W.Widget) -> None:
    """Display a dashboard's widget with every figure in it up to date and no "null" tooltip."""
    from IPython.display import display
    no_null_tooltips(widget)
    for fw in figures_in(widget):
        _sync(fw)
    display(widget)

