"""What a viewer may change on a served page, and what a viewer may read.

A dashboard served by Voila gets its widget changes from the viewer's browser over the kernel's
websocket, and anyone with a script can send any widget state there: a new ``max`` for a slider,
a value of 5000, an option a dropdown does not list. Two rules keep that harmless:

* **the viewer changes values only**: the controls are :class:`ViewerSafe` widgets, and the
  dashboards read each value against the control's declared range
  (``workbench.controls.Control``), never against the widget's own ``min``/``max``;
* **the viewer reads plain messages**: every callback runs through :func:`guarded`, and a
  traceback goes to the server's log only (:func:`log_to_server`), never to the page or the
  websocket.
"""
from __future__ import annotations

import functools
import os
import sys
import traceback
from typing import Any, Callable

import ipywidgets as W

from ..errors import WorkbenchError
from ..rules.errors import ForbiddenError

__all__ = ["ViewerSafe", "IntSlider", "FloatSlider", "Checkbox", "Dropdown", "ToggleButtons", "Accordion",
           "SOMETHING_WENT_WRONG", "plain_message", "guarded", "log_to_server"]

#: what a viewer reads when something other than a bad input failed
SOMETHING_WENT_WRONG = ("Something went wrong while updating this page. Try another value or reload the "
                        "page; the details are in the dashboard server's log.")


def log_to_server(text: str) -> None:
    """Write ``text`` to the server's log and nowhere else.

    Inside a Jupyter kernel ``sys.stderr`` is forwarded to the page (and so
    is file descriptor 2): the line goes to the kernel's copy of the
    original standard error, which is the dashboard server's log.
    """
    data = (text.rstrip("\n") + "\n").encode("utf-8", "replace")
    fd = getattr(sys.stderr, "_original_stdstream_copy", None)
    try:
        if fd is not None:
            os.write(fd, data)
        elif sys.__stderr__ is not None:
            sys.__stderr__.write(data.decode("utf-8"))
            sys.__stderr__.flush()
    except OSError:  # pragma: no cover - a closed log must not break the page
        pass


def plain_message(exc: BaseException) -> str:
    """What a viewer reads about ``exc``: a bad input's own message (a rule
    file's refusal: its message and the settings it refused), else a plain
    sentence (the traceback goes to the server log)."""
    if isinstance(exc, ForbiddenError):  # the designer's words and the settings, not the file's condition
        return f"{exc.hint}: {', '.join(f'{k}={v!r}' for k, v in exc.got.items())}"
    if isinstance(exc, WorkbenchError):
        return str(exc)
    log_to_server("workbench dashboard: unexpected error\n"
                  + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    return SOMETHING_WENT_WRONG


def guarded(show: Callable[[Any, str], None]) -> Callable[[Callable], Callable]:
    """Decorate a method so that no exception leaves it: ``show(self, text)``
    puts the plain message (:func:`plain_message`) on the page instead, and
    the method returns ``None``."""
    def wrap(method: Callable) -> Callable:
        @functools.wraps(method)
        def run(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - the whole point: nothing reaches the viewer raw
                try:
                    show(self, plain_message(exc))
                except Exception as again:  # noqa: BLE001
                    plain_message(again)
                return None
        return run
    return wrap


class ViewerSafe:
    """Mixin of a control widget: the page may set its value, nothing else.

    ``viewer_keys`` are the state keys a browser sends when a person uses the
    control (``value``; ``index`` for a choice). Other keys in an update from
    the page are dropped; a value the widget refuses (an index out of range,
    a string for a number) is dropped too and the page is sent the kernel's
    state again, so that it shows what the kernel computes with.
    """

    viewer_keys: frozenset[str] = frozenset({"value"})
    # the page's own change is not echoed back to it (ipywidgets' echo_update): a move sends the value once
    _value_metadata = {"echo_update": False}
    _index_metadata = {"echo_update": False}

    def _handle_msg(self, msg):  # every message of the page to this widget
        """Read a message of the page: a state update (values only, see
        :meth:`set_state`) or a request for the state; anything else,
        malformed ones included, is dropped with a line in the server log
        (ipywidgets' own handler would log a traceback where a viewer can
        read it)."""
        try:
            data = msg["content"]["data"]
            method = data.get("method")
            if method == "update" and isinstance(data.get("state"), dict) and not data.get("buffer_paths"):
                self.set_state(data["state"])
            elif method == "request_state":
                self.send_state()
            else:
                log_to_server(f"workbench dashboard: dropped a page message to {type(self).__name__}")
        except Exception as exc:  # noqa: BLE001 - a malformed message must not reach a log the viewer reads
            log_to_server(f"workbench dashboard: dropped a malformed page message ({type(exc).__name__})")

    def set_state(self, sync_data):  # called with a state update coming from the page
        allowed = {k: v for k, v in (sync_data or {}).items() if k in self.viewer_keys}
        dropped = set(sync_data or {}) - set(allowed)
        try:
            if allowed:
                super().set_state(allowed)
        except Exception as exc:  # noqa: BLE001 - a refused value: back to the kernel's state
            log_to_server(f"workbench dashboard: refused a page update of {type(self).__name__} "
                          f"({', '.join(sorted(allowed))}): {type(exc).__name__}")
            self.send_state()
            return
        dropped &= set(self.keys)
        if dropped:
            self.send_state(sorted(dropped))


class IntSlider(ViewerSafe, W.IntSlider):
    pass


class FloatSlider(ViewerSafe, W.FloatSlider):
    pass


class Checkbox(ViewerSafe, W.Checkbox):
    pass


class Dropdown(ViewerSafe, W.Dropdown):
    viewer_keys = frozenset({"index"})


class ToggleButtons(ViewerSafe, W.ToggleButtons):
    viewer_keys = frozenset({"index"})


class Accordion(ViewerSafe, W.Accordion):
    """A folded section: the page may open or close it (``selected_index``), nothing else."""

    viewer_keys = frozenset({"selected_index"})
    _selected_index_metadata = {"echo_update": False}
