"""The link to a dashboard's current values, in the address bar and on the page.

:class:`LinkBar` is a small anywidget: whenever the kernel sets its ``query`` (the dashboard's
values), the page replaces the address bar's query with it (``history.replaceState``, a
query-only relative URL: no reload, no new history entry) and shows the full link, built in the
browser from its own address, with a "Copy link" button (docs/dashboards.md, "Shared links").
Keys of the page's address listed in ``keep`` (the server's ``token``) are carried over.
"""
from __future__ import annotations

import anywidget
import traitlets

from .plotwidget import Fed, Module, static_text

__all__ = ["LinkBar"]


class LinkBar(Fed, anywidget.AnyWidget):
    """``query``: the dashboard's values as ``?name=value&...``; ``keep``:
    keys of the page's own address to carry over; ``follow``: whether the
    address bar follows ``query``; ``refit``: bump it to make the page's
    plots fit their width again (after a tab with plots is shown); ``feed``:
    the page's :class:`~workbench.ui.plotwidget.Feed`, which then carries
    ``query``."""

    _fed = "query"
    _esm = Module("link", static_text("feed.js", "copy.js", "link.js"))
    _css = static_text("link.css")
    query = traitlets.Unicode("").tag(sync=True)
    keep = traitlets.List(traitlets.Unicode(), default_value=["token"]).tag(sync=True)
    follow = traitlets.Bool(True).tag(sync=True)
    #: bumped by the kernel when hidden plots are shown (a tab is chosen): the page re-measures its plots
    refit = traitlets.Int(0).tag(sync=True)
