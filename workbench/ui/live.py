"""What every slider dashboard shares: batching control changes into one
recompute, telling others when it has recomputed, and showing itself with
its query string applied."""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from . import guard
from .plots import show_widget
from .query import request_query


class LiveDashboard:
    """Base of :class:`~workbench.ui.SystemDashboard` and
    :class:`~workbench.ui.CompareDashboard`.

    A subclass sets ``widget`` (what is put on the page) and implements
    ``refresh()`` (the one recompute, which calls :meth:`_refreshed` after a
    valid one), ``apply_query(qs)`` and ``_show_error(text)``; its controls
    call :meth:`_on_change`. :meth:`on_refresh` registers a callback run
    after each valid recompute (the profile picker uses it to notice that
    the controls no longer hold the chosen units).
    """

    widget: Any  # what is put on the page: each subclass's __init__ sets it
    _hold = 0
    _query_applied = False

    def refresh(self) -> bool:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    def apply_query(self, qs: str):  # pragma: no cover - every subclass has one
        raise NotImplementedError

    def _show_error(self, message: str) -> None:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    def on_refresh(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` after every valid recompute."""
        self.__dict__.setdefault("_refresh_callbacks", []).append(callback)

    def _refreshed(self) -> None:
        for callback in self.__dict__.get("_refresh_callbacks", ()):
            try:
                callback()
            except Exception as exc:  # noqa: BLE001 - a helper's failure is a message, not a traceback
                self._show_error(guard.plain_message(exc))

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

    @guard.guarded(lambda self, text: self._show_error(text))
    def _on_change(self, change=None) -> None:
        if not self._hold:
            self.refresh()

    def show(self) -> None:
        """Apply the page's query string (under Voila) once, then display.
        Whatever the link holds, the dashboard is shown (with a message)."""
        if not self._query_applied:
            try:
                self.apply_query(request_query())
            except Exception as exc:  # noqa: BLE001 - a bad link never blanks the page
                self._show_error(guard.plain_message(exc))
        show_widget(self.widget)

    def _ipython_display_(self) -> None:
        show_widget(self.widget)
