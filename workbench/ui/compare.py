"""Every system side by side: one matchup, shared concepts, overlaid results.

Each system starts from its basic matchup (its description's profiles: a
basic trooper firing its basic gun at a basic trooper; a system without
profiles starts from its seed matchup). The shared concept sliders
(accuracy, penetration, toughness, cover) move each system's **own** stat by
one step per notch, in the direction that means the same thing everywhere,
as each description's ``concepts`` say (e.g. accuracy +1 = changes BS 5+ ->
4+, gunfire BS +1). "accuracy" and "penetration" +1 favour the firer;
"toughness" and "cover" +1 favour the target. ``shots`` and ``models`` (unit
size) are the same number in every system. A step that leaves a system's
allowed range shows that system's error and keeps its previous result; the
other systems carry on. A system without a concept is not moved by it.

"Add to the overlay" puts any other registered system beside the built-ins, from its stats'
defaults (docs/rule-dashboards.md, "The compare page"; the link: ``&add=kill6``).
"""
from __future__ import annotations

import html
from typing import Any

import ipywidgets as W
from .. import figures, systems, teach
from ..controls import Control
from ..errors import InputError, WorkbenchError
from ..outcome import Outcome
from ..systems.description import CONCEPT_NAMES, Step
from . import guard
from .controlwidgets import SharedLooks
from .live import LiveDashboard, error_html
from .looks import html_widget, row, table_html
from .plotwidget import Plot
from .query import format_query, parse_controls, split_query

__all__ = ["COMPARE_CONTROLS", "CompareDashboard", "base_kwargs", "compare_kwargs", "concept_table",
           "stat_text"]


def concept_table(system_keys=None) -> dict[str, dict[str, Step]]:
    """concept -> system -> :class:`~workbench.systems.description.Step`, from the descriptions."""
    keys = systems.keys() if system_keys is None else tuple(system_keys)
    descs = [systems.get(k) for k in keys]
    return {c: {d.key: d.concepts[c] for d in descs if c in d.concepts} for c in CONCEPT_NAMES}


#: the compare dashboard's own controls (also its query-string keys)
COMPARE_CONTROLS: dict[str, Control] = {c.name: c for c in (
    Control("accuracy", "int", 0, -4, 4, label="accuracy", help="+1 = the firer hits more easily"),
    Control("penetration", "int", 0, -4, 4, label="penetration", help="+1 = the weapon beats armour more easily"),
    Control("toughness", "int", 0, -2, 4, label="toughness / resist", help="+1 = the target is tougher"),
    Control("cover", "int", 0, 0, 2, label="cover", help="+1 = the target is better covered"),
    Control("shots", "int", 10, 1, 40, label="shots", help="dice rolled to hit in every system"),
    Control("models", "int", 5, 1, 20, label="unit size", help="models in the target unit in every system"),
)}


def base_kwargs(system: str) -> dict[str, Any]:
    """The stat-level arguments of the system's basic matchup (from its
    profiles; its seed matchup when it has none)."""
    d = systems.get(system)
    if d.profiles is None:
        return dict(d.seed_matchup)
    from .. import profiles
    attacker, weapon, target = profiles.basic_matchup(system)
    return profiles.matchup_kwargs(system, attacker, weapon, target)


def _function(system: str) -> str:
    """The function the compare page resolves: the system's first dashboard mode's."""
    return systems.get(system).modes[0].function


def _default(system: str, name: str) -> Any:
    return systems.get(system).arguments(_function(system))[name]


def compare_kwargs(system: str, base: dict[str, Any], *, accuracy: int = 0, penetration: int = 0,
                   toughness: int = 0, cover: int = 0, shots: int | None = None,
                   models: int | None = None) -> dict[str, Any]:
    """``base`` with each concept moved by its number of steps (and shots,
    models set). A ladder step past its end raises
    :class:`~workbench.errors.InputError` naming the concept."""
    out = dict(base)
    desc = systems.get(system)
    for concept, offset in (("accuracy", accuracy), ("penetration", penetration),
                            ("toughness", toughness), ("cover", cover)):
        step = desc.concepts.get(concept)
        if step is None:
            continue
        if step.ladder:
            settings = [r.settings for r in step.ladder]
            names = [k for k, _ in settings[0]]
            current = tuple((k, out.get(k, _default(system, k))) for k in names)
            start = settings.index(current) if current in settings else 0
            i = start + step.sign * offset
            if not 0 <= i < len(settings):
                raise InputError(concept, f"a step from {-start} to {len(settings) - 1 - start} for {system}",
                                 offset, f"{system} has {len(settings)} {step.label} settings")
            out.update(dict(settings[i]))
        else:
            out[step.stat] = out.get(step.stat, _default(system, step.stat)) + step.sign * offset
    accepted = desc.arguments(_function(system))
    for name, value in (("shots", shots), ("models", models)):
        if value is not None and name in accepted:
            out[name] = value
    return out


def stat_text(system: str, concept: str, kwargs: dict[str, Any]) -> str:
    """How the concept's stat reads in the system: "BS 4+", "T +3", "armour light" ("–" without the concept)."""
    step = systems.get(system).concepts.get(concept)
    if step is None:
        return "–"
    if step.ladder:
        for rung in step.ladder:
            if all(kwargs.get(k, _default(system, k)) == v for k, v in rung.settings):
                return rung.text
        return " ".join(f"{k} {kwargs.get(k)}" for k, _ in step.ladder[0].settings)
    return step.text(kwargs.get(step.stat, _default(system, step.stat)))


class CompareDashboard(LiveDashboard):
    """The four systems on one matchup. Controls ``controls`` (name -> slider,
    classes ``wb-slider-<concept>``), the overlaid distributions
    (``fig_dist``), the expected removals (``fig_means``), the table of stats
    and results (``table``, class ``wb-compare-table``), ``error``, ``link``,
    ``panels``; ``current_outcomes()`` maps system -> exact Outcome."""

    def __init__(self, *, query: str | None = None, system_keys: tuple[str, ...] | None = None):
        self.system_keys = tuple(systems.builtins() if system_keys is None else system_keys)
        self.bases = {s: base_kwargs(s) for s in self.system_keys}
        self.names = {s: systems.get(s).name for s in self.system_keys}
        self.colours = {s: systems.get(s).colour for s in self.system_keys}
        self._outcomes: dict[str, Outcome] = {}
        self._kwargs: dict[str, dict[str, Any]] = {}
        self._errors: dict[str, str] = {}
        self.controls = self._controls(COMPARE_CONTROLS, SharedLooks())
        for w in self.controls.values():
            w.add_class("wb-concept")
        self.table = html_widget("wb-compare-table")
        self._message_and_link()
        from .. import points, profiles
        with_profiles = [s for s in self.system_keys if s in profiles.profile_systems()]
        self.units = {s: profiles.basic_matchup(s) for s in with_profiles}  # for the points column
        self.points = html_widget("wb-points-table", points.table_html(points.rank(systems_=with_profiles)))
        self.panels = self._forum_panels()
        # the legend sits under the axis, where it hides no bar
        self._plot_layout = figures.plot_layout(height=400, margin=dict(l=50, r=12, t=45, b=95), bargap=0.15,
                                                legend=dict(orientation="h", x=0, y=-0.22, yanchor="top"))
        self.fig_dist, self.fig_means = (Plot(None).add_class(f"wb-plot-{k}") for k in ("compare", "means"))
        intro = ("<h2>Every system, one matchup</h2><p>In each system a basic trooper fires its basic "
                 "gun at a basic trooper of the same army list. Each slider moves every system's own stat "
                 "by one step in the same direction (+1 helps the side it names): "
                 f"{html.escape(_concept_words(self.system_keys))}. The table and the charts follow when "
                 "you let go of a slider.</p>")
        box = row(self.controls.values(), "wb-controls")
        self.added: tuple[str, ...] = ()
        self.add_boxes: dict[str, W.Checkbox] = {}
        for key in systems.keys():
            if key not in self.system_keys:
                cb = guard.Checkbox(value=False, indent=False, description=systems.get(key).name,
                                layout=W.Layout(width="auto")).add_class(f"wb-add-{key}")
                cb.observe(lambda change, key=key: (self.add_system if change["new"] else self.remove_system)(key),
                           names="value")
                self.add_boxes[key] = cb
        adder = W.HBox([W.HTML("<b>Add to the overlay:</b>"), *self.add_boxes.values()],
                       layout=W.Layout(flex_flow="row wrap", align_items="center",
                                       display=None if self.add_boxes else "none")).add_class("wb-compare-add")
        plots = row([self.fig_dist, self.fig_means])
        self._page("compare", intro, [box, adder, self.error, self.table, plots, self.link,
                                      self.points, self.panels])
        self.refresh()
        if query is not None:
            self.apply_query(query)

    # -- reading -----------------------------------------------------------
    def kwargs(self, system: str) -> dict[str, Any]:
        """The stat-level arguments of ``system`` for the current sliders."""
        return compare_kwargs(system, self.bases[system], **self.values())

    def current_outcomes(self) -> dict[str, Outcome]:
        return dict(self._outcomes)

    current_outcome = current_outcomes  # what the forum post explains

    def query_string(self) -> str:
        qs = format_query(self.values(), COMPARE_CONTROLS)
        return qs + ("&add=" + ",".join(self.added) if self.added else "")  # format_query's qs starts with "?"

    # -- the systems shown ---------------------------------------------------
    def add_system(self, key: str) -> None:
        """Put a registered system beside the others (an unknown key is an InputError naming the keys)."""
        d = systems.get(key)
        if d.key in self.system_keys:
            return
        self.bases[d.key], self.names[d.key], self.colours[d.key] = base_kwargs(d.key), d.name, d.colour
        self.system_keys += (d.key,)
        self.added += (d.key,)  # not shown, so not added yet
        if d.key in self.add_boxes and not self.add_boxes[d.key].value:
            self.add_boxes[d.key].value = True  # observed: comes back here and returns above
        self._on_change()

    def remove_system(self, key: str) -> None:
        """Take an added system off the overlay again."""
        if key not in self.added:
            return
        self.system_keys = tuple(s for s in self.system_keys if s != key)
        self.added = tuple(s for s in self.added if s != key)
        for table in (self._outcomes, self._kwargs, self._errors):
            table.pop(key, None)
        if key in self.add_boxes and self.add_boxes[key].value:
            self.add_boxes[key].value = False
        self._on_change()

    # -- writing -----------------------------------------------------------

    def set_values(self, **values: Any) -> bool:
        self._set(values, COMPARE_CONTROLS, self.controls)
        return not self._errors

    def _apply_query(self, qs: str, errors: list[str]) -> None:
        own, qs = split_query(qs, ("add",))
        for key in (k for _, v in own for k in v.split(",") if k.strip()):
            try:
                self.add_system(key)
            except InputError as exc:
                errors.append(str(exc).replace("system:", "add:", 1))
        values = parse_controls(qs, COMPARE_CONTROLS, errors)
        if values and not self.set_values(**values):
            # each system out of its range keeps its previous result, as moving the sliders there would
            errors += [f"{self.names[s]}: {m}" for s, m in self._errors.items()]

    # -- the one recompute -------------------------------------------------
    def _recompute(self) -> bool:
        """Resolve each system once; a system whose stats leave its range
        keeps its previous result and shows its error."""
        self.enforce()
        self._errors = {}
        for s in self.system_keys:
            try:
                kw = self.kwargs(s)
                out = systems.get(s).function(_function(s))(**kw)
            except WorkbenchError as exc:
                self._errors[s] = str(exc)
                continue
            self._kwargs[s], self._outcomes[s] = kw, out
        self._draw()
        self.link.query = self.query_string()
        self.error.value = error_html(" | ".join(f"{self.names[s]}: {m}" for s, m in self._errors.items())) \
            if self._errors else ""
        return not self._errors

    def _means_figure(self) -> dict:
        means = [self._outcomes[s].mean if s in self._outcomes else 0.0 for s in self.system_keys]
        bar = {"type": "bar", "name": "expected removals", "x": [self.names[s] for s in self.system_keys],
               "y": means, "text": [f"{m:.2f}" for m in means], "textposition": "auto",
               "marker": {"color": [self.colours[s] for s in self.system_keys]},
               "hovertemplate": "%{x}: %{y:.2f} models removed on average<extra></extra>"}
        layout = dict(title={"text": "Expected models removed"}, showlegend=False, template="plotly_white",
                      yaxis={"title": {"text": "expected models removed"}}, **self._plot_layout)
        return {"data": [bar], "layout": layout}

    def _draw(self) -> None:
        self.fig_dist.show(figures.side_by_side({s: self._outcomes.get(s) for s in self.system_keys}, self.names,
                                                self.colours, **self._plot_layout), plain=True)
        self.fig_means.show(self._means_figure(), plain=True)
        columns = ("system", "accuracy", "penetration", "toughness", "cover", "shots", "models",
                   "expected models removed", "chance at least one is removed",
                   "models removed per 100 points")
        rows = []
        for s in self.system_keys:
            kw = self._kwargs.get(s, {})
            out = self._outcomes.get(s)
            cells = [html.escape(self.names[s])]
            cells += [html.escape(stat_text(s, c, kw)) for c in CONCEPT_NAMES]
            cells += [str(kw.get("shots")), str(kw.get("models"))]
            cells += [f"{out.mean:.2f}", teach.pct(out.at_least(1)), self._per_100(s, out)] if out else ["–"] * 3
            if s in self._errors:
                cells[0] += " <span class='wb-stale' title='kept: the new value is out of range'>(kept)</span>"
            rows.append(cells)
        self.table.value = (table_html(columns, rows, "wb-compare",
                                       row_classes=[f"wb-row-{s}" for s in self.system_keys])
                            + self._same_numbers_note())

    def _same_numbers_note(self) -> str:
        """A line under the table when systems show the very same numbers: the
        same chance per shot, as many shots and as big a unit give the same
        distribution, by the dice, not by mistake (Gunfire's and Antares' basic
        matchups both remove a model with 3 shots in 10)."""
        groups: dict[tuple, list[str]] = {}
        for s in self.system_keys:
            out, kw = self._outcomes.get(s), self._kwargs.get(s, {})
            if out is not None and out.per_attack is not None:
                groups.setdefault((out.per_attack, out.attacks, kw.get("models")), []).append(s)
        lines = []
        for (per, shots, models), keys in groups.items():
            if len(keys) < 2:
                continue
            how = "; ".join(
                f"{self.names[s]}: " + " × ".join(teach.ratio(st.probability, st.detail, st.faces)
                                                  for st in self._outcomes[s].stages)
                for s in keys)
            lines.append(
                f"<p class='wb-same-numbers'>{html.escape(' and '.join(self.names[s] for s in keys))} show the "
                f"same numbers, and that is the dice, not a mistake: a shot removes a model with the same "
                f"chance, {per.numerator}/{per.denominator} ({html.escape(how)}), and each fires {shots} shots "
                f"at {models} models, so every count has the same chance.</p>")
        return "".join(lines)

    def _per_100(self, system: str, out: Outcome) -> str:
        """Models removed per 100 points of the firing models (the basic matchup's illustrative costs)."""
        from ..points import efficiency
        if system not in self.units:  # a rule file: no unit profiles, no points
            return "–"
        attacker, weapon, _target = self.units[system]
        if attacker.points is None:
            return "–"
        return f"{efficiency(out, attacker, weapon=weapon).removed_per_100:.2f}"


def _concept_words(system_keys) -> str:
    """"accuracy +1 = 40k Changes BS −1, ...; penetration +1 = ..." from the descriptions."""
    parts = []
    for concept, steps in concept_table(system_keys).items():
        moves = []
        for key, step in steps.items():
            name = systems.get(key).name
            if step.ladder:
                moves.append(f"{name} " + " → ".join(r.text for r in step.ladder))
            else:
                moves.append(f"{name} {step.label} {'+' if step.sign > 0 else '−'}1")
        parts.append(f"{concept} +1 = " + ", ".join(moves))
    return "; ".join(parts)

