"""What every slider dashboard shares: batching control changes into one
recompute, and showing itself with its query string applied."""
from __future__ import annotations

import contextlib
from typing import Iterator

from .plots import show_widget
from .query import request_query


class LiveDashboard:
    """Base of :class:`~workbench.ui.SystemDashboard` and
    :class:`~workbench.ui.CompareDashboard`.

    A subclass sets ``widget`` (what is put on the page) and implements
    ``refresh()`` (the one recompute) and ``apply_query(qs)``; its controls
    call :meth:`_on_change`.
    """

    _hold = 0
    _query_applied = False

    def refresh(self) -> bool:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    def apply_query(self, qs: str):  # pragma: no cover - every subclass has one
        raise NotImplementedError

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Change several controls; recompute once at the end."""
        self._hold += 1
        try:
            yield
        finally:
            self._hold -= 1
        if self._hold == 0:
            self.refresh()

    def _on_change(self, change=None) -> None:
        if not self._hold:
            self.refresh()

    def show(self) -> None:
        """Apply the page's query string (under Voila) once, then display."""
        if not self._query_applied:
            self.apply_query(request_query())
        show_widget(self.widget)

    def _ipython_display_(self) -> None:
        show_widget(self.widget)
