"""The pages the dashboard server serves: one per built-in system (titled and
described by its description), the compare page, the design diagnostics, the
Changes turn and the before-and-after page; each a notebook of
``notebooks/`` rendered by Voila at ``/voila/render/<notebook>``. The rule
files' pages are added when the server starts (:mod:`workbench.rulepages`).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Dashboard", "DASHBOARDS"]


@dataclass(frozen=True)
class Dashboard:
    """One served notebook: its file name in ``notebooks/``, a title and a line for the landing page."""

    notebook: str
    title: str
    blurb: str

    @property
    def path(self) -> str:
        """URL path of the rendered dashboard, below the base URL."""
        return f"/voila/render/{self.notebook}"


def _system_dashboards() -> tuple[Dashboard, ...]:
    """One dashboard per built-in system, titled and described by its description (workbench.systems)."""
    from . import systems
    return tuple(Dashboard(f"{key}.ipynb", d.title, d.blurb) for key, d in systems.builtins().items())


DASHBOARDS: tuple[Dashboard, ...] = _system_dashboards() + (
    Dashboard("compare.ipynb", "Four systems side by side", "One matchup in each system, shared sliders, overlaid distributions."),
    Dashboard("diagnostics.ipynb", "Design diagnostics", "Sweeps over two stats, the value of +1, granularity, equivalent settings across systems."),
    Dashboard("changes_turn.ipynb", "40k Changes: a whole turn", "Two forces play a whole Changes turn again and again: "
              "each player's plan, engage or stay under fire, wasted shots, and the same forces under I-go-you-go."),
    Dashboard("before_after.ipynb", "Before and after", "What one rule change does: the change of models removed "
              "over a grid of two stats, the matchups it moves most, and a forum post of it."),
)
