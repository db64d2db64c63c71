"""Shareable links: dashboard values <-> URL query string.

The scheme: one ``name=value`` pair per stat-level argument, named as in the
system's function (``?bs=4&ap=6&shots=10&action=snap``), plus ``mode`` to pick
the function (``mode=melee``). Whole numbers are written plainly, booleans as
``true``/``false`` (``1``/``0``, ``yes``/``no``, ``on``/``off`` are read too),
``None`` as ``none`` (a uncapped unit: ``models=none``), choices by their
value. Keys and values are URL-encoded.

Under Voila the query string of the page is in the kernel's ``QUERY_STRING``
environment variable; with preheated kernels it arrives only once a viewer
opens the page, so :func:`request_query` first calls
``voila.utils.wait_for_request()``.
"""
from __future__ import annotations

import os
import urllib.parse
from typing import Any, Iterable

from ..errors import InputError
from .specs import Control, Mode, modes_for

__all__ = ["parse_query", "parse_values", "format_query", "request_query", "controls_of", "MODE_KEY"]

MODE_KEY = "mode"


def controls_of(modes: Iterable[Mode]) -> dict[str, Control]:
    """Every control of a system by argument name (first mode wins a shared name)."""
    out: dict[str, Control] = {}
    for m in modes:
        for c in m.controls:
            out.setdefault(c.name, c)
    return out


def parse_query(system: str, qs: str, errors: list[str] | None = None) -> dict[str, Any]:
    """The dashboard values of ``system`` (a key of :mod:`workbench.systems`)
    written in the query string ``qs`` (with or without its leading ``?``),
    by stat-level argument name, plus ``mode``.

    A bad key or value raises :class:`~workbench.errors.InputError` naming
    the key, what is allowed and what was given; when a list is passed as
    ``errors`` the message is appended there instead and the pair is skipped
    (so that the dashboard keeps its default for it).
    """
    from .. import systems
    modes = modes_for(systems.get(system))
    return parse_values(qs, controls_of(modes), modes, errors)


def parse_values(qs: str, controls: dict[str, Control], modes: Iterable[Mode] = (),
                 errors: list[str] | None = None) -> dict[str, Any]:
    """The values of ``controls`` (and ``mode``, one of ``modes``) written in
    the query string ``qs``; errors as :func:`parse_query`."""
    modes = tuple(modes)
    out: dict[str, Any] = {}
    text = (qs or "").lstrip("?")
    pairs = urllib.parse.parse_qsl(text, keep_blank_values=True)
    for key, value in pairs:
        try:
            if key == MODE_KEY and modes:
                keys = [m.key for m in modes]
                if value not in keys:
                    raise InputError(MODE_KEY, "one of " + ", ".join(keys), value)
                out[MODE_KEY] = value
            elif key in controls:
                out[key] = controls[key].parse(value)
            else:
                raise InputError("query key", "one of " + ", ".join([MODE_KEY, *controls]), key)
        except InputError as exc:
            if errors is None:
                raise
            errors.append(str(exc))
    return out


def format_query(values: dict[str, Any], controls: dict[str, Control], mode: str | None = None) -> str:
    """``?mode=...&bs=5&...`` for ``values`` (names in ``controls``)."""
    pairs = [(MODE_KEY, mode)] if mode else []
    pairs += [(k, controls[k].format(v)) for k, v in values.items()]
    return "?" + urllib.parse.urlencode(pairs)


_REQUEST_SEEN = False


def request_query() -> str:
    """The query string of the page that opened this kernel ("" outside Voila).

    With Voila's preheated kernels the request arrives after the notebook has
    run up to here: wait for it once (``voila.utils.wait_for_request``).
    """
    global _REQUEST_SEEN
    if not _REQUEST_SEEN and os.environ.get("VOILA_PREHEAT", "False") != "False":
        from voila.utils import wait_for_request
        wait_for_request()
        _REQUEST_SEEN = True
    return os.environ.get("QUERY_STRING", "")


def link_html(qs: str) -> str:
    """The "link to these values" line: a relative link the viewer can copy or
    open (wrapped, since a full set of values is a long line)."""
    import html
    q = html.escape(qs)
    return ('<span class="wb-link-label">Link to these values: </span>'
            f'<a class="wb-link-href" href="{q}" target="_self" style="word-break: break-all">{q}</a>')
