"""Before and after: what one rule change does, over a grid of two stats, on one page.

Two variants of a rule system (:mod:`workbench.variants`, ``changes:heavy_shot=flat_4``): the
change of expected models removed and of the chance of at least one as two heatmaps, the
verdict, the matchups that move most and a forum post; the page and its link
(``?a=...&b=...&x=bs:1..12&y=t:-2..4&shots=10``) are docs/dashboards.md, "Before and after".
A served page reads only registered systems (never a file path) from a link; in JupyterLab a
variant may also be a rule file's path, or a :class:`~workbench.variants.Variant`.
"""
from __future__ import annotations

import html
import urllib.parse
from dataclasses import replace
from typing import Any

import ipywidgets as W

from .. import variants
from ..controls import Control
from ..errors import InputError, WorkbenchError
from ..variants import Variant
from ..variants.heatmap import _axis_words_of
from ..variants.movers import MOVER_HEAD, _profile_matchups, mover_rows
from ..variants.sweep import _common
from ..variants.variant import _controls, _is_path
from . import guard
from .live import LiveDashboard
from .looks import html_widget, row, table_html
from .plotwidget import Plot
from .query import parse_controls, split_query

__all__ = ["BeforeAfterDashboard", "DEFAULT_A", "DEFAULT_B", "DEFAULT_GRID", "GRID_CELLS"]

DEFAULT_A = "changes:weapon=heavy,action=shot"
DEFAULT_B = "changes:weapon=heavy,action=shot,heavy_shot=flat_4"
DEFAULT_GRID = {"bs": list(range(1, 13)), "t": list(range(-2, 5))}
#: at most this many values along each axis of the grid
GRID_CELLS = 40
#: the link's own keys (the rest are the matchup's sliders)
_KEYS = ("a", "b", "x", "y")


def _variant(x: Any, role: str, paths: bool) -> Variant:
    if isinstance(x, Variant):
        return x
    if not isinstance(x, str):
        raise InputError(role, "a variant written like changes:heavy_shot=flat_4", type(x).__name__)
    head = x.strip().partition(":")[0]
    if not paths and _is_path(head):
        raise InputError(role, "a system's name, optionally with settings: changes:heavy_shot=flat_4", head,
                         "a page reads no file from a link")
    return Variant.parse(x)


def _free(a: Variant, b: Variant) -> dict[str, Control]:
    """The controls of the stats both variants take and neither fixes."""
    fixed = {k for v in (a, b) for k, _ in v.settings}
    common = set(_common(a, b))
    return {k: c for k, c in _controls(a.description, a.function).items() if k in common and k not in fixed}


def _grid_stats(a: Variant, b: Variant) -> list[str]:
    """The stats a grid may step through: whole-number stats both take and neither fixes."""
    return [k for k, c in _free(a, b).items() if c.kind == "int"]


def _axis_values(v: Variant, name: str) -> list[int]:
    """A stat's default range on an axis: the diagnostics' range, else its control's, at most GRID_CELLS values."""
    d = v.description
    for s in d.stats:
        if s.name == name:
            return list(s.values)[:GRID_CELLS]
    c = _controls(d, v.function)[name]
    if c.lo is None or c.hi is None:
        raise InputError(name, "a stat with a range of values to lay along an axis", c.label)
    return list(range(int(c.lo), int(c.hi) + 1))[:GRID_CELLS]


def _parse_axis(v: Variant, role: str, text: str, stats: list[str]) -> tuple[str, list[int]]:
    name, _, span = text.partition(":")
    name = name.strip()
    if name not in stats:
        raise InputError(role, "one of " + ", ".join(stats), name)
    if not span.strip():
        return name, _axis_values(v, name)
    values = variants.parse_range(name, span.strip())
    control = _controls(v.description, v.function)[name]
    values = [control.check(x) for x in values]
    if len(values) > GRID_CELLS:
        raise InputError(role, f"at most {GRID_CELLS} values", f"{len(values)} values")
    return name, values


def _span(values: list[int]) -> str:
    if len(values) > 1 and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}..{values[-1]}"
    return ",".join(str(x) for x in values)


class BeforeAfterDashboard(LiveDashboard):
    """Two variants over a grid: ``fig`` (the two heatmaps, class ``wb-diff-heatmap``),
    ``verdict`` (``wb-verdict``), ``movers`` (the table, ``wb-movers-table``), ``sliders``
    (name -> slider of each matchup stat, class ``wb-slider-<name>``), ``x_axis`` / ``y_axis``
    (the stats across and down), ``error``, ``link``; ``frame`` is the last
    :func:`workbench.variants.diff`.

    ``a`` and ``b`` may be rule files' paths; ``paths``: whether a link's may too (False: a
    served page never reads a file named by a link).
    """

    def __init__(self, a: Any = DEFAULT_A, b: Any = DEFAULT_B, grid: dict[str, Any] | None = None, *,
                 query: str | None = None, paths: bool = False):
        self.paths = paths
        self.frame = None
        self._movers: tuple[tuple[Variant, Variant], Any] | None = None
        self.names, self.verdict, self.movers = map(html_widget, ("wb-variants", "wb-verdict", "wb-movers-table"))
        self._message_and_link()
        self.x_axis, self.y_axis = (guard.Dropdown(options=[("", "")], description=text,
                                                   tooltip="the stat the grid steps through").add_class("wb-axis")
                                    for text in ("across", "down"))
        for w in (self.x_axis, self.y_axis):
            w.observe(self._on_change, names="value")
        self.sliders: dict[str, W.ValueWidget] = {}
        self.slider_box = row([], "wb-controls")
        self.fig = Plot(bundle="cartesian").add_class("wb-diff-heatmap")
        from .forum import _FORMATS, PostTabs
        self.posts = PostTabs(_FORMATS[1:], tooltip="Markdown and BBCode of this change, and its heatmaps as a picture")
        self.posts.button.on_click(lambda _b: self.post())
        intro = ("<h2>Before and after</h2><p>What one rule change does: the change of the expected "
                 "number of models removed, and of the chance of removing at least one, at every point "
                 "of a grid of two stats. Blue: more models removed after the change; red: fewer. "
                 "Point at a cell for its numbers.</p>")
        self._page("before-after", intro, [self.names, W.HBox([self.x_axis, self.y_axis]),
                                           self.slider_box, self.error, self.verdict, self.fig, self.movers, self.link,
                                           self.posts])
        self._build(_variant(a, "a", True), _variant(b, "b", True), grid)  # the designer's own code
        self.refresh()
        if query is not None:
            self.apply_query(query)

    # -- the variants and their controls -----------------------------------
    def _build(self, a: Variant, b: Variant, grid: dict[str, Any] | None = None) -> None:
        """Controls for the variants ``a`` and ``b`` (and the grid's two stats)."""
        stats = _grid_stats(a, b)
        if len(stats) < 2:
            raise InputError("b", "a variant sharing at least two whole-number stats with the first", b.name)
        grid = dict(grid or (DEFAULT_GRID if all(k in stats for k in DEFAULT_GRID) else {}))
        keys = list(grid) or stats[:2]
        if len(keys) != 2:
            raise InputError("grid", "two stats, across and down", ", ".join(keys))
        self.a, self.b = a, b
        self.stats = stats
        self.axis_values = {k: (list(grid[k]) if k in grid else _axis_values(a, k)) for k in stats}
        seed = a.description.seed_matchup
        self.controls: dict[str, Control] = {k: replace(c, default=c.check(seed.get(k, c.default)))
                                             for k, c in _free(a, b).items() if c.kind in ("int", "optint")}
        with self.held():
            options = [(_axis_words_of(a, k), k) for k in stats]
            self.x_axis.options, self.y_axis.options = options, options
            self.x_axis.value, self.y_axis.value = keys
        self.sliders = self._controls(self.controls)
        self.slider_box.children = list(self.sliders.values())
        self._movers = None
        self.names.value = (f"<p><b>Before:</b> {html.escape(a.name)}<br><b>After:</b> {html.escape(b.name)}</p>")

    # -- reading -----------------------------------------------------------
    def axes(self) -> tuple[str, str]:
        x, y = self.x_axis.value, self.y_axis.value
        if x not in self.stats:
            x = self.stats[0]
        if y not in self.stats or y == x:
            y = next(k for k in self.stats if k != x)
        return x, y

    def grid(self) -> dict[str, list[int]]:
        x, y = self.axes()
        return {x: self.axis_values[x], y: self.axis_values[y]}

    def matchup(self) -> dict[str, Any]:
        grid = self.grid()
        return {k: v for k, v in self.values().items() if k not in grid}

    def query_string(self) -> str:
        x, y = self.axes()
        pairs = [("a", self.a.spec), ("b", self.b.spec), ("x", f"{x}:{_span(self.axis_values[x])}"),
                 ("y", f"{y}:{_span(self.axis_values[y])}")]
        pairs += [(k, self.controls[k].format(v)) for k, v in self.matchup().items()]
        return "?" + urllib.parse.urlencode(pairs, safe=":,=")

    # -- writing -----------------------------------------------------------
    def set_values(self, **values: Any) -> bool:
        self._set(values, self.controls, self.sliders)
        return self.frame is not None

    def _apply_query(self, qs: str, errors: list[str]) -> None:
        """Both variants, the grid's stats and ranges, the matchup's values."""
        pairs, rest = split_query(qs, _KEYS)
        own = dict(reversed(pairs))
        pair = {"a": self.a, "b": self.b}
        for role in pair:
            if role in own:
                try:
                    pair[role] = _variant(own[role], role, self.paths)
                except WorkbenchError as exc:
                    errors.append(str(exc))
        a, b = pair["a"], pair["b"]
        axes = {}
        for role in ("x", "y"):
            if role in own:
                try:
                    axes[role] = _parse_axis(a, role, own[role], _grid_stats(a, b))
                except WorkbenchError as exc:
                    errors.append(str(exc))
        with self.hold():
            try:
                grid = None
                if axes:
                    x = axes.get("x", (self.axes()[0], None))
                    y = axes.get("y", (self.axes()[1], None))
                    grid = {n: vals if vals is not None else _axis_values(a, n) for n, vals in (x, y)}
                if (a, b) != (self.a, self.b) or (grid is not None and grid != self.grid()):  # else: shown already
                    self._build(a, b, grid)
            except WorkbenchError as exc:
                errors.append(str(exc))
            values = parse_controls(rest, self.controls, errors)
            if values:
                self.set_values(**values)

    # -- the one recompute -------------------------------------------------
    def _recompute(self) -> bool:
        """Two sweeps over the grid, then the heatmaps, the verdict and the movers."""
        self.enforce()
        df = variants.diff(self.a, self.b, grid=self.grid(), matchup=self.matchup())
        self.frame = df
        figure = variants.diff_figure(df, title=" ")  # with the same two axes only the cells' values travel
        figure.update_layout(height=460)
        self.fig.show(figure)
        self.verdict.value = f"<p><b>{html.escape(variants.verdict(df))}</b></p>"
        self.movers.value = _movers_html(self._mover_table(df))
        self.link.query = self.query_string()
        self.error.value = ""
        return True

    def _mover_table(self, df):
        pair = (self.a, self.b)
        if self._movers is not None and self._movers[0] == pair:
            return self._movers[1]
        table = variants.movers(self.a, self.b, df)
        if _profile_matchups(self.a, self.b):  # profile matchups: they do not follow the sliders
            self._movers = (pair, table)
        return table

    # -- the forum post ----------------------------------------------------
    def post(self, images: bool = True) -> dict[str, Any]:
        """Markdown and BBCode of the current change, and (``images``) its heatmaps as PNG."""
        from .forum import file_link
        posts = self.posts
        if self.frame is None:
            posts.status.value = "<span style='color:#b00'>Nothing to post: no result yet.</span>"
            return {}
        table = self._mover_table(self.frame)
        posts.outputs = {}
        posts._set_text("markdown", variants.to_markdown(self.frame, table), "before-and-after.md")
        posts._set_text("bbcode", variants.to_bbcode(self.frame, table), "before-and-after.bbcode.txt")
        links = ""
        if images:
            posts.status.value = "Rendering the picture…"
            try:
                posts.outputs["png"] = variants.figure_png(self.frame)
            except WorkbenchError as exc:
                links = f"<span style='color:#b00'>(no picture: {html.escape(str(exc))})</span>"
            else:
                links = "Picture: " + file_link(posts.outputs["png"], "before-and-after.png", "PNG")
        posts.links.value = links
        posts.status.value = "Ready: copy a tab or download the picture."
        return dict(posts.outputs)


def _movers_html(table) -> str:
    if not len(table):
        return "<p>No matchup moves.</p>"
    rows = ([html.escape(c) for c in row] for row in mover_rows(table))
    return ("<p><b>The matchups that move most</b> (expected models removed)</p>"
            + table_html(MOVER_HEAD, rows, "wb-movers", wrap=False))

