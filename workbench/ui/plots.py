"""Live plotly figures, updated in place, and the text helpers of the plots.

:func:`live_figure` returns a ``plotly.graph_objects.FigureWidget`` (updated
in place by ``batch_update``: one message to the browser per change). Plotly
6+ builds ``FigureWidget`` on the ``anywidget`` package; when that package is
missing, :class:`FigureView` stands in with the same interface (``data``,
``layout``, ``batch_update()``, ``add_class``): it keeps a ``go.Figure`` and,
when a batch ends, replaces the plotly mime bundle of an ``ipywidgets.Output``
(rendered offline by the ``jupyterlab-plotly`` mime extension). Either way
the figure object is built once and its traces are updated, never rebuilt.
"""
from __future__ import annotations

import contextlib
import json
from fractions import Fraction
from typing import Iterator

import ipywidgets as W
import plotly.graph_objects as go
import plotly.io as pio

from ..dice import faces_text

__all__ = ["live_figure", "FigureView", "HAVE_FIGUREWIDGET", "fraction_label"]


def _have_anywidget() -> bool:
    try:
        import anywidget  # noqa: F401
    except ImportError:
        return False
    return True


HAVE_FIGUREWIDGET = _have_anywidget()

PLOTLY_MIME = "application/vnd.plotly.v1+json"


class FigureView:
    """A ``go.Figure`` shown in an ``ipywidgets.Output``; the stand-in for
    ``go.FigureWidget`` when ``anywidget`` is not installed."""

    def __init__(self, figure: go.Figure):
        self.figure = figure
        width = figure.layout.width
        self.widget = W.Output(layout=W.Layout(width=f"{int(width) + 10}px" if width else "auto"))
        self._depth = 0
        self.redraw()

    @property
    def data(self):
        return self.figure.data

    @property
    def layout(self):
        return self.figure.layout

    def add_class(self, name: str) -> "FigureView":
        self.widget.add_class(name)
        return self

    @contextlib.contextmanager
    def batch_update(self) -> Iterator[None]:
        """Change traces and layout inside; the page is redrawn once at the end."""
        self._depth += 1
        try:
            with self.figure.batch_update():
                yield
        finally:
            self._depth -= 1
        if self._depth == 0:
            self.redraw()

    def bundle(self) -> dict:
        fig = json.loads(pio.to_json(self.figure, validate=False))
        fig["config"] = {"displaylogo": False, "responsive": True}
        return {PLOTLY_MIME: fig, "text/plain": f"<figure: {self.figure.layout.title.text or ''}>"}

    def redraw(self) -> None:
        self.widget.outputs = ({"output_type": "display_data", "data": self.bundle(), "metadata": {}},)


def live_figure(figure: go.Figure) -> tuple[object, W.DOMWidget]:
    """``(figure, widget)``: the object to update (``.data``, ``.layout``,
    ``.batch_update()``) and the widget to put on the page."""
    if HAVE_FIGUREWIDGET:
        fw = go.FigureWidget(figure)
        return fw, fw
    view = FigureView(figure)
    return view, view.widget


def fraction_label(p: Fraction, die: int | None = None) -> str:
    """A stage probability as faces out of the die when it is one ("8/12"
    rather than "2/3"), else as the lowest-terms fraction ("1/100")."""
    return faces_text(Fraction(p), die) if die else str(Fraction(p))
