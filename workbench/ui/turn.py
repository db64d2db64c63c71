"""The Changes turn page: two forces, each player's plan, and what a turn does.

``TurnDashboard()`` is an ipywidgets ``VBox``: three units a side (Space
Marines from ``profiles/changes``, with a unit size, a gun and cover each),
the active player's plan (focus, spread or greedy fire) and the passive
player's answer (engage, stay under fire, go to ground). "Play turns" samples
that many turns with :func:`workbench.turn.study` and shows, next to the same
forces under a plain I-go-you-go turn, the models each side loses per turn,
the exchange, how often shots go at a unit already destroyed, and the
distribution of models lost.
"""
from __future__ import annotations

import html

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from ..errors import WorkbenchError
from ..turn import from_profile, study, summary
from .plots import figure_widget, replace_figure, show_widget

__all__ = ["TurnDashboard", "PLANS", "ANSWERS"]

#: what a playtester reads -> policy name
PLANS = {"Focus fire: everything at one unit": "focus",
         "Spread fire: share units over targets": "spread",
         "Just enough: fewest units for a likely kill": "greedy"}
ANSWERS = {"Engage (fire back now)": "engage", "Stay under fire (act later)": "under_fire",
           "Go to ground (+2 cover, snap shots)": "go_to_ground"}
GUNS = ("Boltgun", "Heavy Bolter")


class _Side(W.VBox):
    def __init__(self, title: str, prefix: str, sizes=(5, 10, 5), guns=GUNS[:1] * 3, covers=(0, 0, 0)):
        self.prefix = prefix
        self.rows = []
        boxes = [W.HTML(f"<b>{html.escape(title)}</b>")]
        for i, (m, g, c) in enumerate(zip(sizes, guns, covers)):
            models = W.BoundedIntText(value=m, min=1, max=30, description=f"unit {i + 1}",
                                      layout=W.Layout(width="150px"))
            gun = W.Dropdown(options=GUNS, value=g, layout=W.Layout(width="130px"))
            cover = W.BoundedIntText(value=c, min=0, max=4, description="cover",
                                     layout=W.Layout(width="120px"))
            self.rows.append((models, gun, cover))
            boxes.append(W.HBox([models, gun, cover]))
        super().__init__(boxes)

    def force(self):
        return [from_profile("Space Marine", name=f"{self.prefix}{i + 1}", models=m.value,
                             weapons=[g.value], cover=c.value)
                for i, (m, g, c) in enumerate(self.rows)]


class TurnDashboard(W.VBox):
    """See the module docstring."""

    def __init__(self, turns: int = 400, seed: int = 1):
        self.side_a = _Side("Active player", "A")
        self.side_b = _Side("Passive player", "B", guns=("Boltgun", "Heavy Bolter", "Boltgun"),
                            covers=(0, 2, 0))
        self.plan = W.Dropdown(options=list(PLANS), description="plan", layout=W.Layout(width="420px"))
        self.answer = W.Dropdown(options=list(ANSWERS), description="answer", layout=W.Layout(width="420px"))
        self.turns = W.IntSlider(value=turns, min=100, max=5000, step=100, description="turns")
        self.seed = seed
        self.play = W.Button(description="Play turns", button_style="primary")
        self.play.on_click(lambda _b: self.update())
        self.message = W.HTML("")
        self.table = W.HTML("")
        self.figure = figure_widget(go.Figure())
        super().__init__([
            W.HTML("<h2>40k Changes: a whole turn</h2><p>Every unit is declared before any die is "
                   "rolled; casualties come off at the end of each phase.</p>"),
            W.HBox([self.side_a, self.side_b]),
            W.VBox([self.plan, self.answer, W.HBox([self.turns, self.play])]),
            self.message, self.table, self.figure])
        self.add_class("wb-turn")
        self.update()

    def update(self):
        """Play the turns and refresh the table and the plot."""
        try:
            a, b = self.side_a.force(), self.side_b.force()
            pol_b = ("focus", {"response": ANSWERS[self.answer.value]})
            kw = dict(turns=self.turns.value, seed=self.seed, progress=False)
            ch = study(a, b, policy_a=PLANS[self.plan.value], policy_b=pol_b, **kw)
            ig = study(a, b, policy_a=PLANS[self.plan.value], policy_b=pol_b, mode="igougo", **kw)
        except WorkbenchError as exc:
            self.message.value = f"<span style='color:#b00'>{html.escape(str(exc))}</span>"
            return None
        self.message.value = ""
        s = summary(ch).iloc[0]
        t = summary(ig).iloc[0]

        def row(name, x):
            ratio = "no losses" if not np.isfinite(x["exchange_ratio"]) else f"{x['exchange_ratio']:.2f}"
            return (f"<tr><td>{name}</td><td>{x['lost_A']:.2f} ± {x['lost_A_se']:.2f}</td>"
                    f"<td>{x['lost_B']:.2f} ± {x['lost_B_se']:.2f}</td><td>{ratio}</td>"
                    f"<td>{x['p_shots_wasted']:.1%}</td></tr>")

        self.table.value = (
            "<table class='wb-table'><tr><th></th><th>active player loses (models)</th>"
            "<th>passive player loses (models)</th><th>passive losses per active loss</th>"
            "<th>turns with shots at a unit already destroyed</th></tr>"
            + row("Changes turn", s) + row("I-go-you-go (active first)", t) + "</table>"
            f"<p>{self.turns.value} turns each, every die rolled (± one standard error).</p>")
        width = int(max(ch[["lost_A", "lost_B"]].max().max(), ig[["lost_A", "lost_B"]].max().max())) + 1
        x = np.arange(width)
        fig = go.Figure()
        for df, mode in ((ch, "Changes"), (ig, "I-go-you-go")):
            for side, who in (("A", "active"), ("B", "passive")):
                freq = np.bincount(df[f"lost_{side}"], minlength=width)[:width] / len(df)
                fig.add_bar(x=x, y=freq, name=f"{who} player, {mode}")
        fig.update_layout(barmode="group", xaxis_title="models lost in the turn",
                          yaxis_title="share of turns", yaxis_tickformat=".0%", height=380,
                          margin=dict(l=50, r=20, t=30, b=40))
        replace_figure(self.figure, fig)
        return ch

    def show(self):
        show_widget(self)
