"""The Changes turn page: it plays turns and speaks a playtester's words."""
from __future__ import annotations

import re

import numpy as np

from workbench.ui.turn import ANSWERS, PLANS, TurnDashboard


def test_the_turn_page_plays_turns_and_shows_both_turn_structures():
    d = TurnDashboard(turns=100)
    text = d.table.value
    assert "Changes turn" in text and "I-go-you-go" in text
    assert not re.search(r"lost_|policy|under_fire|igougo|exchange_ratio", text)  # no code words
    assert len(d.figure.data) == 4
    for trace in d.figure.data:
        assert abs(float(np.sum(trace.y)) - 1.0) < 1e-9  # each distribution sums to one
    d.plan.value = list(PLANS)[2]
    d.answer.value = list(ANSWERS)[1]
    d.side_a.rows[0][0].value = 12
    df = d.update()
    assert len(df) == 100 and (df["under_fire"] >= 1).all() and (df["engaged"] == 0).all()
    assert d.message.value == ""
