"""Notebook widgets and read-only dashboards over the resolver core.

A notebook builds a dashboard in one line::

    from workbench.ui import SystemDashboard
    SystemDashboard("changes").show()

    from workbench.ui import CompareDashboard
    CompareDashboard().show()

* :class:`SystemDashboard`: one generic dashboard, built from a system's
  description (:mod:`workbench.systems`: its modes and controls);
* :class:`CompareDashboard`: the systems side by side on shared concepts
  (:mod:`workbench.ui.compare`);
* :func:`parse_query` / :func:`format_query`: the shareable-link scheme
  (``?bs=4&ap=6&shots=10&action=snap``), testable without Voila;
  :class:`~workbench.ui.link.LinkBar` keeps the address bar on the current
  values and shows the link with a copy button;
* :mod:`workbench.ui.guard`: what a viewer may send (values only, read
  against each control's declared range) and read (plain messages, never a
  traceback); :mod:`workbench.ui.looks`: the page fits any screen;
  :mod:`workbench.ui.numbers`: the Numbers table, expected counts and chances
  each said as such.
"""
from .compare import CompareDashboard, compare_kwargs, concept_table
from .dashboard import SystemDashboard
from .picker import ProfilePicker
from .query import format_query, parse_query, request_query
from .specs import Control, Mode, modes_for

__all__ = [
    "SystemDashboard", "CompareDashboard", "ProfilePicker", "parse_query", "format_query", "request_query",
    "compare_kwargs", "concept_table", "Control", "Mode", "modes_for",
]
