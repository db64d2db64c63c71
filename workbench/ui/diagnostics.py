"""The design-diagnostics dashboard: sweeps, value of +1, granularity, equivalence, points.

``DiagnosticsDashboard()`` is an ipywidgets ``VBox``: a title, an introduction that says what
each tab shows, one tab per :data:`TABS` (each a thin layer over :mod:`workbench.compare`), and
the link to its current settings: every control is a key of the query string
(``?tab=equivalence&eq_system=antares&eq_acc=7``, :mod:`workbench.ui.query`; the keys are listed
in docs/dashboards.md, "Shared links"); every callback shows a plain message on failure
(:mod:`workbench.ui.guard`).
"""
from __future__ import annotations

import functools
import html
from typing import Any

import ipywidgets as W
import pandas as pd

from .. import compare, systems
from ..controls import Control, dropdown, slider
from . import guard
from .controlwidgets import SharedLooks, make_control
from .diagwords import _relabel, _show, _table, _words, stat_labels
from .live import Page, error_html, on_page
from .looks import html_widget, page_style, row as _row
from .plotwidget import Plot
from .query import format_query, parse_controls

__all__ = ["DiagnosticsDashboard", "VALUES", "TABS"]

#: what the sweep tab can show: sweep column -> how a reader names it
VALUES = {"mean": "expected models removed", "p_at_least_1": "chance of at least 1 removed",
          "p_at_least_2": "chance of at least 2 removed", "p_at_least_3": "chance of at least 3 removed"}

#: the tabs, as the link names them, and their titles
TABS = {"sweep": "Sweep", "plus_one": "Value of +1", "granularity": "Granularity",
        "equivalence": "Equivalence", "points": "Points"}


def _with(attribute: str) -> list[str]:
    """The systems whose description has ``attribute``: ``stats`` (what the sweep and value-of-+1
    tabs show), ``equivalence_search`` (what the equivalence tab starts from)."""
    return [k for k in systems.keys() if getattr(systems.get(k), attribute)]


def _shots(desc, shots: int) -> dict[str, Any]:
    """``{"shots": shots}`` when the system's first function takes shots."""
    return {"shots": shots} if "shots" in desc.arguments(desc.modes[0].function) else {}


def _first(desc):
    """The system's first stat-level function (its first dashboard mode's)."""
    return desc.function(desc.modes[0].function)


def _view():
    """A plot of this page: the cartesian bundle (it draws the sweep's heatmap), one library for every plot."""
    return Plot(bundle="cartesian")


def _names(keys: list[str]) -> dict[str, str]:
    """System key -> how a menu of systems reads it, its name ("40k Changes")."""
    return {k: systems.get(k).name for k in keys}


def _page_controls(system: str) -> dict[str, Control]:
    """The controls of the page that follow no other choice, by link key; ``system`` is shown first."""
    from .. import points
    with_stats, with_eq = _with("stats"), _with("equivalence_search")
    return {
        "sweep_system": dropdown("sweep_system", system, with_stats, "system", "the system swept", _names(with_stats)),
        "sweep_show": dropdown("sweep_show", "mean", VALUES, "show", "what the heatmap shows", VALUES),
        "sweep_shots": slider("sweep_shots", 10, 1, 30, "shots", "shots in each sweep cell"),
        "plus_system": dropdown("plus_system", system, with_stats, "system", "the system whose stats are stepped",
                                _names(with_stats)),
        "plus_shots": slider("plus_shots", 10, 1, 30, "shots", "shots in the value-of-+1 matchup"),
        "eq_system": dropdown("eq_system", system if system in with_eq else with_eq[0], with_eq, "system",
                              "the system of the matchup", _names(with_eq)),
        "eq_shots": slider("eq_shots", 10, 1, 30, "shots", "shots in the matchup"),
        "eq_models": slider("eq_models", 5, 1, 20, "unit size", "models in the target unit"),
        "points_by": dropdown("points_by", "removed_per_100", points.BY, "rank by", "what the ranking sorts by",
                              points.BY),
    }


def _tab_update(update):
    """A tab's redraw: the link follows the controls first; nothing is drawn (None) while the page
    is held (being set up or reading a link)."""
    @functools.wraps(update)
    def run(self):
        self._update_link()
        return None if self._hold else update(self)
    return run


def _failing_in(line: str):
    """A tab's redraw whose failure is the plain message in the tab's message line ``line``."""
    return guard.guarded(lambda self, text: setattr(getattr(self, line), "value", error_html(text)))


class DiagnosticsDashboard(Page, W.VBox):
    """The tabs of design diagnostics and their link (see the module docstring); ``controls()``:
    link key -> Control for the current choices."""

    def __init__(self, system: str | None = None, *, query: str | None = None):
        system = system or _with("stats")[0]
        self._looks = SharedLooks(width="300px", label_width="110px")
        self._page = _page_controls(system)
        self._made = {k: make_control(c, self._looks) for k, c in self._page.items()}
        self._message_and_link()
        self.message = self.error
        with self.held():
            self.tabs = W.Tab(children=[self._sweep_tab(), self._plus_one_tab(),
                                        self._granularity_tab(), self._equivalence_tab(),
                                        self._points_tab()], titles=list(TABS.values()))
        self.tabs.observe(self._on_tab, "selected_index")
        intro = html_widget("wb-title", (
            "<h2>Design diagnostics</h2><p>How the systems respond to their stats. <b>Sweep</b>: "
            "expected models removed (or the chance of removing at least one, two, three) over every value "
            "of two stats. <b>Value of +1</b>: what one step better of each stat is worth. <b>Granularity</b>: "
            "how finely each system's dice can tune a chance. <b>Equivalence</b>: the settings of the other "
            "systems closest to a matchup of your choice. <b>Points</b>: the army lists' matchups ranked by models "
            "removed per 100 points (illustrative costs). Everything follows when you let go of a control; "
            "the link at the bottom brings anyone back to the same settings.</p>"))
        super().__init__([page_style(), intro, self.message, self.tabs, self.link])
        self.widget = self
        self.add_class("wb-diagnostics")
        self.update_all()
        if query is not None:
            self.apply_query(query)

    # -- the link ------------------------------------------------------------
    def controls(self) -> dict[str, Control]:
        """Every control of the page by link key (the stats follow the chosen systems)."""
        sweep_stats = tuple(s.name for s in systems.get(self.sw_system.value).stats)
        return {"tab": Control("tab", "choice", "sweep", options=tuple(TABS), help="the tab shown"), **self._page,
                "sweep_x": Control("sweep_x", "choice", sweep_stats[0], options=sweep_stats,
                                   help="the stat across the heatmap"),
                "sweep_y": Control("sweep_y", "choice", sweep_stats[-1], options=sweep_stats,
                                   help="the stat down the heatmap, one line each"),
                **self._eq_controls()}

    def _eq_controls(self) -> dict[str, Control]:
        """The equivalence tab's stat sliders' controls, from the chosen system's stats, by link key."""
        desc = systems.get(self.eq_system.value)
        labels = stat_labels(desc.key)
        return {f"eq_{s.name}": Control(f"eq_{s.name}", "int", desc.seed_matchup.get(s.name, s.values[0]),
                                        min(s.values), max(s.values), label=labels[s.name], help=s.doc)
                for s in desc.stats}

    def _widgets(self) -> dict[str, W.ValueWidget]:
        return {**self._made, "sweep_x": self.sw_x, "sweep_y": self.sw_y,
                **{f"eq_{name}": s for name, s in zip(self._eq_names, self.eq_sliders.children)}}

    def _shown(self):
        controls = self.controls()
        return [(k, controls[k], w) for k, w in self._widgets().items()]

    def values(self) -> dict[str, Any]:
        """The current settings by link key, each read against its control's declared range."""
        return {"tab": list(TABS)[self.tabs.selected_index or 0], **super().values()}

    def query_string(self) -> str:
        return format_query(self.values(), self.controls())

    def _on_tab(self, _change=None) -> None:
        if self._granularity_shown():  # drawn first, so that the refit below fits it too
            self.update_granularity()
        self.link.refit += 1  # the plots of the tab now shown were drawn while hidden
        self._update_link()

    def _granularity_shown(self) -> bool:
        return self.tabs.selected_index == list(TABS).index("granularity")

    def _update_link(self) -> None:
        if not self._hold:
            self.link.query = self.query_string()

    def _apply_query(self, qs: str, errors: list[str]) -> None:
        # the systems first: the stats a link may name depend on them
        first = parse_controls(qs, self.controls(), [])
        with self.held():
            for key, widget in (("sweep_system", self.sw_system), ("eq_system", self.eq_system)):
                if key in first and widget.value != first[key]:
                    widget.value = first[key]
                    (self._sweep_stats if key == "sweep_system" else self._eq_build)()
            values = parse_controls(qs, self.controls(), errors)
            widgets = self._widgets()
            for key, value in values.items():
                if key == "tab":
                    self.tabs.selected_index = list(TABS).index(value)
                elif key in widgets:
                    widgets[key].value = value
        self.update_all()

    def update_all(self) -> None:
        self.update_sweep()
        self.update_plus_one()
        if self._granularity_shown():  # the same for every link, and seconds of work: drawn when first shown
            self.update_granularity()
        self.update_equivalence()
        self.update_points()

    def _follow(self, widgets, *updates) -> None:
        """Each of ``widgets``, when moved, runs each of ``updates`` unless the page is being set up (held)."""
        def run(_change=None):
            if not self._hold:
                self._run(updates)
        for w in widgets:
            w.observe(run, "value")

    @on_page
    def _run(self, updates) -> None:
        self.message.value = ""
        for update in updates:
            update()

    # -- sweep -------------------------------------------------------------
    def _sweep_tab(self) -> W.Widget:
        self.sw_system, self.sw_value, self.sw_shots = (self._made[k] for k in ("sweep_system", "sweep_show",
                                                                               "sweep_shots"))
        self.sw_x, self.sw_y = (guard.Dropdown(options=[], value=None, description=text, tooltip="",
                                               style=self._looks.dropdown_style, layout=self._looks.layout)
                                for text in ("across (x)", "one line per (y)"))
        self.sw_msg = W.HTML("")
        self.sw_heat, self.sw_lines = _view(), _view()
        for w, name in ((self.sw_system, "wb-dropdown-system"), (self.sw_shots, "wb-slider-shots"),
                        (self.sw_heat, "wb-plot-heatmap"), (self.sw_lines, "wb-plot-lines")):
            w.add_class(name)
        self._sweep_stats()
        self._follow([self.sw_system], self._sweep_stats, self.update_sweep)
        self._follow([self.sw_x, self.sw_y, self.sw_value, self.sw_shots], self.update_sweep)
        controls = _row([self.sw_system, self.sw_value, self.sw_x, self.sw_y, self.sw_shots])
        return W.VBox([controls, self.sw_msg, self.sw_heat, self.sw_lines])

    def _sweep_stats(self) -> None:
        labels = stat_labels(self.sw_system.value)
        names = list(labels)
        with self.held():
            self.sw_x.options = self.sw_y.options = [(labels[n], n) for n in names]
            self.sw_x.value, self.sw_y.value = names[0], names[-1] if len(names) > 1 else names[0]

    @_tab_update
    @_failing_in("sw_msg")
    def update_sweep(self) -> pd.DataFrame | None:
        """Recompute the sweep tab; returns the sweep (None when the choice is invalid)."""
        key, x, y = self.sw_system.value, self.sw_x.value, self.sw_y.value
        if x == y:
            self.sw_msg.value = "Pick two different stats for across and down."
            return None
        desc = systems.get(key)
        grid = {**desc.seed_matchup, **_shots(desc, self.sw_shots.value),
                x: list(desc.stat(x).values), y: list(desc.stat(y).values)}
        value = self.sw_value.value
        df = compare.sweep(key, desc.modes[0].function, progress=False, **grid)
        if value not in df.columns:
            df[value] = 0.0
        labels = stat_labels(key)
        _show(self.sw_heat, compare.heatmap(df, x, y, value), labels)
        _show(self.sw_lines, compare.lines(df, x, y, value), labels)
        fixed = {k: v for k, v in desc.seed_matchup.items() if k not in (x, y, "shots")}
        words = {c.name: c for c in desc.modes[0].controls}
        self.sw_msg.value = ("The other stats stay at the basic matchup: "
                             + html.escape(", ".join(words[k].text + f" {words[k].say(v)}" if k in words
                                                     else f"{k.replace('_', ' ')} {v}"
                                                     for k, v in fixed.items())) + ".")
        return df

    # -- value of +1 ---------------------------------------------------------
    def _plus_one_tab(self) -> W.Widget:
        self.p1_system, self.p1_shots = self._made["plus_system"], self._made["plus_shots"]
        self.p1_view, self.p1_table, self.p1_doc = _view(), W.HTML(""), W.HTML("")
        self._follow([self.p1_system, self.p1_shots], self.update_plus_one)
        return W.VBox([_row([self.p1_system, self.p1_shots]), self.p1_doc, self.p1_view, self.p1_table])

    @_tab_update
    def update_plus_one(self) -> pd.DataFrame | None:
        key = self.p1_system.value
        df = compare.value_of_plus_one(key, **_shots(systems.get(key), self.p1_shots.value))
        labels = stat_labels(key)
        _show(self.p1_view, compare.value_of_plus_one_figure(df), labels)
        self.p1_doc.value = "<ul>" + "".join(
            f"<li><b>{html.escape(labels[s.name])}</b> (helps the {html.escape(s.owner)}): {html.escape(s.doc)}</li>"
            for s in systems.get(key).stats) + "</ul>"
        shown = df.assign(stat=df["stat"].map(lambda n: labels.get(n, n)),
                          step_text=df["step_text"].map(lambda t: _relabel(t, labels)))
        self.p1_table.value = _table(shown, ["stat", "owner", "step_text", "mean", "improved_mean", "delta"])
        return df

    # -- granularity -----------------------------------------------------------
    def _granularity_tab(self) -> W.Widget:
        self._granularity: pd.DataFrame | None = None  # the table drawn, once the tab is first shown
        self.gr_view, self.gr_table = _view(), W.HTML("")
        return W.VBox([self.gr_view, self.gr_table])

    @_tab_update
    def update_granularity(self) -> pd.DataFrame | None:
        """Draw the granularity of every system with a grid (once: it follows no control)."""
        if self._granularity is not None:
            return self._granularity
        table = compare.granularity_table()
        _show(self.gr_view, compare.granularity_figure())
        shown = table.copy()
        for c in ("min_step", "median_step", "max_step"):
            shown[c] = [f"{x} ({100 * float(x):.2f} %)" for x in shown[c]]
        self.gr_table.value = _table(shown, ["system", "distinct", "min_step", "median_step", "max_step"])
        self._granularity = table
        return table

    # -- equivalence -----------------------------------------------------------
    def _equivalence_tab(self) -> W.Widget:
        self.eq_system, self.eq_shots, self.eq_models = (self._made[k] for k in ("eq_system", "eq_shots",
                                                                                "eq_models"))
        self.eq_sliders, self.eq_msg, self.eq_view, self.eq_table = _row([]), W.HTML(""), _view(), W.HTML("")
        self._eq_build()
        self._follow([self.eq_system], self._eq_build, self.update_equivalence)
        self._follow([self.eq_shots, self.eq_models], self.update_equivalence)
        from .forum import ForumPanel  # a forum post of the matchup and its closest equivalents
        self.eq_forum = ForumPanel(self.equivalence_outcomes)
        return W.VBox([_row([self.eq_system, self.eq_shots, self.eq_models]), self.eq_sliders,
                       self.eq_msg, self.eq_table, self.eq_view, self.eq_forum])

    def _eq_build(self) -> None:
        sliders = [make_control(c, self._looks) for c in self._eq_controls().values()]
        self._follow(sliders, self.update_equivalence)
        self._eq_names = [info.name for info in systems.get(self.eq_system.value).stats]  # the sliders' stats
        self.eq_sliders.children = sliders

    def matchup(self) -> dict[str, Any]:
        """The equivalence tab's matchup (seed matchup + sliders)."""
        key = self.eq_system.value
        m = {**systems.get(key).seed_matchup, "shots": self.eq_shots.value, "models": self.eq_models.value}
        m.update({name: s.value for name, s in zip(self._eq_names, self.eq_sliders.children)})
        return m

    def equivalence_outcomes(self) -> dict[str, Any]:
        """The equivalence tab's matchup and the closest setting in each other
        system, as exact outcomes (what its forum post explains)."""
        key, m = self.eq_system.value, self.matchup()
        res = compare.equivalent(key, m, best=1)
        out = {f"{key} (input)": _first(systems.get(key))(**m)}
        for row in res.itertuples():
            out[f"{row.system} (closest)"] = _first(systems.get(row.system))(**row.setting)
        return out

    @_tab_update
    @_failing_in("eq_msg")
    def update_equivalence(self) -> pd.DataFrame | None:
        key, m = self.eq_system.value, self.matchup()
        res = compare.equivalent(key, m, best=3)
        labels = {**{c.name: c.text for c in systems.get(key).modes[0].controls}, **stat_labels(key)}
        self.eq_msg.value = (f"Closest settings to {html.escape(systems.get(key).name)} "
                             f"({html.escape(', '.join(f'{labels.get(k, k)} {v}' for k, v in m.items()))}); distance: "
                             f"{html.escape(compare.DISTANCE)}.")
        shown = res.copy()
        shown["setting_text"] = shown["setting_text"].map(lambda t: _words(str(t)).replace("=", " "))
        self.eq_table.value = _table(shown, ["system", "rank", "setting_text", "tv_distance", "mean",
                                             "mean_difference"])
        _show(self.eq_view, compare.equivalent_figure(key, m, res))
        return res

    # -- points ------------------------------------------------------------------
    def _points_tab(self) -> W.Widget:
        self.pt_by, self.pt_table = self._made["points_by"], W.HTML("")
        self._follow([self.pt_by], self.update_points)
        return W.VBox([self.pt_by, self.pt_table])

    @_tab_update
    def update_points(self) -> pd.DataFrame | None:
        """Every shipped matchup of the systems with army lists, ranked by points efficiency."""
        from .. import points
        df = points.rank(by=self.pt_by.value)
        self.pt_table.value = points.table_html(df)
        return df
