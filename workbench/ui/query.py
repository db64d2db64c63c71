"""Shareable links: dashboard values <-> URL query string, and the link on the page.

The scheme: one ``name=value`` pair per stat-level argument, named as in the
system's function (``?bs=4&ap=6&shots=10&action=snap``), plus ``mode`` to pick
the function (``mode=melee``). Whole numbers are written plainly, booleans as
``true``/``false`` (``1``/``0``, ``yes``/``no``, ``on``/``off`` are read too),
``None`` as ``none`` (a uncapped unit: ``models=none``), choices by their
value. Keys and values are URL-encoded.

:class:`LinkBar` puts the link on the page and in the address bar
(docs/dashboards.md, "Shared links"); :func:`request_query` reads the link
that opened the page.
"""
from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import urllib.parse
import warnings
from typing import Any, Iterable

import anywidget
import attrs
import traitlets

from .. import systems
from ..controls import NONE_TOKEN, RESERVED, Control
from ..errors import InputError
from ..systems.description import Mode, SystemDescription
from .guard import log_to_server
from .plotwidget import Fed, Module, static_text
from .preheat import wait_for_request

__all__ = ["parse_query", "parse_controls", "parse_value", "format_query", "request_query",
           "modes_for", "controls_of", "split_query", "LinkBar", "MODE_KEY", "IGNORED_KEYS"]

MODE_KEY = "mode"


def modes_for(system: SystemDescription) -> tuple[Mode, ...]:
    """The modes of ``system``'s description (its dashboard's modes, each a stat-level function
    with its controls), each with the controls of the arguments its function accepts, in the
    function's argument order: the names of a link's values. A mode with its own ``call``
    (changes' volley), or whose function takes any keyword (a rule file's ``attack``), keeps its
    controls as described."""
    out = []
    for mode in system.modes:
        fn = getattr(system.module, mode.function, None)
        if fn is None:
            continue
        params = list(inspect.signature(fn).parameters.values())
        if mode.call is not None or any(p.kind is p.VAR_KEYWORD for p in params):
            out.append(mode)
            continue
        spec = {c.name: c for c in mode.controls}
        controls = tuple(spec[p.name] for p in params if p.name in spec and p.name not in RESERVED
                         and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))
        out.append(attrs.evolve(mode, controls=controls))
    return tuple(out)


def controls_of(modes: Iterable[Mode]) -> dict[str, Control]:
    """Every control of a system by argument name (first mode wins a shared name)."""
    out: dict[str, Control] = {}
    for m in modes:
        for c in m.controls:
            out.setdefault(c.name, c)
    return out


#: a number as a link writes it: plain decimal digits, at most 12 before and after the point
_NUMBER = re.compile(r"[+-]?[0-9]{1,12}(\.[0-9]{1,12})?", re.ASCII)
#: keys of the page address that are not dashboard values (the server's access token)
IGNORED_KEYS = frozenset({"token"})
#: a longer query string is refused whole
MAX_QUERY = 20_000


def _short(text: str) -> str:
    """``text`` as a message quotes it: a long value is cut, with its length."""
    return text if len(text) <= 24 else f"{text[:12]}…{text[-4:]} ({len(text):,} characters)"


def parse_value(control: Control, text: str) -> Any:
    """The value of ``control`` written ``text`` in a link, or
    :class:`~workbench.errors.InputError` naming the control, what it accepts
    and the text given (shortened when long). A number must be written with
    plain decimal digits: ``inf``, ``nan``, ``1e400``, ``0x10``, ``1_0`` and
    numbers of more than twelve digits are refused, never rounded or
    overflowed."""
    raw = text.strip()
    if control.kind in ("int", "optint", "float"):
        if not (control.kind == "optint" and raw.lower() == NONE_TOKEN) and not _NUMBER.fullmatch(raw):
            control.check(_short(raw))  # a string is never a number: raises with the expected text
            raise InputError(control.name, "a number", _short(raw))  # pragma: no cover - check() raised
    try:
        return control.parse(raw)
    except InputError as exc:
        raise InputError(exc.field, exc.expected, _short(raw) if isinstance(exc.got, str) else exc.got) from None
    except (ArithmeticError, ValueError, TypeError):
        raise InputError(control.name, "a value this control can show", _short(raw)) from None


def parse_query(system: str, qs: str, errors: list[str] | None = None) -> dict[str, Any]:
    """The dashboard values of ``system`` (a key of :mod:`workbench.systems`)
    written in the query string ``qs`` (with or without its leading ``?``),
    by stat-level argument name, plus ``mode``.

    A bad key or value raises :class:`~workbench.errors.InputError` naming
    the key, what is allowed and what was given; when a list is passed as
    ``errors`` the message is appended there instead and the pair is skipped
    (so that the dashboard keeps its default for it). A key given twice
    (``?bs=4&bs=5``) is read from its first value and the message says which
    value was taken. The server's ``token`` is not a dashboard value and is
    skipped.
    """
    modes = modes_for(systems.get(system))
    return parse_controls(qs, controls_of(modes), errors, modes=[m.key for m in modes])


def parse_controls(qs: str, controls: dict[str, Control], errors: list[str] | None = None,
                   modes: list[str] | None = None) -> dict[str, Any]:
    """:func:`parse_query` for any set of controls (name -> Control), plus
    ``mode`` when ``modes`` lists the allowed ones."""
    out: dict[str, Any] = {}
    text = (qs or "").lstrip("?")

    def refuse(exc: InputError) -> None:
        if errors is None:
            raise exc
        errors.append(str(exc))

    if len(text) > MAX_QUERY:
        refuse(InputError("link", f"at most {MAX_QUERY:,} characters after the '?'", _short(text)))
        return out
    given: dict[str, list[str]] = {}
    for key, value in urllib.parse.parse_qsl(text, keep_blank_values=True):
        given.setdefault(key, []).append(value)
    for key, values in given.items():
        if key in IGNORED_KEYS or not (key or any(values)):
            continue
        value = values[0]
        try:
            if key == MODE_KEY and modes:
                if value not in modes:
                    raise InputError(MODE_KEY, "one of " + ", ".join(modes), _short(value))
                out[MODE_KEY] = value
            elif key in controls:
                out[key] = parse_value(controls[key], value)
            else:
                raise InputError(_short(key) or "(no name)", "the name of a control on this page",
                                 f"{_short(key)}={_short(value)}")
        except InputError as exc:
            refuse(exc)
            continue
        if len(values) > 1:
            refuse(InputError(key, "one value", ", ".join(_short(v) for v in values),
                              f"the link gives {key} {len(values)} times; using the first, {_short(value)}"))
    return out


def format_query(values: dict[str, Any], controls: dict[str, Control], mode: str | None = None) -> str:
    """``?mode=...&bs=5&...`` for ``values`` (names in ``controls``)."""
    pairs = [(MODE_KEY, mode)] if mode else []
    pairs += [(k, controls[k].format(v)) for k, v in values.items()]
    return "?" + urllib.parse.urlencode(pairs)


def split_query(qs: str, keys: Iterable[str]) -> tuple[list[tuple[str, str]], str]:
    """The pairs of ``qs`` whose key is one of ``keys`` (a page's own keys, in order), and the
    query string of the others (what :func:`parse_controls` reads)."""
    keys = frozenset(keys)
    pairs = urllib.parse.parse_qsl((qs or "").lstrip("?"), keep_blank_values=True)
    return [p for p in pairs if p[0] in keys], urllib.parse.urlencode([p for p in pairs if p[0] not in keys])


class LinkBar(Fed, anywidget.AnyWidget):
    """The link to a dashboard's values: whenever the kernel sets ``query`` (``?name=value&...``),
    the page replaces the address bar's query with it (``history.replaceState``: no reload, no new
    history entry) and shows the full link, built in the browser from its own address, with a
    "Copy link" button. ``keep``: keys of the page's own address to carry over (the server's
    ``token``); ``follow``: whether the address bar follows ``query``; ``refit``: bump it to make
    the page's plots fit their width again (after a tab with plots is shown); ``feed``: the page's
    :class:`~workbench.ui.plotwidget.Feed`, which then carries ``query``."""

    _fed = "query"
    _esm = Module("link", static_text("feed.js", "copy.js", "link.js"))
    _css = static_text("link.css")
    query = traitlets.Unicode("").tag(sync=True)
    keep = traitlets.List(traitlets.Unicode(), default_value=["token"]).tag(sync=True)
    follow = traitlets.Bool(True).tag(sync=True)
    refit = traitlets.Int(0).tag(sync=True)


_REQUEST_SEEN = False

#: what a viewer reads when the page's link could not be read (the page shows its starting values)
LINK_UNREAD = ("This page could not read the values in its link, so it shows its starting values. "
               "Reload the page to try the link again.")


def request_query() -> str:
    """The query string of the page that opened this kernel ("" outside Voila: under Voila it is
    the kernel's ``QUERY_STRING``).

    A preheated kernel gets the request only once a viewer opens the page: wait for it once
    (:func:`workbench.ui.preheat.wait_for_request`). When it never arrives (the kernel could not
    reach the server), raise :class:`~workbench.errors.InputError` whose message is
    :data:`LINK_UNREAD`, so that the page says so instead of silently showing its starting
    values; why goes to the server's log.
    """
    global _REQUEST_SEEN
    if not _REQUEST_SEEN and os.environ.get("VOILA_PREHEAT", "False") != "False":
        said = io.StringIO()  # Voila warns (and its thread may print) on stderr, which a viewer never reads
        with contextlib.redirect_stderr(said), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            wait_for_request()
        _REQUEST_SEEN = True
        if "QUERY_STRING" not in os.environ:
            log_to_server("workbench dashboard: the page's link was not received: "
                          + " ".join([str(w.message) for w in caught] + [said.getvalue().strip()]))
            unread = InputError("link", "the values of the page's link", "none received")
            unread.args = (LINK_UNREAD,)  # its message is LINK_UNREAD alone
            raise unread
    return os.environ.get("QUERY_STRING", "")
