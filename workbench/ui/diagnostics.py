"""The design-diagnostics dashboard: sweeps, value of +1, granularity, equivalence.

``DiagnosticsDashboard()`` is an ipywidgets ``VBox`` of four tabs, each a
thin layer over :mod:`workbench.compare`:

* **Sweep**: a system, two of its stats (x and y), the value shown (expected
  removals or P(at least k)) and the number of shots; a heatmap over (x, y)
  and lines of the value against x, one per y. The other stats stay at the
  system's seed matchup (its description's ``seed_matchup``).
* **Value of +1**: per system, how much one step of each stat (in the
  direction that helps its owner) changes expected removals, as a plot and a
  table.
* **Granularity**: the distinct per-attack probabilities of every system and
  the steps between them.
* **Equivalence**: sliders for one system's matchup; the closest settings in
  the other systems (total variation distance) as a table and bar plot.

Every plot is one ``FigureWidget`` whose content is replaced in place
(:func:`workbench.ui.plots.replace_figure`), so the page works offline in Voila.
"""
from __future__ import annotations

import html
from typing import Any

import ipywidgets as W
import pandas as pd

from .. import compare, systems
from ..errors import WorkbenchError
from .plots import figure_widget, replace_figure, show_widget

__all__ = ["DiagnosticsDashboard", "VALUES"]

#: what the sweep tab can show
VALUES = {"expected removals": "mean", "P(at least 1)": "p_at_least_1", "P(at least 2)": "p_at_least_2",
          "P(at least 3)": "p_at_least_3"}


def _with_stats() -> list[str]:
    """The systems the sweep and value-of-+1 tabs can show: those with diagnostics stats."""
    return [k for k in systems.keys() if systems.get(k).stats]


def _shots(desc, shots: int) -> dict[str, int]:
    """``{"shots": shots}`` when the system's first function takes shots."""
    return {"shots": shots} if "shots" in desc.arguments(desc.modes[0].function) else {}


def _table(df: pd.DataFrame, columns: list[str], floats: str = "{:.4f}") -> str:
    shown = df[columns].copy()
    for c in shown.columns:
        if shown[c].dtype.kind == "f":
            shown[c] = shown[c].map(lambda x: floats.format(x))
        else:
            shown[c] = shown[c].map(str)
    return shown.to_html(index=False, escape=True, classes="wb-table", border=0)


_view = figure_widget
_show = replace_figure


def _error(box: W.HTML, exc: Exception) -> None:
    box.value = f"<span style='color:#b00'>{html.escape(str(exc))}</span>"


class DiagnosticsDashboard(W.VBox):
    """Four tabs of design diagnostics; see the module docstring."""

    def __init__(self, system: str | None = None):
        system = system or systems.keys()[0]
        self.message = W.HTML("")
        self.tabs = W.Tab(children=[self._sweep_tab(system), self._plus_one_tab(system),
                                    self._granularity_tab(), self._equivalence_tab(system), self._points_tab()])
        for i, name in enumerate(("Sweep", "Value of +1", "Granularity", "Equivalence", "Points")):
            self.tabs.set_title(i, name)
        super().__init__([W.HTML("<h2>Design diagnostics</h2>"), self.message, self.tabs])
        self.add_class("wb-diagnostics")
        self.update_sweep()
        self.update_plus_one()
        self.update_granularity()
        self.update_equivalence()
        self.update_points()

    # -- sweep -------------------------------------------------------------
    def _sweep_tab(self, system: str) -> W.Widget:
        self.sw_system = W.Dropdown(options=list(_with_stats()), value=system, description="system")
        self.sw_x = W.Dropdown(description="x")
        self.sw_y = W.Dropdown(description="y")
        self.sw_value = W.Dropdown(options=list(VALUES), value="expected removals", description="show")
        self.sw_shots = W.IntSlider(value=10, min=1, max=30, description="shots", continuous_update=False)
        self.sw_msg = W.HTML("")
        self.sw_heat, self.sw_lines = _view(), _view()
        for w, name in ((self.sw_system, "wb-dropdown-system"), (self.sw_shots, "wb-slider-shots"),
                        (self.sw_heat, "wb-plot-heatmap"), (self.sw_lines, "wb-plot-lines")):
            w.add_class(name)
        self._sweep_stats()
        self.sw_system.observe(lambda _c: (self._sweep_stats(), self.update_sweep()), "value")
        for w in (self.sw_x, self.sw_y, self.sw_value, self.sw_shots):
            w.observe(lambda _c: self.update_sweep(), "value")
        controls = W.HBox([W.VBox([self.sw_system, self.sw_value]), W.VBox([self.sw_x, self.sw_y]),
                           W.VBox([self.sw_shots])])
        return W.VBox([controls, self.sw_msg, self.sw_heat, self.sw_lines])

    def _sweep_stats(self) -> None:
        names = [s.name for s in systems.get(self.sw_system.value).stats]
        self._busy = True
        self.sw_x.options, self.sw_y.options = names, names
        self.sw_x.value, self.sw_y.value = names[0], names[-1] if len(names) > 1 else names[0]
        self._busy = False

    def update_sweep(self) -> pd.DataFrame | None:
        """Recompute the sweep tab; returns the sweep (None when the choice is invalid)."""
        if getattr(self, "_busy", False):
            return None
        key, x, y = self.sw_system.value, self.sw_x.value, self.sw_y.value
        if x == y:
            self.sw_msg.value = "Pick two different stats for x and y."
            return None
        desc = systems.get(key)
        grid = {**desc.seed_matchup, **_shots(desc, self.sw_shots.value),
                x: list(desc.stat(x).values), y: list(desc.stat(y).values)}
        value = VALUES[self.sw_value.value]
        try:
            df = compare.sweep(key, desc.modes[0].function, progress=False, **grid)
            if value not in df.columns:
                df[value] = 0.0
            _show(self.sw_heat, compare.heatmap(df, x, y, value))
            _show(self.sw_lines, compare.lines(df, x, y, value))
        except WorkbenchError as exc:
            _error(self.sw_msg, exc)
            return None
        fixed = {k: v for k, v in desc.seed_matchup.items() if k not in (x, y, "shots")}
        self.sw_msg.value = ("Other stats at the seed matchup: "
                             + html.escape(", ".join(f"{k}={v}" for k, v in fixed.items())))
        return df

    # -- value of +1 ---------------------------------------------------------
    def _plus_one_tab(self, system: str) -> W.Widget:
        self.p1_system = W.Dropdown(options=list(_with_stats()), value=system, description="system")
        self.p1_shots = W.IntSlider(value=10, min=1, max=30, description="shots", continuous_update=False)
        self.p1_view = _view()
        self.p1_table = W.HTML("")
        self.p1_doc = W.HTML("")
        for w in (self.p1_system, self.p1_shots):
            w.observe(lambda _c: self.update_plus_one(), "value")
        return W.VBox([W.HBox([self.p1_system, self.p1_shots]), self.p1_doc, self.p1_view,
                       self.p1_table])

    def update_plus_one(self) -> pd.DataFrame:
        key = self.p1_system.value
        df = compare.value_of_plus_one(key, **_shots(systems.get(key), self.p1_shots.value))
        _show(self.p1_view, compare.value_of_plus_one_figure(df))
        self.p1_doc.value = "<ul>" + "".join(
            f"<li><b>{html.escape(s.name)}</b> ({s.owner}): {html.escape(s.doc)}</li>"
            for s in systems.get(key).stats) + "</ul>"
        self.p1_table.value = _table(df, ["stat", "owner", "step_text", "mean", "improved_mean", "delta"])
        return df

    # -- granularity -----------------------------------------------------------
    def _granularity_tab(self) -> W.Widget:
        self.gr_view = _view()
        self.gr_table = W.HTML("")
        return W.VBox([self.gr_view, self.gr_table])

    def update_granularity(self) -> pd.DataFrame:
        table = compare.granularity_table()
        _show(self.gr_view, compare.granularity_figure())
        shown = table.copy()
        for c in ("min_step", "median_step", "max_step"):
            shown[c] = [f"{x} ({100 * float(x):.2f} %)" for x in shown[c]]
        self.gr_table.value = _table(shown, ["system", "distinct", "min_step", "median_step", "max_step"])
        return table

    # -- equivalence -----------------------------------------------------------
    def _equivalence_tab(self, system: str) -> W.Widget:
        self.eq_system = W.Dropdown(options=[k for k in systems.keys() if systems.get(k).equivalence_search],
                                    value=system, description="system")
        self.eq_shots = W.IntSlider(value=10, min=1, max=30, description="shots", continuous_update=False)
        self.eq_models = W.IntSlider(value=5, min=1, max=20, description="models", continuous_update=False)
        self.eq_sliders = W.VBox([])
        self.eq_msg = W.HTML("")
        self.eq_view = _view()
        self.eq_table = W.HTML("")
        self._eq_build()
        self.eq_system.observe(lambda _c: (self._eq_build(), self.update_equivalence()), "value")
        for w in (self.eq_shots, self.eq_models):
            w.observe(lambda _c: self.update_equivalence(), "value")
        from .forum import ForumPanel  # a forum post of the matchup and its closest equivalents
        self.eq_forum = ForumPanel(self.equivalence_outcomes)
        return W.VBox([W.HBox([W.VBox([self.eq_system, self.eq_shots, self.eq_models]), self.eq_sliders]),
                       self.eq_msg, self.eq_table, self.eq_view, self.eq_forum])

    def _eq_build(self) -> None:
        key = self.eq_system.value
        base = systems.get(key).seed_matchup
        sliders = []
        for info in systems.get(key).stats:
            name = info.name
            start = base.get(name, info.values[0])
            s = W.IntSlider(value=start, min=min(info.values), max=max(info.values), description=name,
                            continuous_update=False)
            s.observe(lambda _c: self.update_equivalence(), "value")
            sliders.append(s)
        self.eq_sliders.children = sliders

    def matchup(self) -> dict[str, Any]:
        """The equivalence tab's matchup (seed matchup + sliders)."""
        key = self.eq_system.value
        m = {**systems.get(key).seed_matchup, "shots": self.eq_shots.value, "models": self.eq_models.value}
        m.update({s.description: s.value for s in self.eq_sliders.children})
        return m

    def equivalence_outcomes(self) -> dict[str, Any]:
        """The equivalence tab's matchup and the closest setting in each other
        system, as exact outcomes (what its forum post explains)."""
        key, m = self.eq_system.value, self.matchup()
        res = compare.equivalent(key, m, best=1)
        first = systems.get(key).modes[0].function
        out = {f"{key} (input)": systems.get(key).function(first)(**m)}
        for row in res.itertuples():
            other = systems.get(row.system)
            out[f"{row.system} (closest)"] = other.function(other.modes[0].function)(**row.setting)
        return out

    def update_equivalence(self) -> pd.DataFrame | None:
        key, m = self.eq_system.value, self.matchup()
        try:
            res = compare.equivalent(key, m, best=3)
        except WorkbenchError as exc:
            _error(self.eq_msg, exc)
            return None
        self.eq_msg.value = (f"Closest settings to {html.escape(key)} "
                             f"({html.escape(', '.join(f'{k}={v}' for k, v in m.items()))}); distance: "
                             f"{html.escape(compare.DISTANCE)}.")
        self.eq_table.value = _table(res, ["system", "rank", "setting_text", "tv_distance", "mean",
                                           "mean_difference"])
        _show(self.eq_view, compare.equivalent_figure(key, m, res))
        return res

    # -- points ------------------------------------------------------------------
    def _points_tab(self) -> W.Widget:
        from .. import points
        self.pt_by = W.Dropdown(options={v: k for k, v in points.BY.items()}, value="removed_per_100",
                                description="rank by", style={"description_width": "initial"})
        self.pt_table = W.HTML("")
        self.pt_by.observe(lambda _c: self.update_points(), "value")
        return W.VBox([self.pt_by, self.pt_table])

    def update_points(self) -> pd.DataFrame:
        """Every shipped matchup of the four systems ranked by points efficiency."""
        from .. import points
        df = points.rank(by=self.pt_by.value)
        self.pt_table.value = points.table_html(df)
        return df

    def show(self):
        show_widget(self)
        return self
