"""Notebook widgets and read-only dashboards over the resolver core.

A notebook builds a dashboard in one line::

    from workbench.ui import SystemDashboard
    SystemDashboard("changes").show()

One widget class per page; docs/architecture.md, "Pages and the server", says which module
holds what (links, guards, looks, the plot widget).
"""
from ..controls import Control
from ..systems.description import Mode
from .compare import CompareDashboard, compare_kwargs, concept_table
from .dashboard import SystemDashboard
from .picker import ProfilePicker
from .query import format_query, modes_for, parse_query, request_query

__all__ = [
    "SystemDashboard", "CompareDashboard", "ProfilePicker", "parse_query", "format_query", "request_query",
    "compare_kwargs", "concept_table", "Control", "Mode", "modes_for",
]
