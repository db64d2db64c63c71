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

from .. import systems
from ..errors import InputError, WorkbenchError
from ..outcome import Outcome
from .query import link_html
from .live import LiveDashboard
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
        self.link = W.HTML("")
        self.link.add_class("wb-link")
        from .. import points, profiles
        self.units = {s: profiles.basic_matchup(s) for s in self.system_keys}  # for the points column
        self.points = W.HTML(points.table_html(points.rank(systems_=self.system_keys)))
        self.points.add_class("wb-points-table")
        from .forum import ForumPanel
        self.panels = W.VBox([ForumPanel(self.current_outcome)])
        self.panels.add_class("wb-panels")
        # the legend sits under the axis, where it hides no bar
        layout = dict(height=400, width=560, margin=dict(l=55, r=15, t=45, b=95), bargap=0.15,
                      legend=dict(orientation="h", x=0, y=-0.22, yanchor="top"))
        self.fig_dist, dist_w = live_figure(go.Figure(
            data=[go.Bar(name=self.names[s], x=[0], y=[1.0], marker_color=COLORS.get(s)) for s in self.system_keys],
            layout=dict(title=dict(text="Models removed, four systems"), barmode="group",
                        xaxis=dict(title=dict(text="models removed")), yaxis=dict(title=dict(text="probability")),
                        **layout)))
        self.fig_means, means_w = live_figure(go.Figure(
            data=[go.Bar(name="expected removals", x=[self.names[s] for s in self.system_keys],
                         y=[0.0] * len(self.system_keys), text=[""] * len(self.system_keys), textposition="auto",
                         marker_color=[COLORS.get(s) for s in self.system_keys])],
            layout=dict(title=dict(text="Expected models removed"), showlegend=False,
                        yaxis=dict(title=dict(text="expected models removed")), **layout)))
        dist_w.add_class("wb-plot-compare")
        means_w.add_class("wb-plot-means")
        intro = W.HTML("<h2>Four systems, one matchup</h2><p>A basic trooper fires its basic gun at a basic "
                       "trooper in each system (profiles/). Each concept slider moves every system's own stat "
                       "by one step: accuracy +1 = changes BS −1 (N+), forgotten SHOOT −1, gunfire BS +1, "
                       "antares Acc +1; penetration +1 = changes AP −1, forgotten ATTACK POWER −1, gunfire AP +1, "
                       "antares SV +1; toughness +1 = changes T +1, forgotten armour one step, gunfire T +1, "
                       "antares Res +1; cover +1 = changes cover +1, forgotten open → cover (soft) → cover (hard), "
                       "gunfire hit_mod +1, antares cover +1.</p>")
        intro.add_class("wb-title")
        box = W.Box(list(self.controls.values()), layout=W.Layout(display="flex", flex_flow="row wrap"))
        box.add_class("wb-controls")
        self.widget = W.VBox([intro, box, self.error, self.table,
                              W.HBox([dist_w, means_w], layout=W.Layout(flex_flow="row wrap")),
                              self.link, self.points, self.panels])
        self.widget.add_class("wb-dashboard")
        self.widget.add_class("wb-dashboard-compare")
        self.refresh()
        if query is not None:
            self.apply_query(query)

    # -- reading -----------------------------------------------------------
    def values(self) -> dict[str, int]:
        return {k: int(w.value) for k, w in self.controls.items()}

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
        if values:
            self.set_values(**values)
        if errors:
            self.error.value = _error_html("Link: " + " | ".join(errors))
        return errors


    # -- the one recompute -------------------------------------------------
    def refresh(self) -> bool:
        """Resolve each system once; a system whose stats leave its range
        keeps its previous result and shows its error."""
        self.recomputes += 1
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
        qs = self.query_string()
        self.link.value = link_html(qs)
        self.error.value = _error_html(" | ".join(f"{self.names[s]}: {m}" for s, m in self._errors.items())) \
            if self._errors else ""
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
        head = "".join(f"<th>{h}</th>" for h in ("system", "accuracy", "penetration", "toughness", "cover",
                                                 "shots", "models", "expected removed", "P(≥1)",
                                                 "removed per 100 pts"))
        rows = []
        for s in self.system_keys:
            kw = self._kwargs.get(s, {})
            out = self._outcomes.get(s)
            cells = [html.escape(self.names[s])]
            cells += [html.escape(stat_text(s, c, kw)) for c in CONCEPTS]
            cells += [str(kw.get("shots")), str(kw.get("models"))]
            cells += [f"{out.mean:.3f}", f"{out.at_least(1):.3f}", self._per_100(s, out)] if out else ["–"] * 3
            if s in self._errors:
                cells[0] += " <span class='wb-stale' title='kept: the new value is out of range'>(kept)</span>"
            rows.append(f'<tr class="wb-row-{s}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        self.table.value = (f"<table class='wb-compare'><thead><tr>{head}</tr></thead>"
                            f"<tbody>{''.join(rows)}</tbody></table>")


    def _per_100(self, system: str, out: Outcome) -> str:
        """Models removed per 100 points of the firing models (the basic matchup's illustrative costs)."""
        from ..points import efficiency
        attacker, weapon, _target = self.units[system]
        if attacker.points is None:
            return "–"
        return f"{efficiency(out, attacker, weapon=weapon).removed_per_100:.2f}"


def _error_html(message: str) -> str:
    return ('<div class="wb-error-message" role="alert" style="color:#b00020;border:1px solid #b00020;'
            f'padding:4px 8px;">&#9888; {html.escape(message)}</div>')
