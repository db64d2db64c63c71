"""The widget of each control spec, and a widget's value read against its spec.

:func:`make_control` builds the slider, checkbox or dropdown of one
:class:`~workbench.controls.Control` (one shared :class:`SharedLooks` per
page); :func:`declared` and :func:`enforce` hold what a viewer sends over the
page's websocket to the control's declared range, options and type (the
widget's own ``min``/``max`` are never trusted); ``_to_arg`` and
``_to_widget`` translate between a widget's value and the argument's (None
as the dropdown's "none", an optional number's "none" below its range).
"""
from __future__ import annotations

import math
from typing import Any

import ipywidgets as W
from ipywidgets.widgets.widget_bool import CheckboxStyle
from ipywidgets.widgets.widget_description import DescriptionStyle

from . import guard
from ..controls import Control


class SharedLooks:
    """One ``Layout`` and one style object per kind of control, shared by
    every control of a dashboard: a widget's layout and style are widget
    models of their own, so sharing them halves what the browser creates on
    the first render. ``width`` / ``label_width``: a control's and its
    label's width."""

    def __init__(self, width: str = "340px", label_width: str = "150px"):
        self.layout = W.Layout(width=width, max_width="100%")
        self.slider_style = W.SliderStyle(description_width=label_width)
        self.checkbox_style = CheckboxStyle()
        self.dropdown_style = DescriptionStyle(description_width=label_width)


def make_control(c: Control, looks: SharedLooks | None = None) -> W.ValueWidget:
    """The widget of one control spec, with its CSS classes:
    ``wb-control``, ``wb-control-<name>`` and ``wb-slider-<name>`` (sliders),
    ``wb-toggle-<name>`` (checkboxes) or ``wb-dropdown-<name>`` (dropdowns);
    ``<name>`` is the argument name (underscores kept). The widget takes only
    its value from the page (:class:`workbench.ui.guard.ViewerSafe`); its
    tooltip is the control's help, or none."""
    looks = looks or SharedLooks()
    bounds = _bounds(c)
    if bounds:
        text = c.text + (f" ({bounds['min']}=none)" if c.kind == "optint" else "")
        slider, more = (guard.FloatSlider, {"readout_format": ".2f"}) if c.kind == "float" else (guard.IntSlider, {})
        w = slider(value=bounds["min"] if c.default is None else c.default, continuous_update=False, description=text,
                   style=looks.slider_style, layout=looks.layout, **bounds, **more)
        kind = "slider"
    elif c.kind == "bool":
        w = guard.Checkbox(value=c.default, indent=False, description=c.text, layout=looks.layout,
                           style=looks.checkbox_style)
        kind = "toggle"
    else:
        # ipywidgets reads a None value as "nothing selected": None travels as _NONE
        w = guard.Dropdown(options=_choices(c), value=_to_widget(c, c.default), description=c.text,
                           style=looks.dropdown_style, layout=looks.layout)
        kind = "dropdown"
    w.tooltip = c.help or ""  # ipywidgets shows a None tooltip as the word "null"
    return w.add_class("wb-control").add_class(f"wb-control-{c.name}").add_class(f"wb-{kind}-{c.name}")


#: the dropdown value standing for None (an argument's "no choice", e.g. forgotten's aimed=None)
_NONE = "(none)"


def _choices(c: Control) -> list[tuple[str, Any]]:
    """A dropdown's (label, value) pairs: labels in words ("at or above"), None as "none"."""
    return [("none", _NONE) if o is None else (c.say(o), o) for o in c.options]


def _to_arg(c: Control, value: Any) -> Any:
    if isinstance(value, str) and value == _NONE:
        return None
    if c.kind == "optint":
        return None if value == int(c.bounds[0]) - 1 else int(value)
    if c.kind == "float":
        return round(float(value), 10)
    return value


def _to_widget(c: Control, value: Any) -> Any:
    if c.kind == "optint" and value is None:
        return int(c.bounds[0]) - 1
    if value is None and c.options and None in c.options:
        return _NONE
    return value


def declared(c: Control, value: Any) -> Any:
    """The widget value ``value`` read against the control's declared range
    and type: a number is clamped into ``[lo, hi]`` (whole for a whole-number
    control), anything the control cannot show (NaN, a string in a slider,
    an option it does not list) becomes its default; a whole-number control
    with steps of more than one snaps onto them."""
    bounds = _bounds(c)
    if bounds:
        lo, hi, step = bounds["min"], bounds["max"], bounds["step"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return _to_widget(c, c.default)
        value = min(max(value, lo), hi)
        if c.kind == "float":
            snapped = lo + round((value - lo) / step) * step if step else value
            return float(round(min(max(snapped, lo), hi), 10))
        return int(lo + round((value - lo) / step) * step) if step != 1 else int(round(value))
    if c.kind == "bool":
        return value if isinstance(value, bool) else c.default
    allowed = [_to_widget(c, o) for o in c.options]
    for o in allowed:
        if o == value and type(o) is type(value):
            return o
    return _to_widget(c, c.default)


def _bounds(c: Control) -> dict[str, Any]:
    """The declared ``min``/``max``/``step`` of a slider control (else {}); an optional number's
    ``min`` is one below its range: its "none"."""
    if c.kind not in ("int", "optint", "float"):
        return {}
    lo, hi = c.bounds
    if c.kind == "float":
        return dict(min=lo, max=hi, step=c.step)
    if c.kind == "optint":
        return dict(min=int(lo) - 1, max=int(hi), step=1)
    return dict(min=int(lo), max=int(hi), step=int(c.step))


def enforce(c: Control, w: W.ValueWidget) -> bool:
    """Put widget ``w`` back to what control ``c`` declares (its range, its
    options, a value it can show); returns whether anything changed. The
    caller holds its recompute while this runs."""
    changed = False
    bounds = _bounds(c)
    if bounds:
        # widen first so that the value is never clamped by a stale bound, then narrow
        if w.max != bounds["max"] or w.min != bounds["min"]:
            w.max = max(w.max, bounds["max"])
            w.min = min(w.min, bounds["min"])
            w.min, w.max = bounds["min"], bounds["max"]
            changed = True
        if w.step != bounds["step"]:
            w.step = bounds["step"]
            changed = True
    elif c.kind == "choice":
        want = _choices(c)
        if [o[1] for o in w.options] != [o[1] for o in want]:
            value = w.value
            w.options = want
            w.value = declared(c, value)
            changed = True
    value = declared(c, w.value)
    if not (value == w.value and type(value) is type(w.value)):
        w.value = value
        changed = True
    return changed
