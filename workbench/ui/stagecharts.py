"""The "Stage by stage" section of a system's page: one small bar chart per step of the attack
(:func:`workbench.figures.stage_by_stage`, the description the exports draw too), folded and
costing nothing until a viewer opens it; docs/dashboards.md, "Stage by stage", says what it
shows and what it costs.
"""
from __future__ import annotations

from typing import Callable

import ipywidgets as W

from .. import figures
from ..outcome import Outcome
from . import guard
from .plotwidget import Feed, Plot

__all__ = ["StageCharts", "SECTION_TITLE"]

#: the folded section's title, as a playtester reads it
SECTION_TITLE = "Stage by stage: how many get through each step"


class StageCharts:
    """The folded section (``widget``, CSS class ``wb-stage-section``) and its
    plot (``plot``, CSS class ``wb-plot-stage``, None until the section is
    first opened: a chart per step of the outcome on show). :meth:`show`
    gives it each new outcome; ``opened`` says whether a viewer has it open;
    ``on_error(text)`` shows a message when drawing on opening fails;
    ``feed``: the page's :class:`~workbench.ui.plotwidget.Feed`, which then
    carries the plot's numbers."""

    def __init__(self, on_error: Callable[[str], None] = lambda text: None, feed: Feed | None = None) -> None:
        self._on_error = on_error
        self._feed = feed
        self.box = W.Box([], layout=W.Layout(display="flex", max_width="100%")).add_class("wb-stage-charts")
        note = W.HTML("<p class='wb-stage-note'>For each step, the chance that exactly that many of all the "
                      "attacks get through it; a step passed on a failed roll is named by what gets through "
                      "(a save the target fails).</p>")
        self.widget = guard.Accordion(children=[W.VBox([note, self.box])], selected_index=None,
                                      layout=W.Layout(display="none", max_width="100%")).add_class("wb-stage-section")
        self.widget.set_title(0, SECTION_TITLE)
        self.plot: Plot | None = None
        self._outcome: Outcome | None = None
        self._drawn: Outcome | None = None
        self.widget.observe(self._on_open, names="selected_index")

    @property
    def opened(self) -> bool:
        return self.widget.selected_index == 0

    def show(self, outcome: Outcome) -> None:
        """The outcome on show: drawn now when the section is open, else when it is opened."""
        self._outcome = outcome
        display = "" if outcome.stage_pmfs else "none"
        if self.widget.layout.display != display:
            self.widget.layout.display = display
        self._draw()

    @guard.guarded(lambda self, text: self._on_error(text))
    def _on_open(self, _change=None) -> None:
        self._draw()

    def _draw(self) -> None:
        out = self._outcome
        if not self.opened or out is None or out is self._drawn or not out.stage_pmfs:
            return
        figure = figures.stage_by_stage(out)
        if self.plot is None:
            self.plot = Plot(figure, bundle="basic", feed=self._feed).add_class("wb-plot-stage")
            self.box.children = (self.plot,)
        else:
            self.plot.show(figure, plain=True)
        self._drawn = out
