"""The served dashboards of the designers' rule files, written when the server starts.

Every rule file the registry (:mod:`workbench.systems`) finds (the
checkout's ``rules/`` folder and the folders of ``WORKBENCH_RULES``) gets a
small notebook in the server's staged folder, named by its key
(``kill6.ipynb``, served at ``/voila/render/kill6.ipynb``), whose cells only
call the package: the generic :class:`~workbench.ui.SystemDashboard` over the
rule file's description (controls from the stats' kinds, ranges, labels and
help). Nothing of the rule file's folder is served: only these generated
notebooks sit in the staged folder.

A rule file that does not load, or whose key names a page the server
already has, is not served; the landing page lists it with its message in
plain words, and every other page is served as usual.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .serve import Dashboard

__all__ = ["RulePages", "stage_rule_pages", "rule_notebook"]


@dataclass(frozen=True)
class RulePages:
    """What :func:`stage_rule_pages` staged: one dashboard per rule file that
    loaded, and (file name, message) for each one that is not served."""

    dashboards: tuple[Dashboard, ...]
    broken: tuple[tuple[str, str], ...]

    def landing_items(self) -> str:
        """The landing page's entries of the rule files that are not served (HTML ``<li>``s, no link)."""
        return "\n".join(
            f'<li class="wb-broken" style="border-color:#b00020"><strong>{html.escape(name)}</strong>'
            f"<span>This rule file has a mistake, so it has no dashboard yet. {html.escape(message)}</span></li>"
            for name, message in self.broken)


def rule_notebook(key: str, title: str, blurb: str) -> nbformat.NotebookNode:
    """The dashboard notebook of one rule file: a heading and two cells calling the package."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"# {title}\n\n{blurb}"),
        nbformat.v4.new_code_cell(f"from workbench.ui import SystemDashboard\n\n"
                                  f"dashboard = SystemDashboard({key!r})"),
        nbformat.v4.new_code_cell("dashboard.show()"),
    ]
    return nb


_LOADER_MESSAGE = re.compile(r"^(?:[^:]*?)(?:, line (?P<line>\d+))?: (?P<field>[^:]+): "
                             r"expected (?P<expected>.*), got (?P<got>.*)$", re.S)


def _plain(message: str, path: Path) -> str:
    """The loader's message in a designer's words ("Line 4, at system.die: it
    should be ..., but the file has ..."), without the folders of the file."""
    for form in (str(path.resolve()), str(path)):
        message = message.replace(form, path.name)
    m = _LOADER_MESSAGE.match(message)
    if m is None:
        return message
    where = f"Line {m['line']}, at {m['field']}" if m["line"] else f"At {m['field']}"
    return f"{where}: it should be {m['expected']}, but the file has {m['got']}."


def stage_rule_pages(dest: Path, taken: tuple[str, ...] = ()) -> RulePages:
    """Write one dashboard notebook per registered rule file into ``dest``
    (read-only, like the staged built-in notebooks); ``taken`` are the
    notebook names the server already serves. Returns what was staged and
    what is not served, with why."""
    from . import systems

    builtin = set(systems.builtins())
    pages, broken = [], [(b.path.name, _plain(b.message, Path(b.path))) for b in systems.broken()]
    for key in systems.keys():
        if key in builtin:
            continue
        d = systems.get(key)
        name = f"{key}.ipynb"
        where = d.path.name if d.path else key
        if name in taken:
            broken.append((where, f"its key {key!r} is the name of another page; give it another key"))
            continue
        target = dest / name
        try:
            nbformat.write(rule_notebook(key, d.title, d.blurb), target)
            target.chmod(0o444)
        except (OSError, ValueError) as exc:  # one file's page never stops the others
            broken.append((where, f"its page could not be written ({exc})"))
            continue
        pages.append(Dashboard(name, d.title, f"{d.blurb} (rule file {where})"))
    return RulePages(tuple(pages), tuple(broken))
