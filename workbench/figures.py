"""What a plot of an outcome shows, as a plain plotly JSON dict (``{"data": [...], "layout": {...}}``
of lists, floats and strings, no plotly objects, no numpy): the dashboards' plot widget
(:class:`workbench.ui.plotwidget.Plot`) draws it and :mod:`workbench.export` renders the same dict
(PNG, SVG, HTML), so a plot on a page and its download never disagree. Chances are drawn on a
percentage axis (0 % .. 100 %), as every number beside the plots is written.
"""
from __future__ import annotations

import html
from typing import Any, Mapping

import numpy as np

from .errors import InputError
from .outcome import Outcome

__all__ = ["PLOT_HEIGHT", "STAGE_ROW_HEIGHT", "COLOURS", "plot_layout", "distribution", "at_least", "stages",
           "outcome_figure", "exact_bars", "sampled_dots", "at_least_line", "CHANCE_AXIS", "stage_passes",
           "stage_by_stage", "STAGE_TAIL", "side_by_side"]

#: the height of a dashboard plot, in pixels (the width follows the page)
PLOT_HEIGHT = 330
#: the height of one step's row in the stage-by-stage figure: its title, its bars, its axis
STAGE_ROW_HEIGHT = 200
_STAGE_TITLE_PX = 40
_STAGE_PLOT_PX = 110
#: the chances at the top end of a stage's counts that its chart leaves off: below one in a
#: million, invisible as a bar and 0.0 % on hover (the chart's average still counts them)
STAGE_TAIL = 1e-6

#: one colour per kind of trace, on the pages and in the exports
COLOURS = {"exact": "#4C72B0", "sampled": "#DD8452", "at_least": "#55A868", "stages": "#8172B3"}

#: a chance axis: percentages from 0 % to just over 100 %
CHANCE_AXIS = {"title": {"text": "chance"}, "tickformat": ".0%", "range": [0, 1.05], "rangemode": "tozero"}


def plot_layout(**layout: Any) -> dict[str, Any]:
    """``layout`` with the width left to the page (``autosize``) and margins that fit a phone."""
    out: dict[str, Any] = {"autosize": True, "margin": {"l": 50, "r": 12, "t": 45, "b": 45}}
    out.update(layout)
    out.pop("width", None)
    return out


def _layout(title: str, x: str, *, legend: bool = True) -> dict[str, Any]:
    return plot_layout(title={"text": title, "font": {"size": 14}}, xaxis={"title": {"text": x}, "dtick": 1},
                       yaxis=dict(CHANCE_AXIS), height=PLOT_HEIGHT, showlegend=legend,
                       legend={"x": 0.99, "xanchor": "right", "y": 0.99}, bargap=0.15, template="plotly_white")


def _check(outcome: Any, name: str = "outcome") -> Outcome:
    if not isinstance(outcome, Outcome):
        raise InputError(name, "a workbench Outcome", type(outcome).__name__)
    return outcome


def _counts(outcome: Outcome) -> list[int]:
    return list(range(outcome.pmf.size))


#: the name of the exact distribution's bars (a plot's legend; tests find the bars by it)
EXACT_BARS = "chance of exactly N"


def exact_bars(outcome: Outcome) -> dict[str, Any]:
    """Bars of the exact chance of exactly N, N = 0 .. max."""
    return {"type": "bar", "name": EXACT_BARS, "x": _counts(outcome), "y": outcome.pmf.tolist(),
            "marker": {"color": COLOURS["exact"]},
            "hovertemplate": "exactly %{x}: %{y:.1%}<extra></extra>"}


def sampled_dots(sampled: Outcome | None) -> dict[str, Any]:
    """The simulated games' chance of exactly N, each with twice its standard
    error as a bar; hidden (and empty) without simulated games."""
    dots: dict[str, Any] = {"type": "scatter", "name": "simulated (± margin)", "mode": "markers",
                            "marker": {"color": COLOURS["sampled"], "size": 8},
                            "hovertemplate": "simulated, exactly %{x}: %{y:.1%}<extra></extra>"}
    if sampled is None:
        return {**dots, "x": [], "y": [], "visible": False, "error_y": {"type": "data", "array": [], "visible": True}}
    margin = [2 * float(s) for s in sampled.pmf_stderr] if sampled.pmf_stderr is not None else [0.0] * sampled.pmf.size
    return {**dots, "x": _counts(sampled), "y": sampled.pmf.tolist(), "visible": True,
            "error_y": {"type": "data", "array": margin, "visible": True}}


def at_least_line(outcome: Outcome) -> dict[str, Any]:
    """The chance of at least N, N = 0 .. max (a line through the points)."""
    return {"type": "scatter", "name": "chance of at least N", "mode": "lines+markers",
            "x": _counts(outcome), "y": outcome.at_least_curve.clip(0, 1).tolist(),
            "line": {"shape": "linear", "color": COLOURS["at_least"]},
            "hovertemplate": "at least %{x}: %{y:.1%}<extra></extra>"}


def distribution(outcome: Outcome, sampled: Outcome | None = None) -> dict[str, Any]:
    """How many models are removed: the exact bars (and the simulated dots);
    the title carries the average."""
    o = _check(outcome)
    return {"data": [exact_bars(o), sampled_dots(sampled)],
            "layout": _layout(f"How many {o.label} (on average {o.mean:.2f})", o.label)}


def at_least(outcome: Outcome) -> dict[str, Any]:
    """The chance of at least N removed; the title carries the chance of at least one."""
    o = _check(outcome)
    one = float(o.at_least(1)) if o.pmf.size > 1 else 0.0
    return {"data": [at_least_line(o)],
            "layout": _layout(f"Chance of at least N {o.label} (at least one: {one:.1%})", f"N ({o.label})")}


def stages(outcome: Outcome) -> dict[str, Any]:
    """Each step of one attack: its chance as a bar, its fraction ("8/12") on the bar."""
    from .teach import ratio

    o = _check(outcome)
    steps = o.stages
    bar = {"type": "bar", "name": "per attack", "x": [s.name for s in steps] or ["(no steps)"],
           "y": [float(s.probability) for s in steps] or [0.0],
           "text": [ratio(s.probability, s.detail, s.faces) for s in steps] or [""],
           "customdata": [s.detail for s in steps] or [""], "textposition": "auto",
           "marker": {"color": COLOURS["stages"]},
           "hovertemplate": "%{x}: %{text} (%{y:.1%})<br>%{customdata}<extra></extra>"}
    layout = _layout("Each step of one attack", "step", legend=False)
    layout["xaxis"] = {"title": {"text": "step"}}
    return {"data": [bar], "layout": layout}


def side_by_side(outcomes: Mapping[str, Outcome | None], names: Mapping[str, str] | None = None,
                 colours: Mapping[str, str] | None = None, *, title: str = "Models removed, side by side",
                 averages: bool = False, **layout: Any) -> dict[str, Any]:
    """Several outcomes (the compare page's systems, by key) as grouped bars of the chance of exactly
    N, each named by ``names`` (default: its key; with ``averages`` its average too, for a picture
    without hover) and coloured by ``colours``; ``None`` (a system with no result yet) has no bars.
    ``layout``: more of the plot's layout (``barmode="overlay"``: one over the other)."""
    data = []
    for key, o in outcomes.items():
        name = (names or {}).get(key, key)
        if o is not None:
            _check(o, "outcomes")
        bar = {"type": "bar", "name": f"{name}: on average {o.mean:.2f}" if averages and o is not None else name,
               "x": [] if o is None else _counts(o), "y": [] if o is None else o.pmf.tolist(),
               "hovertemplate": f"{html.escape(name)}, exactly %{{x}}: %{{y:.1%}}<extra></extra>"}
        if colours:
            bar["marker"] = {"color": colours[key]}
        data.append(bar)
    axis = {k: v for k, v in CHANCE_AXIS.items() if k != "range"}
    return {"data": data, "layout": plot_layout(**{"title": {"text": title}, "barmode": "group", "yaxis": axis,
                                                   "xaxis": {"title": {"text": "models removed"}, "dtick": 1},
                                                   "template": "plotly_white", **layout})}


def outcome_figure(outcome: Outcome, title: str | None = None) -> dict[str, Any]:
    """The exported figure of one outcome: the distribution's bars and the
    at-least line (the very traces of the dashboard's two plots) under the
    outcome's title, its average and its chance per attack."""
    from .teach import title as outcome_title

    o = _check(outcome)
    fig = distribution(o)
    per = o.per_attack
    sub = f"on average {o.mean:.2f} {o.label}"
    if per is not None:
        sub = f"per attack {per} ({float(per):.1%}), " + sub
    layout = fig["layout"]
    layout["title"] = {"text": f"{title or outcome_title(o)}<br><sup>{sub}</sup>"}
    layout["xaxis"] = {"title": {"text": f"N ({o.label})"}, "dtick": 1}
    layout["legend"] = {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "right", "x": 1.0}
    layout["margin"] = {"l": 60, "r": 20, "t": 90, "b": 50}
    layout.pop("height", None)
    return {"data": [fig["data"][0], at_least_line(o)], "layout": layout}


def stage_passes(outcome: Outcome) -> tuple[tuple[str, np.ndarray], ...]:
    """Stage by stage, how many get through each step over all the attacks: ``(label, pmf)`` in
    the order of the steps, ``pmf[k]`` the exact chance that ``k`` pass it (``Outcome.stage_pmfs``;
    empty without). ``label`` is the name of the outcome's stage at the same place, what passes
    the step ("save failed"), not the roll ("save")."""
    o = _check(outcome)
    pmfs = o.stage_pmfs
    if not pmfs:
        return ()
    names = list(pmfs)
    shown = [s.name for s in o.stages]
    labels = shown if len(shown) == len(names) else names
    return tuple((label, np.asarray(pmfs[name], dtype=float)) for label, name in zip(labels, names))


def stage_by_stage(outcome: Outcome) -> dict[str, Any]:
    """Stage by stage, one small bar chart per step, one under the other (each takes a phone's
    width): the chance that exactly N of all the attacks get through, titled with
    :func:`stage_passes`'s label, the average and the chance of at least one; the top end below
    :data:`STAGE_TAIL` is left off (the average counts it). One figure: a slider move sends one
    message and an export is one picture. No ``stage_pmfs``: no traces."""
    from .teach import pct

    passes = stage_passes(outcome)
    n = max(len(passes), 1)
    area = n * STAGE_ROW_HEIGHT
    data: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    layout: dict[str, Any] = plot_layout(height=area + 12, showlegend=False, bargap=0.15, template="plotly_white",
                                         margin={"l": 50, "r": 12, "t": 6, "b": 6})
    for i, (label, pmf) in enumerate(passes):
        pmf = np.clip(pmf, 0.0, 1.0)
        shown = np.flatnonzero(pmf >= STAGE_TAIL)
        top = int(shown[-1]) + 1 if shown.size else 1
        axis = "" if i == 0 else str(i + 1)
        row = 1 - i * STAGE_ROW_HEIGHT / area          # the top of this step's row, as a fraction of the figure
        plot_top = row - _STAGE_TITLE_PX / area
        plot_bottom = plot_top - _STAGE_PLOT_PX / area
        data.append({"type": "bar", "name": label, "x": list(range(top)), "y": pmf[:top].tolist(),
                     "xaxis": f"x{axis}", "yaxis": f"y{axis}", "marker": {"color": COLOURS["stages"]},
                     "hovertemplate": "exactly %{x}: %{y:.1%}<extra></extra>"})
        layout[f"xaxis{axis}"] = {"anchor": f"y{axis}", "domain": [0, 1], "title": {"text": "how many",
                                  "standoff": 2}, **({"dtick": 1} if top <= 16 else {})}
        # the bars' own height sets the scale (a step that rarely passes still shows its shape), in percentages
        layout[f"yaxis{axis}"] = {"title": {"text": "chance"}, "tickformat": ".0%", "rangemode": "tozero",
                                  "anchor": f"x{axis}", "domain": [max(plot_bottom, 0), plot_top]}
        # the average and the chance of at least one, as the page writes chances (pct)
        title = (f"<b>{html.escape(label)}</b><br>on average {float(pmf @ np.arange(pmf.size)):.2f}"
                 f" · at least one {pct(float(pmf[1:].sum()))}")
        annotations.append({"text": title, "x": 0, "xref": "paper", "xanchor": "left",
                            "y": row, "yref": "paper", "yanchor": "top", "showarrow": False, "align": "left",
                            "font": {"size": 13}})
    layout["annotations"] = annotations
    return {"data": data, "layout": layout}
