"""The Changes turn page: two forces, each player's plan, and what whole turns do.

``TurnDashboard()`` is the served page of :mod:`workbench.turn`: what a playtester sets is the
turn's rule file, ``rules/changes/turn.toml`` (:mod:`workbench.ui.turncontrols`); the four
scenarios it replays on the same dice, what it shows, its link and its measured redraw times are
docs/dashboards.md, "The Changes turn page". As on the other dashboards (:mod:`workbench.ui.guard`),
a bad link value leaves a working page with a message naming it, never a traceback.
"""
from __future__ import annotations

import html
import math
from typing import Any

import ipywidgets as W
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .. import teach
from ..controls import Control
from ..figures import PLOT_HEIGHT, plot_layout
from ..rules.mechanisms.changes_turn import READINGS
from ..turn import from_profile, study, summary
from .controlwidgets import SharedLooks, declared
from .live import FOLLOWS, LiveDashboard
from .looks import html_widget, row as _row, table_html
from .numbers import expected_text
from .plotwidget import Plot
from .query import format_query, parse_controls
from . import turncontrols
from .turncontrols import SHARED_READINGS, controls, unit_choices

#: scenario key -> how the page names it
SCENARIOS = {"chosen": "Changes turn, your answer",
             "engage": "Changes turn, passive always engages",
             "under_fire": "Changes turn, passive always stays under fire",
             "igougo": "I-go-you-go (active player first)"}
#: scenario key -> how a chart's bar names it
_SHORT = {"chosen": "your answer", "engage": "always engage", "under_fire": "always under fire",
          "igougo": "I-go-you-go"}
#: the readings of the rules a playtester may flip: the turn file's, then the four shared with shooting
_READINGS = (*READINGS, *SHARED_READINGS)

#: colours: the active player's losses, the passive player's
_ACTIVE, _PASSIVE = "#4C72B0", "#C44E52"
_MODE_COLOURS = {"Changes turn": "#4C72B0", "I-go-you-go": "#DD8452"}


class TurnDashboard(LiveDashboard):
    """The served page of the turn simulator; see the module docstring.

    * ``TurnDashboard(system="my_changes")``: the page of a copy of the Changes folder (a key, a
      description or a :class:`~workbench.rules.RuleFolder`): its ``turn.toml``'s controls, and its
      shooting and melee files' dice;
    * ``widget``: what is put on the page; ``controls``: link key -> Control;
      ``widgets``: link key -> widget;
    * after a redraw, ``results``: scenario key (:data:`SCENARIOS`) -> the
      study's one-row-per-turn DataFrame, and ``numbers``: one row per
      scenario with what the Numbers table shows (as numbers).
    """

    def __init__(self, *, query: str | None = None, turns: int | None = None, seed: int | None = None,
                 system: Any = None):
        self.folder = turncontrols.folder(system)
        self.turn = self.folder.pages["turn"]
        self.sides = turncontrols.sides(self.folder)
        self.choices = unit_choices()
        self.controls: dict[str, Control] = controls(self.choices, self.folder)
        self.results: dict[str, pd.DataFrame] = {}
        self.numbers: pd.DataFrame | None = None

        looks = SharedLooks(width="320px", label_width="82px")
        self.widgets: dict[str, W.ValueWidget] = self._controls(self.controls, looks)
        for side in self.sides:  # shown with the 'just enough' plan only: a layout of their own
            self.widgets[f"{side}_kill"].layout = W.Layout(width="320px", max_width="100%")
        wide = W.Layout(width="380px", max_width="100%")  # the unit pickers' longer choices
        for key in self.controls:
            if key.endswith("_unit"):
                self.widgets[key].layout = wide

        self.status = html_widget("wb-turn-status")
        self.table = html_widget("wb-turn-numbers")
        self.notes = html_widget("wb-turn-notes")
        self._message_and_link()

        self.figures: dict[str, Plot] = {key: Plot(go.Figure(layout=plot_layout(height=PLOT_HEIGHT)))
                                         .add_class(f"wb-plot-{key}")
                                         for key in ("lost-active", "lost-passive", "exchange", "wasted", "engage")}

        self.unit_rows: dict[str, list[W.Box]] = {}
        sides = []
        for side, (title, what) in self.sides.items():
            rows = self.unit_rows[side] = [_row([self.widgets[f"{side}{i}_{k}"] for k in ("unit", "models", "cover")])
                                           .add_class(f"wb-unit-{side}{i}")
                                           for i in range(1, self.turn.stat("units").max + 1)]
            plan = [self.widgets[f"{side}_plan"], self.widgets[f"{side}_kill"]]
            if side == "b":
                plan.append(self.widgets["b_answer"])
            sides.append(W.VBox([W.HTML(f"<h3>{html.escape(title)}</h3><p>It {html.escape(what)}.</p>"),
                                 _row(plan), _row([self.widgets[f"{side}_units"]]), *rows])
                         .add_class(f"wb-side-{side}").add_class("wb-side"))

        view = self.turn.view
        intro = (f"<h2>{html.escape(view.title or self.turn.name)}</h2>"
                 + (f"<p>{html.escape(view.blurb)}</p>" if view.blurb else "")
                 + f"<p>{FOLLOWS} A redraw takes a second or two.</p>")
        run = _row([self.widgets["turns"], self.widgets["seed"]]).add_class("wb-turn-run")
        rules = W.VBox([W.HTML("<h3>Readings of the rules</h3><p>Where the rules can be read two ways: "
                               "each control says which reading is played.</p>"),
                        _row([self.widgets[k] for k in _READINGS])]).add_class("wb-turn-readings")
        self._page("changes-turn", intro, [
            _row(sides), run, rules, self.error, self.status, self.notes,
            _row([self.figures["lost-active"], self.figures["lost-passive"]]),
            _row([self.figures["exchange"], self.figures["wasted"]]),
            _row([self.figures["engage"]]),
            self.table, self.link])

        with self.held():  # one first draw: of the link's settings when a link is given
            if turns is not None:
                self.widgets["turns"].value = declared(self.controls["turns"], turns)
            if seed is not None:
                self.widgets["seed"].value = declared(self.controls["seed"], seed)
        if query is not None:
            self.apply_query(query)  # draws (nothing is drawn yet), then names the link's bad values
        else:
            self.refresh()

    # -- reading -----------------------------------------------------------
    def rules(self) -> dict[str, Any]:
        """The readings of the current settings, as :func:`workbench.turn.study` takes them."""
        values = self.values()
        return {k: values[k] for k in _READINGS}

    def _shown_keys(self, values: dict[str, Any]) -> list[str]:
        """The link keys that matter for ``values``: the units on the table, the
        'just enough' target only with that plan, a reading only where it is not the default."""
        keys = ["a_plan"] + (["a_kill"] if values["a_plan"] == "greedy" else [])
        keys += ["b_plan"] + (["b_kill"] if values["b_plan"] == "greedy" else []) + ["b_answer"]
        for side in self.sides:
            keys.append(f"{side}_units")
            for i in range(1, values[f"{side}_units"] + 1):
                keys += [f"{side}{i}_unit", f"{side}{i}_models", f"{side}{i}_cover"]
        return keys + ["turns", "seed"] + [k for k in _READINGS if values[k] != self.controls[k].default]

    def query_string(self) -> str:
        """``?a_plan=greedy&...``: the link to the current settings."""
        values = self.values()
        return format_query({k: values[k] for k in self._shown_keys(values)}, self.controls)

    def forces(self) -> tuple[tuple, tuple]:
        """The two forces of the current settings (units named A1.., B1..)."""
        values = self.values()
        out = []
        for side in self.sides:
            units = []
            for i in range(1, values[f"{side}_units"] + 1):
                ch = self.choices[values[f"{side}{i}_unit"]]
                units.append(from_profile(ch.unit, name=f"{side.upper()}{i}", models=values[f"{side}{i}_models"],
                                          weapons=[ch.gun, *ch.melee], cover=values[f"{side}{i}_cover"]))
            out.append(tuple(units))
        return out[0], out[1]

    def policies(self, answer: str | None = None) -> tuple[Any, Any]:
        """``(policy_a, policy_b)`` as :func:`workbench.turn.study` takes them;
        ``answer`` overrides the passive player's answer."""
        values = self.values()
        out = []
        for side in self.sides:
            plan = values[f"{side}_plan"]
            opts: dict[str, Any] = {}
            if plan == "greedy":
                opts["kill_probability"] = values[f"{side}_kill"] / 100
            if side == "b":
                opts["response"] = answer or values["b_answer"]
            out.append((plan, opts))
        return out[0], out[1]

    # -- writing -----------------------------------------------------------
    def set_values(self, **values: Any) -> bool:
        """Set settings by link key with one redraw. A key the page has not, or a
        value its control cannot show, raises :class:`InputError` before anything
        changes. Returns whether the redraw succeeded."""
        self._set(values, self.controls, self.widgets, "setting")
        return not self.error.value

    def _apply_query(self, qs: str, errors: list[str]) -> None:
        good = parse_controls(qs, self.controls, errors)
        if good or self.numbers is None:  # a link without settings keeps what is drawn
            with self.hold():
                for k, v in good.items():
                    self.widgets[k].value = v

    # -- the one redraw --------------------------------------------------
    def _recompute(self) -> bool:
        """Play the turns of the current settings and redraw everything once.
        On a bad setting its message is shown and the previous charts stay."""
        shown = self.status.value
        try:
            self.enforce()
            self._show_units()
            self.link.query = self.query_string()
            values = self.values()
            a, b = self.forces()
            self.status.value = (f"<p class='wb-based-on wb-busy'>Playing {values['turns']:,} turns for each "
                                 "row&hellip;</p>")  # reaches the page at once: the turns take a moment
            self.results = self._play(a, b, values)
            self.numbers = self._numbers(self.results)
            self._draw(self.results, self.numbers, values)
        except Exception:
            self.status.value = shown
            raise
        self.error.value = ""
        return True

    def _show_units(self) -> None:
        for side in self.sides:
            n = declared(self.controls[f"{side}_units"], self.widgets[f"{side}_units"].value)
            for i, row in enumerate(self.unit_rows[side], start=1):
                row.layout.display = "flex" if i <= n else "none"
            plan = declared(self.controls[f"{side}_plan"], self.widgets[f"{side}_plan"].value)
            self.widgets[f"{side}_kill"].layout.display = "flex" if plan == "greedy" else "none"

    def _play(self, a, b, values) -> dict[str, pd.DataFrame]:
        """The four scenarios of the page, on the same dice (common seeds)."""
        own = self.folder is not turncontrols.folder()  # the built-in's folder is the simulator's own
        kw = dict(turns=values["turns"], seed=values["seed"], progress=False,
                  rules=dict(self.rules(), system=self.folder if own else None))
        pol_a, pol_b = self.policies()
        out = {answer: study(a, b, policy_a=pol_a, policy_b=self.policies(answer)[1], **kw)
               for answer in ("engage", "under_fire")}
        chosen = values["b_answer"]
        out["chosen"] = out[chosen] if chosen in out else study(a, b, policy_a=pol_a, policy_b=pol_b, **kw)
        out["igougo"] = study(a, b, policy_a=pol_a, policy_b=pol_b, mode="igougo", **kw)
        return {k: out[k] for k in SCENARIOS}

    @staticmethod
    def _numbers(results: dict[str, pd.DataFrame]) -> pd.DataFrame:
        rows = []
        for key, df in results.items():
            s = summary(df).iloc[0]
            rows.append({"scenario": key, "turns": int(s["turns"]),
                         "lost_active": s["lost_A"], "lost_active_margin": 2 * s["lost_A_se"],
                         "lost_passive": s["lost_B"], "lost_passive_margin": 2 * s["lost_B_se"],
                         "exchange": s["exchange_ratio"], "p_wasted_turn": s["p_shots_wasted"],
                         "wasted_share": s["shots_wasted_share"], "destroyed_passive": s["destroyed_B"],
                         "destroyed_active": s["destroyed_A"]})
        return pd.DataFrame(rows)

    # -- figures -----------------------------------------------------------
    @staticmethod
    def _layout(title: str, x: str, y: str, **more) -> dict:
        return plot_layout(title=dict(text=title), xaxis=dict(title=dict(text=x)), yaxis=dict(title=dict(text=y)),
                           height=PLOT_HEIGHT, legend=dict(orientation="h", x=0, y=-0.25), **more)

    def _draw(self, results: dict[str, pd.DataFrame], numbers: pd.DataFrame, values: dict[str, Any]) -> None:
        ch, ig = results["chosen"], results["igougo"]
        for side, key, who in (("A", "lost-active", "active"), ("B", "lost-passive", "passive")):
            width = int(max(ch[f"lost_{side}"].max(), ig[f"lost_{side}"].max())) + 1
            x = np.arange(width)
            fig = go.Figure(layout=self._layout(f"Models the {who} player loses in a turn", "models lost",
                                                "share of turns", barmode="group", bargap=0.15,
                                                yaxis_tickformat=".0%"))
            for df, mode in ((ch, "Changes turn"), (ig, "I-go-you-go")):
                share = np.bincount(df[f"lost_{side}"].to_numpy(), minlength=width)[:width] / len(df)
                fig.add_bar(x=x, y=share, name=mode, marker_color=_MODE_COLOURS[mode],
                            hovertemplate="%{x} lost: %{y:.1%} of turns<extra>" + mode + "</extra>")
            self.figures[key].show(fig)

        n = numbers.set_index("scenario")
        names = [_SHORT[k] for k in SCENARIOS]
        ratios = [float(n.loc[k, "exchange"]) for k in SCENARIOS]
        shown = [r if math.isfinite(r) else 0.0 for r in ratios]
        fig = go.Figure(layout=self._layout("Passive models lost per active model lost", "",
                                            "models lost per model lost", showlegend=False))
        fig.add_bar(x=names, y=shown, text=[_ratio_text(r) for r in ratios], textposition="auto",
                    marker_color=["#8172B3"] * 3 + [_MODE_COLOURS["I-go-you-go"]],
                    hovertemplate="%{x}: %{text}<extra></extra>")
        self.figures["exchange"].show(fig)

        fig = go.Figure(layout=self._layout("Shots at a unit already destroyed", "", "share",
                                            barmode="group", yaxis_tickformat=".1%"))
        for col, name, colour, of in (("p_wasted_turn", "turns with wasted shots", "#937860", "turns"),
                                      ("wasted_share", "active player's dice wasted", "#DA8BC3", "the dice")):
            fig.add_bar(x=names, y=[float(n.loc[k, col]) for k in SCENARIOS], name=name, marker_color=colour,
                        hovertemplate="%{x}: %{y:.1%} of " + of + "<extra></extra>")
        self.figures["wasted"].show(fig)

        answers = ["engage", "under_fire"]
        fig = go.Figure(layout=self._layout("Engage or stay under fire?", "the passive player's answer",
                                            "expected models lost per turn", barmode="group"))
        labels = [_answer_words(self.controls["b_answer"], k) for k in answers]
        for who, col, colour in (("active", "lost_active", _ACTIVE), ("passive", "lost_passive", _PASSIVE)):
            fig.add_bar(x=labels, y=[float(n.loc[k, col]) for k in answers], name=f"{who} player loses",
                        marker_color=colour,
                        error_y=dict(type="data", array=[float(n.loc[k, col + "_margin"]) for k in answers]),
                        hovertemplate="%{x}: %{y:.2f} models<extra>" + who + " player</extra>")
        self.figures["engage"].show(fig)

        self.table.value = self._table_html(numbers, values)
        turns = values["turns"]
        self.status.value = (f"<p class='wb-based-on'>Based on {turns:,} simulated turns for each row "
                             f"(dice seed {values['seed']}), every die rolled; ± is the margin of error "
                             "(twice the standard error).</p>")
        notes = self.turn.notes_at(**{k: values[k] for k in READINGS})
        self.notes.value = ("<div class='wb-notes'><h4>Rules as played</h4><ul>"
                            + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ul></div>")

    def _table_html(self, numbers: pd.DataFrame, values: dict[str, Any]) -> str:
        columns = ("", "Expected models the active player loses", "Expected models the passive player loses",
                   "Passive models lost per active model lost", "Chance a turn has shots at a unit already "
                   "destroyed", "Share of the active player's dice wasted",
                   "Expected passive units destroyed")
        body = []
        for row in numbers.itertuples():
            cells = [SCENARIOS[row.scenario] + (f" ({_answer_words(self.controls['b_answer'], values['b_answer'])})"
                                                if row.scenario == "chosen" else ""),
                     f"{expected_text(row.lost_active)} ± {expected_text(row.lost_active_margin)}",
                     f"{expected_text(row.lost_passive)} ± {expected_text(row.lost_passive_margin)}",
                     _ratio_text(row.exchange), teach.pct(row.p_wasted_turn), teach.pct(row.wasted_share),
                     expected_text(row.destroyed_passive)]
            body.append([html.escape(c) for c in cells])
        rows = [f"wb-row-{s}" for s in numbers["scenario"]]
        return ("<div class='wb-effects-box'><h4>Numbers</h4>"
                + table_html(columns, body, "wb-compare", row_classes=rows, wrap=False) + "</div>")


def _answer_words(control: Control, key: str) -> str:
    """"stay under fire": an answer as a table cell says it (the control's words without their note)."""
    return control.say(key).split(" (")[0].lower()


def _ratio_text(r: float) -> str:
    return f"{r:.2f}" if math.isfinite(r) else "the active player lost none"
