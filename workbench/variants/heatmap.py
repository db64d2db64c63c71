"""A change drawn: two heatmaps over the grid's two stats, the change of
expected models removed and of the chance of at least one, on a diverging
scale centred on zero (:func:`diff_figure`, :func:`figure_png`)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from .sweep import _all_cell_words, _check_diff
from .variant import Variant, _controls, _sides

__all__ = ["heatmap_values", "diff_figure", "figure_png"]


def _axis_words_of(v: Variant, name: str) -> str:
    """A stat's short name as an axis reads it ("BS", "T"), else its control's label."""
    sides = _sides(v.description, v.function)
    if name in sides:
        return sides[name][0]
    control = _controls(v.description, v.function).get(name)
    return control.label if control is not None and control.label else name.replace("_", " ")


def heatmap_values(df: pd.DataFrame) -> list[dict[str, Any]]:
    """What each of the two heatmaps of :func:`diff_figure` shows: ``z`` (the change, y down and
    x across; percentage points for the chance), ``zmin``/``zmax`` (symmetric about zero),
    ``customdata`` (each cell's stats in words, before, after), ``x`` and ``y`` (the values as
    text). A dashboard redraws by setting these on the traces it has."""
    _check_diff(df)
    keys = list(df.attrs["grid"])
    if len(keys) != 2:
        raise InputError("grid", "two stats for a heatmap", ", ".join(keys))
    xs, ys = (df.attrs["grid"][k] for k in keys)
    shape = (len(xs), len(ys))
    words = np.array(_all_cell_words(df), dtype=object).reshape(shape).T
    out = []
    for name, scale in (("mean", 1.0), ("p_at_least_1", 100.0)):
        z, before, after = ((df[f"{name}_{part}"].to_numpy() * scale).reshape(shape).T for part in ("diff", "a", "b"))
        top = float(np.max(np.abs(z))) or 1.0
        out.append(dict(z=z, zmin=-top, zmax=top, customdata=np.stack([words, before, after], axis=-1),
                        x=[str(v) for v in xs], y=[str(v) for v in ys]))
    return out


def diff_figure(df: pd.DataFrame, title: str | None = None):
    """Two heatmaps over the grid's two stats: the change of expected models removed and of the
    chance of at least one (percentage points), each on a red-blue scale centred on zero (blue:
    more removed after the change), the cells' values on hover."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    values = heatmap_values(df)
    x, y = df.attrs["grid"]
    a, b = df.attrs["a"], df.attrs["b"]
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.16, subplot_titles=(
        "change of expected models removed", "change of the chance of at least one (points)"))
    for col, (vals, name, unit) in enumerate(zip(values, ("mean", "p_at_least_1"), ("models", "points")), 1):
        fmt = ".2f" if name == "mean" else ".1f"
        fig.add_trace(go.Heatmap(
            **vals, zmid=0, colorscale="RdBu",
            colorbar=dict(x=0.43 if col == 1 else 1.0, len=0.9, title=dict(text=unit)),
            hovertemplate=(f"%{{customdata[0]}}<br>before %{{customdata[1]:{fmt}}}, after %{{customdata[2]:{fmt}}}"
                           f"<br>change %{{z:+{fmt}}} {unit}<extra></extra>"),
            name=name), row=1, col=col)
        fig.update_xaxes(title_text=_axis_words_of(a, x), type="category", row=1, col=col)
        fig.update_yaxes(title_text=_axis_words_of(a, y), type="category", row=1, col=col)
    fig.update_layout(title=dict(text=title or f"{b.name} against {a.name}"), template="plotly_white",
                      margin=dict(l=60, r=20, t=80, b=50))
    return fig


def figure_png(df: pd.DataFrame, width: int = 1000, height: int = 480) -> bytes:
    """The heatmaps of :func:`diff_figure` as PNG (kaleido, :mod:`workbench.export`)."""
    from ..export import figure_bytes
    return figure_bytes(diff_figure(df), "png", width=width, height=height)
