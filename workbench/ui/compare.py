"""The four systems side by side: one matchup, shared concepts, overlaid results.

Each system starts from its basic matchup (``workbench.profiles.BASIC_MATCHUPS``:
a basic trooper firing its basic gun at a basic trooper). The shared concept
sliders move each system's **own** stat by one step per notch, in the
direction that means the same thing everywhere:

============ ========================= ========================= ======================= ======================
concept      changes (D12, N+)         forgotten (d10)           gunfire (opposed d10)   antares (d10 under)
============ ========================= ========================= ======================= ======================
accuracy +1  BS −1 (5+ -> 4+)          SHOOT −1                  BS +1                   Acc +1
penetr. +1   AP −1 (5+ -> 4+)          ATTACK POWER −1           AP +1                   SV +1
toughness +1 T +1 (+2 -> +3)           armour one step           T +1                    Res +1
                                       (none -> light -> heavy)
cover +1     cover +1 (+0 -> +1)       cover one step (open ->   hit_mod +1 (added to    cover +1
                                       in cover & soft -> in     Ev)
                                       cover & hard)
============ ========================= ========================= ======================= ======================

"accuracy" and "penetration" +1 favour the firer; "toughness" and "cover" +1
favour the target. ``shots`` and ``models`` (unit size) are the same number in
every system. A step that leaves a system's allowed range shows that system's
error and keeps its previous result; the other systems carry on.
"""
from __future__ import annotations

import html
import inspect
from dataclasses import dataclass
from typing import Any

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from .. import systems, teach
from ..errors import InputError, WorkbenchError
from ..outcome import Outcome
from . import guard
from .link import LinkBar
from .live import LiveDashboard
from .looks import page_style, plot_layout
from .plots import live_figure
from .specs import Control

__all__ = ["Step", "CONCEPTS", "COMPARE_CONTROLS", "CompareDashboard", "base_kwargs", "compare_kwargs",
           "stat_text"]

COLORS = {"changes": "#4C72B0", "forgotten": "#DD8452", "gunfire": "#55A868", "antares": "#C44E52"}


@dataclass(frozen=True)
class Step:
    """How one concept moves one system's stat: ``stat`` (argument name)
    changes by ``sign`` per notch; or, with ``ladder``, the arguments move
    along an ordered list of settings. ``style``: how the value is written
    ("plus" = roll stat "5+", "mod" = modifier "+2", "plain")."""

    stat: str
    label: str
    sign: int = 1
    style: str = "plain"
    ladder: tuple[tuple[tuple[str, Any], ...], ...] = ()


_FORGOTTEN_COVER = (
    (("cover", False), ("cover_level", "none")),
    (("cover", True), ("cover_level", "soft")),
    (("cover", True), ("cover_level", "hard")),
)
_FORGOTTEN_ARMOUR = tuple(((("armour", a),) for a in ("none", "light", "heavy")))

#: concept -> system -> Step (see the module docstring for the table)
CONCEPTS: dict[str, dict[str, Step]] = {
    "accuracy": {
        "changes": Step("bs", "BS", -1, "plus"),
        "forgotten": Step("shoot", "SHOOT", -1),
        "gunfire": Step("bs", "BS", +1),
        "antares": Step("acc", "Acc", +1),
    },
    "penetration": {
        "changes": Step("ap", "AP", -1, "plus"),
        "forgotten": Step("attack_power", "ATTACK POWER", -1),
        "gunfire": Step("ap", "AP", +1),
        "antares": Step("sv", "SV", +1),
    },
    "toughness": {
        "changes": Step("t", "T", +1, "mod"),
        "forgotten": Step("armour", "armour", +1, ladder=_FORGOTTEN_ARMOUR),
        "gunfire": Step("t", "T", +1),
        "antares": Step("res", "Res", +1),
    },
    "cover": {
        "changes": Step("cover", "cover", +1, "mod"),
        "forgotten": Step("cover_level", "cover", +1, ladder=_FORGOTTEN_COVER),
        "gunfire": Step("hit_mod", "hit_mod", +1, "mod"),
        "antares": Step("cover", "cover", +1),
    },
}

#: the compare dashboard's own controls (also its query-string keys)
COMPARE_CONTROLS: dict[str, Control] = {c.name: c for c in (
    Control("accuracy", "int", 0, -4, 4, label="accuracy", help="+1 = the firer hits more easily"),
    Control("penetration", "int", 0, -4, 4, label="penetration", help="+1 = the weapon beats armour more easily"),
    Control("toughness", "int", 0, -2, 4, label="toughness / resist", help="+1 = the target is tougher"),
    Control("cover", "int", 0, 0, 2, label="cover", help="+1 = the target is better covered"),
    Control("shots", "int", 10, 1, 40, label="shots"),
    Control("models", "int", 5, 1, 20, label="unit size"),
)}


def base_kwargs(system: str) -> dict[str, Any]:
    """The stat-level arguments of the system's basic matchup (from profiles)."""
    from .. import profiles
    attacker, weapon, target = profiles.basic_matchup(system)
    return profiles.matchup_kwargs(system, attacker, weapon, target)


def _default(system: str, name: str) -> Any:
    fn = systems.get(system).shooting
    p = inspect.signature(fn).parameters[name]
    return p.default


def compare_kwargs(system: str, base: dict[str, Any], *, accuracy: int = 0, penetration: int = 0,
                   toughness: int = 0, cover: int = 0, shots: int | None = None,
                   models: int | None = None) -> dict[str, Any]:
    """``base`` with each concept moved by its number of steps (and shots,
    models set). A ladder step past its end raises
    :class:`~workbench.errors.InputError` naming the concept."""
    out = dict(base)
    for concept, offset in (("accuracy", accuracy), ("penetration", penetration),
                            ("toughness", toughness), ("cover", cover)):
        step = CONCEPTS[concept][system]
        if step.ladder:
            names = [k for k, _ in step.ladder[0]]
            current = tuple((k, out.get(k, _default(system, k))) for k in names)
            start = step.ladder.index(current) if current in step.ladder else 0
            i = start + step.sign * offset
            if not 0 <= i < len(step.ladder):
                raise InputError(concept, f"a step from {-start} to {len(step.ladder) - 1 - start} for {system}",
                                 offset, f"{system} has {len(step.ladder)} {step.label} settings")
            out.update(dict(step.ladder[i]))
        else:
            out[step.stat] = out.get(step.stat, _default(system, step.stat)) + step.sign * offset
    if shots is not None:
        out["shots"] = shots
    if models is not None:
        out["models"] = models
    return out


def stat_text(system: str, concept: str, kwargs: dict[str, Any]) -> str:
    """How the concept's stat reads in the system: "BS 4+", "T +3", "armour light"."""
    step = CONCEPTS[concept][system]
    if step.ladder:
        if concept == "cover" and system == "forgotten":
            return "open" if not kwargs.get("cover") else f"in cover ({kwargs.get('cover_level')})"
        return " ".join(f"{step.label} {kwargs.get(k)}" for k, _ in step.ladder[0])
    v = kwargs.get(step.stat, _default(system, step.stat))
    if step.style == "plus":
        return f"{step.label} {v}+"
    if step.style == "mod":
        return f"{step.label} {v:+d}"
    return f"{step.label} {v}"


class CompareDashboard(LiveDashboard):
    """The four systems on one matchup. Controls ``controls`` (name -> slider,
    classes ``wb-slider-<concept>``), the overlaid distributions
    (``fig_dist``), the expected removals (``fig_means``), the table of stats
    and results (``table``, class ``wb-compare-table``), ``error``, ``link``,
    ``panels``; ``current_outcomes()`` maps system -> exact Outcome."""

    def __init__(self, *, query: str | None = None, system_keys: tuple[str, ...] = systems.KEYS):
        self.system_keys = tuple(system_keys)
        self.bases = {s: base_kwargs(s) for s in self.system_keys}
        self.names = {s: systems.get(s).NAME for s in self.system_keys}
        self.recomputes = 0
        self._hold = 0
        self._outcomes: dict[str, Outcome] = {}
        self._kwargs: dict[str, dict[str, Any]] = {}
        self._errors: dict[str, str] = {}
        self._query_applied = query is not None
        from .dashboard import SharedLooks, make_control
        self.controls = {}
        looks = SharedLooks()
        for name, c in COMPARE_CONTROLS.items():
            w = make_control(c, looks)
            w.add_class("wb-concept")
            w.observe(lambda change: self._on_change(), names="value")
            self.controls[name] = w
        self.error = W.HTML("")
        self.error.add_class("wb-error")
        self.table = W.HTML("")
        self.table.add_class("wb-compare-table")
        self.effects = self.table
        self.link = LinkBar()
        self.link.add_class("wb-link")
        from .forum import ForumPanel  # the one-click forum post of issue 4
        self.panels = W.VBox([ForumPanel(self.current_outcome)])
        self.panels.add_class("wb-panels")
        # the legend sits under the axis, where it hides no bar
        layout = plot_layout(height=400, margin=dict(l=50, r=12, t=45, b=95), bargap=0.15,
                             legend=dict(orientation="h", x=0, y=-0.22, yanchor="top"))
        self.fig_dist, dist_w = live_figure(go.Figure(
            data=[go.Bar(name=self.names[s], x=[0], y=[1.0], marker_color=COLORS.get(s)) for s in self.system_keys],
            layout=dict(title=dict(text="Models removed, four systems"), barmode="group",
                        xaxis=dict(title=dict(text="models removed")), yaxis=dict(title=dict(text="chance")),
                        **layout)))
        self.fig_means, means_w = live_figure(go.Figure(
            data=[go.Bar(name="expected removals", x=[self.names[s] for s in self.system_keys],
                         y=[0.0] * len(self.system_keys), text=[""] * len(self.system_keys), textposition="auto",
                         marker_color=[COLORS.get(s) for s in self.system_keys])],
            layout=dict(title=dict(text="Expected models removed"), showlegend=False,
                        yaxis=dict(title=dict(text="expected models removed")), **layout)))
        dist_w.add_class("wb-plot-compare")
        means_w.add_class("wb-plot-means")
        intro = W.HTML("<h2>Four systems, one matchup</h2><p>In each system a basic trooper fires its basic "
                       "gun at a basic trooper of the same army list. Each slider moves every system's own stat "
                       "by one step in the same direction: <b>accuracy</b> +1 makes the shooter hit more easily "
                       "(40k Changes BS one better, The Forgotten SHOOT one lower, Gunfire BS +1, Antares Acc "
                       "+1); <b>penetration</b> +1 makes the gun beat armour more easily (AP one better, "
                       "ATTACK POWER one lower, AP +1, SV +1); <b>toughness</b> +1 makes the target tougher "
                       "(T +1, armour one step heavier, T +1, Res +1); <b>cover</b> +1 puts the target in "
                       "better cover (cover +1; open, then soft, then hard cover; the hit modifier +1; cover "
                       "+1). The table and the charts follow when you let go of a slider.</p>")
        intro.add_class("wb-title")
        box = W.Box(list(self.controls.values()), layout=W.Layout(display="flex", flex_flow="row wrap",
                                                                  max_width="100%"))
        box.add_class("wb-controls")
        plots = W.HBox([dist_w, means_w], layout=W.Layout(flex_flow="row wrap", max_width="100%"))
        plots.add_class("wb-row")
        self.widget = W.VBox([page_style(), intro, box, self.error, self.table, plots, self.link, self.panels])
        self.widget.add_class("wb-dashboard")
        self.widget.add_class("wb-dashboard-compare")
        self.refresh()
        if query is not None:
            self.apply_query(query)

    # -- reading -----------------------------------------------------------
    def values(self) -> dict[str, int]:
        """The sliders' values, read against their declared ranges."""
        from .dashboard import declared
        return {k: int(declared(COMPARE_CONTROLS[k], w.value)) for k, w in self.controls.items()}

    def enforce(self) -> bool:
        """Put every slider back to its declared range (what a viewer may have
        changed over the websocket), without a recompute."""
        from .dashboard import enforce
        self._hold += 1
        try:
            changed = False
            for k, w in self.controls.items():
                changed = enforce(COMPARE_CONTROLS[k], w) or changed
            return changed
        finally:
            self._hold -= 1

    def _show_error(self, message: str) -> None:
        self.error.value = _error_html(message)

    def kwargs(self, system: str) -> dict[str, Any]:
        """The stat-level arguments of ``system`` for the current sliders."""
        return compare_kwargs(system, self.bases[system], **self.values())

    def current_outcomes(self) -> dict[str, Outcome]:
        return dict(self._outcomes)

    def current_outcome(self) -> dict[str, Outcome]:
        return self.current_outcomes()

    def query_string(self) -> str:
        from .query import format_query
        return format_query(self.values(), COMPARE_CONTROLS)

    # -- writing -----------------------------------------------------------

    def set_values(self, **values: Any) -> bool:
        checked = {}
        for k, v in values.items():
            if k not in COMPARE_CONTROLS:
                raise InputError("argument", "one of " + ", ".join(COMPARE_CONTROLS), k)
            checked[k] = COMPARE_CONTROLS[k].check(v)
        with self.hold():
            for k, v in checked.items():
                self.controls[k].value = v
        return not self._errors

    def apply_query(self, qs: str) -> list[str]:
        from .query import parse_query
        self._query_applied = True
        errors: list[str] = []
        values = parse_query("compare", qs, errors)
        if values and not self.set_values(**values):
            # each system out of its range keeps its previous result, as moving the sliders there would
            errors += [f"{self.names[s]}: {m}" for s, m in self._errors.items()]
        if errors:
            self.error.value = _error_html("Link: " + " | ".join(errors))
        return errors


    # -- the one recompute -------------------------------------------------
    def refresh(self) -> bool:
        """Resolve each system once; a system whose stats leave its range
        keeps its previous result and shows its error."""
        self.recomputes += 1
        try:
            return self._recompute()
        except Exception as exc:  # noqa: BLE001 - a viewer reads a plain message, never a traceback
            self._show_error(guard.plain_message(exc))
            return False

    def _recompute(self) -> bool:
        self.enforce()
        self._errors = {}
        for s in self.system_keys:
            try:
                kw = self.kwargs(s)
                out = systems.get(s).shooting(**kw)
            except WorkbenchError as exc:
                self._errors[s] = str(exc)
                continue
            self._kwargs[s], self._outcomes[s] = kw, out
        self._draw()
        self.link.query = self.query_string()
        self.error.value = _error_html(" | ".join(f"{self.names[s]}: {m}" for s, m in self._errors.items())) \
            if self._errors else ""
        self._refreshed()
        return not self._errors

    def _draw(self) -> None:
        with self.fig_dist.batch_update():
            for trace, s in zip(self.fig_dist.data, self.system_keys):
                out = self._outcomes.get(s)
                if out is not None:
                    trace.x, trace.y = np.arange(out.pmf.size), out.pmf
        with self.fig_means.batch_update():
            bar = self.fig_means.data[0]
            means = [self._outcomes[s].mean if s in self._outcomes else 0.0 for s in self.system_keys]
            bar.y = means
            bar.text = [f"{m:.2f}" for m in means]
        columns = ("system", "accuracy", "penetration", "toughness", "cover", "shots", "models",
                   "expected models removed", "chance at least one is removed")
        head = "".join(f"<th>{h}</th>" for h in columns)
        rows = []
        for s in self.system_keys:
            kw = self._kwargs.get(s, {})
            out = self._outcomes.get(s)
            cells = [html.escape(self.names[s])]
            cells += [html.escape(stat_text(s, c, kw)) for c in CONCEPTS]
            cells += [str(kw.get("shots")), str(kw.get("models"))]
            cells += [f"{out.mean:.2f}", teach.pct(out.at_least(1))] if out else ["–", "–"]
            if s in self._errors:
                cells[0] += " <span class='wb-stale' title='kept: the new value is out of range'>(kept)</span>"
            rows.append(f'<tr class="wb-row-{s}">' + "".join(f'<td data-label="{h}">{c}</td>'
                                                             for h, c in zip(columns, cells)) + "</tr>")
        self.table.value = (f"<table class='wb-compare'><thead><tr>{head}</tr></thead>"
                            f"<tbody>{''.join(rows)}</tbody></table>")


def _error_html(message: str) -> str:
    return ('<div class="wb-error-message" role="alert" style="color:#b00020;border:1px solid #b00020;'
            f'padding:4px 8px;">&#9888; {html.escape(message)}</div>')
