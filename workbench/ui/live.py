"""What every slider dashboard shares: batching control changes into one
recompute, holding its controls to their specs, showing a message,
telling others when it has recomputed, and showing itself with its query
string applied."""
from __future__ import annotations

import contextlib
import html
from typing import Any, Callable, Iterable, Iterator, Mapping

import ipywidgets as W

from ..controls import Control
from ..errors import InputError
from . import guard
from .controlwidgets import SharedLooks, _to_arg, _to_widget, declared, enforce, make_control
from .looks import html_widget, page_style, show_widget
from .query import LinkBar, request_query


def error_html(message: str, more: str = "") -> str:
    """The message line of a dashboard: ``message`` (escaped), then ``more`` (HTML)."""
    return ('<div class="wb-error-message" role="alert" style="color:#b00020;border:1px solid #b00020;'
            f'padding:4px 8px;">&#9888; {html.escape(message)}{more}</div>')


def checked(values: Mapping[str, Any], specs: Mapping[str, Control], field: str = "argument") -> dict[str, Any]:
    """``values`` each checked by its control of ``specs``: a name no control has, or a value
    its control cannot show, raises :class:`~workbench.errors.InputError`."""
    out = {}
    for k, v in values.items():
        if k not in specs:
            raise InputError(field, "one of " + ", ".join(specs), k)
        out[k] = specs[k].check(v)
    return out


#: a page's method whose failure is the plain message in the page's message line (:func:`guard.guarded`)
on_page = guard.guarded(lambda self, text: self._show_error(text))


#: how every slider page follows its controls and keeps its link, as its introduction ends
FOLLOWS = ("The charts and the numbers follow once you let go of a control; rest the pointer on a control "
           "to read what it means. The link at the bottom (and the address bar) brings anyone back to "
           "exactly these settings.")


class Page:
    """What every page shares: ``widget`` (what is put on the page), its message line ``error``,
    its values read against its controls (:meth:`values`, from each page's ``_shown()``), holding
    its recomputes (:meth:`held`), and :meth:`show` with the page's link applied."""

    widget: Any  # what is put on the page: each subclass's __init__ sets it
    error: W.HTML  # the message line: each subclass's __init__ sets it (:meth:`_message_and_link`)
    link: LinkBar  # the share link: likewise
    _hold = 0
    _query_applied = False

    @on_page
    def apply_query(self, qs: str) -> list[str]:
        """Set the values of a link (query string ``qs``): a bad part is skipped (its control keeps
        its value) and named in the message line, the rest applies. Returns the messages (None
        when it failed otherwise: its plain message is in the message line)."""
        self._query_applied = True
        errors: list[str] = []
        self._apply_query(qs, errors)
        if errors:
            self._show_error("Link: " + " | ".join(errors))
        return errors

    def _apply_query(self, qs: str, errors: list[str]) -> None:  # pragma: no cover - every subclass has one
        raise NotImplementedError

    def _shown(self) -> Iterable[tuple[str, Control, W.ValueWidget]]:  # pragma: no cover - every subclass has one
        """``(name, control, widget)`` of every control the page reads."""
        raise NotImplementedError

    def values(self) -> dict[str, Any]:
        """The current values by name, each read against its control's declared range."""
        return {k: _to_arg(c, declared(c, w.value)) for k, c, w in self._shown()}

    def enforce(self) -> bool:
        """Put every control back to its declared range, options and type (what a viewer may have
        changed over the websocket), without a recompute; returns whether any changed."""
        with self.held():
            return any([enforce(c, w) for _, c, w in self._shown()])

    def _show_error(self, message: str) -> None:
        self.error.value = error_html(message)

    def _message_and_link(self, feed=None) -> None:
        """The message line ``error`` (class ``wb-error``) and the share link ``link`` (``wb-link``)."""
        self.error = html_widget("wb-error")
        self.link = LinkBar(feed=feed).add_class("wb-link")

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Change several controls without a recompute."""
        self._hold += 1
        try:
            yield
        finally:
            self._hold -= 1

    def show(self) -> None:
        """Apply the page's query string (under Voila) once, then display.
        Whatever the link holds, the page is shown (with a message)."""
        if not self._query_applied:
            try:
                self.apply_query(request_query())
            except Exception as exc:  # noqa: BLE001 - a bad link never blanks the page
                self._show_error(guard.plain_message(exc))
        show_widget(self.widget)


class LiveDashboard(Page):
    """Base of the slider pages (:class:`~workbench.ui.SystemDashboard`, the compare, before/after
    and turn pages). A subclass sets ``widget`` and ``error`` and implements ``_recompute()`` (the
    one recompute) and ``_apply_query(qs, errors)``; its controls are made by :meth:`_controls`
    (or call :meth:`_on_change`)."""

    current_outcome: Callable[[], Any]  # what a forum post explains (pages with one)
    recomputes = 0
    _made_controls: list[tuple[str, Control, W.ValueWidget]] = []  # what _controls() made, none yet

    def refresh(self) -> bool:
        """The one recompute (:meth:`_recompute`), then the callbacks of :meth:`on_refresh`; on any
        error its plain message (:meth:`_failed`), and False."""
        self.recomputes += 1
        try:
            ok = self._recompute()
        except Exception as exc:  # noqa: BLE001 - a viewer reads a plain message, never a traceback
            self._failed(guard.plain_message(exc))
            return False
        for callback in self.__dict__.get("_refresh_callbacks", ()):
            try:
                callback()
            except Exception as exc:  # noqa: BLE001 - a helper's failure is a message, not a traceback
                self._show_error(guard.plain_message(exc))
        return ok

    def _failed(self, text: str) -> None:
        """What a recompute that raised shows: its plain message."""
        self._show_error(text)

    def _recompute(self) -> bool:  # pragma: no cover - every subclass has one (or its own refresh)
        raise NotImplementedError

    def _forum_panels(self) -> W.VBox:
        """``panels`` (class ``wb-panels``), holding the forum post of ``current_outcome()``."""
        from .forum import ForumPanel
        return W.VBox([ForumPanel(self.current_outcome)]).add_class("wb-panels")

    def _controls(self, specs: Mapping[str, Control], looks: SharedLooks | None = None) -> dict[str, W.ValueWidget]:
        """A widget per control of ``specs`` (:func:`make_control`), each recomputing the page when moved;
        by default they are the controls the page reads (``_shown()``)."""
        out = {k: make_control(c, looks) for k, c in specs.items()}
        for w in out.values():
            w.observe(self._on_change, names="value")
        self._made_controls = [(k, specs[k], w) for k, w in out.items()]
        return out

    def _shown(self) -> Iterable[tuple[str, Control, W.ValueWidget]]:
        """``(name, control, widget)`` of every control the page reads: those :meth:`_controls` made last."""
        return self._made_controls

    def _set(self, values: Mapping[str, Any], specs: Mapping[str, Control], widgets: Mapping[str, W.ValueWidget],
             field: str = "argument") -> None:
        """Set ``widgets`` from ``values`` by name with one recompute; a name ``specs`` has not, or a
        value its control cannot show, raises :class:`~workbench.errors.InputError` before anything changes."""
        good = checked(values, specs, field)
        with self.hold():
            for k, v in good.items():
                widgets[k].value = _to_widget(specs[k], v)

    def _page(self, key: str, intro: str, parts: list) -> None:
        """``widget``: the stylesheet, the introduction ``intro`` (HTML, class ``wb-title``), then
        ``parts``; classes ``wb-dashboard`` and ``wb-dashboard-<key>``."""
        title = html_widget("wb-title", intro)
        self.widget = W.VBox([page_style(), title, *parts]).add_class("wb-dashboard").add_class(f"wb-dashboard-{key}")

    def on_refresh(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` after every valid recompute."""
        self.__dict__.setdefault("_refresh_callbacks", []).append(callback)

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Change several controls; recompute once at the end."""
        with self.held():
            yield
        if self._hold == 0:
            self.refresh()

    @on_page
    def _on_change(self, change=None) -> None:
        if not self._hold:
            self.refresh()

    def _ipython_display_(self) -> None:
        show_widget(self.widget)
