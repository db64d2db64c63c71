"""One generic dashboard for every rule system, built from the control specs.

``SystemDashboard("changes").show()`` puts on the page: a mode switch, a
profile picker, one control per argument of the selected stat-level function,
the headline numbers, the live plots, the Numbers table, the folded "Stage by
stage" section (:mod:`workbench.ui.stagecharts`), a message line, a shareable
link and a ``panels`` area where other widgets can be appended.

Every change of a control recomputes the exact outcome once and updates the figures in place;
a combination the rules forbid shows the rule's message, and the previous results stay, greyed
(:meth:`SystemDashboard.refresh`).
"""
from __future__ import annotations

import html
import re
from typing import Any

import ipywidgets as W
from .. import figures, systems
from ..controls import Control
from ..errors import InputError
from ..outcome import Outcome
from ..systems.description import Mode
from ..teach import plain_note, ratio
from . import guard
from .controlwidgets import SharedLooks, _to_widget, make_control
from .live import FOLLOWS, LiveDashboard, checked, error_html, on_page
from .looks import row as _row
from .numbers import effect_label, effect_value, expected_text, number_rows
from .picker import ProfilePicker
from .plotwidget import Feed, FedHTML, Plot
from .query import MODE_KEY, controls_of, format_query, modes_for, parse_query as _parse_query_any
from .stagecharts import StageCharts

__all__ = ["SystemDashboard", "make_control", "SAMPLED_SAMPLES", "SAMPLED_SEED"]

#: the sampled overlay: a modest, fixed-seed Monte Carlo run
SAMPLED_SAMPLES = 20_000
SAMPLED_SEED = 20240601


def _css(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9-]+", "-", name.replace("_", "-")).strip("-")


class _Controls(dict):
    """Argument name -> widget, created on first use (a mode's controls are
    built when the mode is first shown)."""

    def __init__(self, dashboard: "SystemDashboard"):
        super().__init__()
        self._dashboard = dashboard

    def __missing__(self, name: str) -> W.ValueWidget:
        d = self._dashboard
        w = self[name] = d._controls({name: d.specs[name]}, d._looks)[name]
        return w


class SystemDashboard(LiveDashboard):
    """The dashboard of one rule system (``"changes"``, ``"forgotten"``,
    ``"gunfire"``, ``"antares"``).

    * ``show()`` / ``display(dashboard)``: put it on the page (``show`` first
      applies the page's query string under Voila);
    * ``set_values(mode=None, **values)``: set controls by argument name with
      one recompute; ``values()`` the current arguments;
    * ``current_outcome()``: the exact :class:`~workbench.outcome.Outcome` on
      show;
    * ``query_string()``: the link to the current values; ``apply_query(qs)``;
    * ``panels``: a ``VBox`` at the bottom for other widgets;
    * ``controls``: argument name -> widget (built on first use);
      ``mode_boxes``: mode key -> the box of its controls; ``modes``: mode
      key -> Mode.
    """

    def __init__(self, system: str | systems.SystemDescription, *, mode: str | None = None, query: str | None = None,
                 profiles: bool = True, sampled_samples: int = SAMPLED_SAMPLES,
                 sampled_seed: int = SAMPLED_SEED):
        self.description = systems.get(system)
        self.system = self.description.key
        self.module = self.description.module
        self.modes: dict[str, Mode] = {m.key: m for m in modes_for(self.description)}
        self.specs: dict[str, Control] = controls_of(self.modes.values())
        self.sampled_samples = sampled_samples
        self.sampled_seed = sampled_seed
        self._outcome: Outcome | None = None

        self._looks = SharedLooks()
        self.controls: dict[str, W.ValueWidget] = _Controls(self)
        self.mode_boxes: dict[str, W.Box] = {}

        first = next(iter(self.modes))
        self.mode_picker = guard.ToggleButtons(options=[(m.title, m.key) for m in self.modes.values()],
                                               value=mode or first, tooltips=[],
                                               style={"button_width": "auto"}).add_class("wb-mode")
        if len(self.modes) < 2:
            self.mode_picker.layout.display = "none"
        self.mode_picker.observe(self._on_mode, names="value")

        self.sampled_toggle = guard.Checkbox(value=False, indent=False, tooltip="",
                                             description=f"also show {sampled_samples:,} simulated games "
                                                         f"(dots, with their margin of error)",
                                             layout=W.Layout(width="auto", max_width="100%"))
        self.sampled_toggle.add_class("wb-sampled").add_class("wb-wrap")
        self.sampled_toggle.observe(self._on_change, names="value")

        #: every number a recompute changes (plots, headline, Numbers table, link) travels in one message
        self.feed = Feed()
        self.effects, self.headline = (FedHTML(value="", feed=self.feed).add_class(f"wb-{k}")
                                       for k in ("effects", "headline"))
        self._valid_query: str | None = None
        self._error_text = ""
        self._message_and_link(self.feed)
        self.panels = self._forum_panels()  # the one-click forum post
        self.fig_dist, self.fig_at_least, self.fig_stages = (Plot(None, feed=self.feed).add_class(f"wb-plot-{k}")
                                                             for k in ("dist", "at-least", "stages"))
        self.stage_charts = StageCharts(self._show_error, self.feed)

        self.profile_picker = ProfilePicker(self) if profiles and self.description.profiles is not None else None

        self.controls_box = W.VBox([]).add_class("wb-controls")
        d = self.description
        intro = (f"<h2>{html.escape(d.name)}</h2>"
                 f"<p>{html.escape(d.blurb)} Set up the attack with the controls below"
                 + (", or pick units from the army lists" if d.profiles is not None else "")
                 + f". {FOLLOWS}</p>")
        picker = [] if self.profile_picker is None else [self.profile_picker.widget]
        self.results = (self.headline, _row([self.fig_dist, self.fig_at_least]).add_class("wb-row-first"),
                        _row([self.fig_stages, self.effects]), self.stage_charts.widget)
        self._page(self.system, intro, [self.mode_picker, *picker, self.controls_box, self.error, self.headline,
                                        self.results[1], self.sampled_toggle, self.results[2],
                                        self.stage_charts.widget, self.link, self.panels])

        self._show_mode_controls()
        self.refresh()
        if query is not None:
            self.apply_query(query)

    # -- reading -----------------------------------------------------------
    @property
    def mode(self) -> Mode:
        return self.modes[self.mode_picker.value]

    def _shown(self):
        """The controls of the selected function (its keyword arguments)."""
        return ((c.name, self.specs[c.name], self.controls[c.name]) for c in self.mode.controls)

    def enforce(self) -> bool:
        """:meth:`LiveDashboard.enforce` for the shown mode's controls, and the mode itself."""
        with self.held():
            changed = super().enforce()
            if self.mode_picker.value not in self.modes:
                self.mode_picker.value = next(iter(self.modes))
                changed = True
            return changed

    def defaults(self) -> dict[str, Any]:
        return {c.name: c.default for c in self.mode.controls}

    def current_outcome(self) -> Outcome | None:
        """The exact outcome on show (the last valid values)."""
        return self._outcome

    def query_string(self, values: dict[str, Any] | None = None) -> str:
        """``?mode=shooting&bs=5&...``: a relative link to the current values
        (``values``: those of :meth:`values`, when the caller has them)."""
        mode = self.mode.key if len(self.modes) > 1 else None
        return format_query(self.values() if values is None else values, self.specs, mode)

    # -- writing -----------------------------------------------------------

    def set_values(self, mode: str | None = None, **values: Any) -> bool:
        """Set controls by argument name (and the mode), with one recompute (:meth:`LiveDashboard._set`).
        Returns whether the new values resolved without error."""
        if mode is not None and mode not in self.modes:
            raise InputError(MODE_KEY, "one of " + ", ".join(map(repr, self.modes)), mode)
        checked(values, self.specs)
        with self.hold():
            if mode is not None:
                self.mode_picker.value = mode
                self._show_mode_controls()
            self._set(values, self.specs, self.controls)
        return not self.error.value

    def reset(self) -> None:
        """Every control back to its default and the first mode (one recompute)."""
        with self.hold():
            self.mode_picker.value = next(iter(self.modes))
            for name, c in self.specs.items():
                self.controls[name].value = _to_widget(c, c.default)

    def _apply_query(self, qs: str, errors: list[str]) -> None:
        """A combination the rules forbid keeps every value the link carries and shows the rule's
        message, as moving the controls there would."""
        values = self.parse_query(qs, errors)
        mode = values.pop(MODE_KEY, None)
        if (values or mode) and not self.set_values(mode=mode, **values):
            errors.append(f"these settings are not allowed together: {self._error_text}")

    def parse_query(self, qs: str, errors: list[str] | None = None) -> dict[str, Any]:
        return _parse_query_any(self.system, qs, errors)

    # -- events ------------------------------------------------------------
    @on_page
    def _on_mode(self, change=None) -> None:
        self._show_mode_controls()
        self._on_change()

    def mode_box(self, key: str) -> W.Box:
        """The box of one mode's controls (built on first use)."""
        if key not in self.mode_boxes:
            box = self.mode_boxes[key] = _row([self.controls[c.name] for c in self.modes[key].controls]
                                              + [self._help(key)], f"wb-controls-{key}")
            self.controls_box.children = (*self.controls_box.children, box)
        return self.mode_boxes[key]

    def _help(self, key: str) -> W.HTML:
        """What each control of a mode means, folded: the hover tooltips' words for a tap on a phone."""
        items = "".join(f"<dt>{html.escape(self.specs[c.name].text)}</dt>"
                        f"<dd>{html.escape(self.specs[c.name].help)}</dd>"
                        for c in self.modes[key].controls if self.specs[c.name].help)
        return W.HTML(f"<details><summary>What the controls mean</summary><dl>{items}</dl></details>" if items else "",
                      layout=W.Layout(width="100%")).add_class("wb-help")

    def _show_mode_controls(self) -> None:
        self.mode_box(self.mode.key)
        for key, box in self.mode_boxes.items():
            box.layout.display = "flex" if key == self.mode.key else "none"

    def _show_error(self, message: str) -> None:
        kept = (" <span class='wb-stale-note'>The results below (greyed) are those of the last settings "
                "that were allowed, and the link keeps those settings.</span>" if self._outcome is not None else "")
        self.error.value = error_html(message, kept)

    # -- the one recompute -------------------------------------------------
    def refresh(self) -> bool:
        """Resolve the current values once and update every view, in one message to the page. The
        controls are first put back to their declared ranges (:meth:`enforce`). On an error its
        plain message, and the previous results stay, greyed (:meth:`_failed`)."""
        with self.feed.batch():
            return super().refresh()

    def _recompute(self) -> bool:
        self.enforce()
        kwargs = self.values()
        mode = self.mode
        out = mode.run(self.module, kwargs)
        sampled = (mode.run(self.module, kwargs, method="sampled", samples=self.sampled_samples,
                            seed=self.sampled_seed)
                   if self.sampled_toggle.value else None)
        self._outcome = out
        self._draw(out, sampled)
        self.error.value = ""
        self._stale(False)
        self._valid_query = self.link.query = self.query_string(kwargs)  # the link of the result on show
        return True

    def _failed(self, text: str) -> None:
        self._error_text = plain_words(text, self.specs)
        self._show_error(self._error_text)
        self._stale(True)

    def _stale(self, stale: bool) -> None:
        """Grey every result while the controls hold values that give none (the
        results are those of the last allowed settings, and say so); the link
        keeps the values of the result on show, never the refused ones."""
        for w in self.results:
            (w.add_class if stale else w.remove_class)("wb-stale")
        if stale:
            self.link.query = self._valid_query or ""

    # -- figures -----------------------------------------------------------
    def _draw(self, out: Outcome, sampled: Outcome | None) -> None:
        self.fig_dist.show(figures.distribution(out, sampled), plain=True)
        self.fig_at_least.show(figures.at_least(out), plain=True)
        self.fig_stages.show(figures.stages(out), plain=True)
        self.stage_charts.show(out)
        self.effects.value = self._effects_html(out, sampled)
        self.headline.value = _headline_html(out)

    def _effects_html(self, out: Outcome, sampled: Outcome | None) -> str:
        rows = number_rows(out)
        for name, value in out.effects.items():
            text = effect_value(out, name, value)
            if sampled is not None and name in sampled.effects:
                margin = 2 * sampled.effects_stderr.get(name, 0.0)
                text += (f" <span class='wb-sampled-value'>(simulated {effect_value(out, name, sampled.effects[name])}"
                         f" ± {effect_value(out, name, margin)})</span>")
            rows.append((f"wb-effect-{_css(name)}", effect_label(out, name), text))
        if sampled is not None:
            rows.append(("wb-sampled-mean", f"Simulated average ({sampled.samples:,} games)",
                         f"{expected_text(sampled.mean)} ± {expected_text(2 * (sampled.mean_stderr or 0.0))}"))
        body = "".join(f'<tr class="{cls}"><th style="text-align:left;padding-right:12px">{html.escape(label)}'
                       f'</th><td class="wb-value">{value}</td></tr>' for cls, label, value in rows)
        notes = "".join(f"<li>{html.escape(_plain_note(out, n, self.specs))}</li>" for n in out.notes)
        details = f"<details><summary>How the rules were read</summary><ul>{notes}</ul></details>" if notes else ""
        stages = "".join(f"<li>{html.escape(s.name)}: {ratio(s.probability, s.detail, s.faces)} — "
                         f"{html.escape(_plain_note(out, s.detail, self.specs))}</li>" for s in out.stages)
        return (f'<div class="wb-effects-box">'
                f"<h4>Numbers</h4><table>{body}</table>"
                f"<ul class='wb-stage-list'>{stages}</ul>{details}</div>")


def _headline_html(out: Outcome) -> str:
    """The two numbers a playtester asks first: the average removed and the chance of at least one."""
    one = out.at_least(1) if out.pmf.size > 1 else 0.0
    return (f'<p class="wb-headline-text"><span class="wb-headline-mean">On average <b>{expected_text(out.mean)}</b> '
            f'{html.escape(out.label)}</span> · <span class="wb-headline-one"><b>{float(one):.1%}</b> chance of '
            f'at least one</span></p>')


_ASSIGN = re.compile(r"\(?\b([a-z][a-z0-9_]*)=('[^']*'|\S+?)(?=[),;\s]|$)\)?")
_EXPECTED = re.compile(r"expected (.+?), got (.+?)(?= \(|$)")


def plain_words(message: str, specs: dict[str, Control]) -> str:
    """A rule's message in a playtester's words: argument names become the
    controls' labels, ``evading=True`` becomes '"target EVADING" ticked',
    ``'snap'`` becomes snap, "expected A, got B" becomes "must be A; it is B"."""
    def label(name: str) -> str:
        return specs[name].text if name in specs else name.replace("_", " ")

    def assign(m: re.Match) -> str:
        name, value = m.group(1), m.group(2).strip("'")
        inner = (f'"{label(name)}" ticked' if value == "True" else f'"{label(name)}" not ticked' if value == "False"
                 else f"{label(name)} {value.replace('_', ' ')}")
        return f"({inner})" if m.group(0).startswith("(") else inner

    text = _ASSIGN.sub(assign, message)
    text = _EXPECTED.sub(r"must be \1; it is \2", text)
    field, sep, rest = text.partition(": ")
    if sep and field in specs:
        text = f"{label(field)}: {rest}"
    text = re.sub(r"'([^']*)'", lambda m: m.group(1).replace("_", " "), text)
    text = re.sub(r"\bTrue\b", "ticked", re.sub(r"\bFalse\b", "not ticked", re.sub(r"\bNone\b", "none", text)))
    for name in sorted(specs, key=len, reverse=True):
        if "_" in name:
            text = re.sub(rf"\b{re.escape(name)}\b", label(name), text)
    return text


_EFFECT_REF = re.compile(r"effects\[['\"]([A-Za-z0-9_\[\]]+)['\"]\]")


def _plain_note(out: Outcome, note: str, specs: dict[str, Control] | None = None) -> str:
    """A rule note as a playtester reads it: "(effects['wasted_wounds'])" -> "(the Numbers table's
    "Expected wounds wasted beyond the unit")", and a control's argument name ("melee_phys") -> the
    control's label ("PHYS rolled against")."""
    note = _EFFECT_REF.sub(lambda m: f'the Numbers table\'s "{effect_label(out, m.group(1))}"', note)
    return plain_note(out, note, specs)

