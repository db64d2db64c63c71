"""The served dashboards of the designers' rule files, written when the server starts.

Every rule system the registry (:mod:`workbench.systems`) finds gets a small
notebook in the server's staged folder, named by its key (``kill6.ipynb``),
whose cells only call the package (:func:`rule_dashboard`: the generic
:class:`~workbench.ui.SystemDashboard` over the system's description); a copy of
the Changes folder with its ``turn.toml`` gets its turn page too
(``my_changes-turn.ipynb``: a key has no hyphen, so no system's page takes the
name); nothing of the rule folders is served. A page names a file by its name, a file of a
rule folder as ``folder/file.toml``. A file that does not load, or whose key
names another page, is listed on the landing page with its message in plain
words, also when it breaks while the server runs (:meth:`RulePages.now`); its
page then shows the error (:class:`BrokenRulePage`). docs/rule-dashboards.md.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from . import systems
from .servepages import TURN_LINE, Dashboard

__all__ = ["RulePages", "stage_rule_pages", "rule_notebook", "rule_dashboard", "BrokenRulePage"]


@dataclass(frozen=True)
class RulePages:
    """What :func:`stage_rule_pages` staged: one dashboard per rule file that
    loaded, and (file name, message) for each one that is not served."""

    dashboards: tuple[Dashboard, ...]
    broken: tuple[tuple[str, str], ...]
    #: (rule file name, message) of the files refused for another reason than their
    #: content (a key another page has, a page that could not be written): kept by :meth:`now`
    refused: tuple[tuple[str, str], ...] = ()

    def now(self) -> "RulePages":
        """These pages as the rule files are now: a staged page whose file no
        longer loads moves to the broken ones (with the loader's message), and
        back once the file is fixed. Pages are staged once, at start: a file
        added while serving gets no page until the server is restarted."""
        loaded = set(systems.keys())
        broken = _broken()
        names = {name for name, _ in broken}
        served = tuple(d for d in self.dashboards if _key_of(d) in loaded)
        gone = [(d.notebook.removesuffix(".ipynb"), "this rule file is no longer in its folder")
                for d in self.dashboards if d not in served and not _covers(_file_of(d), names)]
        refused = [item for item in self.refused if not _covers(item[0], names)]
        return RulePages(served, tuple(broken + gone + refused), self.refused)

    def landing_items(self) -> str:
        """The landing page's entries of the rule files that are not served (HTML ``<li>``s, no link)."""
        return "\n".join(
            f'<li class="wb-broken" style="border-color:#b00020"><strong>{html.escape(name)}</strong>'
            f"<span>This rule file has a mistake, so it has no dashboard yet. {html.escape(message)}</span></li>"
            for name, message in self.broken)


def _key_of(dashboard: Dashboard) -> str:
    """The system key a staged page belongs to (``my_changes-turn.ipynb``: ``my_changes``)."""
    return dashboard.notebook.removesuffix(".ipynb").split("-")[0]


def _file_of(dashboard: Dashboard) -> str:
    """The rule file (or rule folder) name a staged page's blurb ends with ("... (rule file kill6.toml)",
    "... (rule folder my_changes)")."""
    m = re.search(r"\(rule (?:file|folder) ([^()]+)\)$", dashboard.blurb)
    return m.group(1) if m else ""


def shown_name(path: Path) -> str:
    """A rule file as a page names it: its file name; a file of a rule folder with the folder's
    name before it (``my_changes/melee.toml``)."""
    path = Path(path)
    top = {f.resolve() for f in systems.rule_folders()}
    if path.parent.resolve() in top or path.is_dir():
        return path.name
    return f"{path.parent.name}/{path.name}"


def _covers(where: str, names) -> bool:
    """Whether a page's file or folder ``where`` is among ``names`` (a folder: by any of its files)."""
    return any(n == where or n.startswith(where + "/") for n in names)


def _broken() -> list[tuple[str, str]]:
    """(shown name, message in a designer's words) of every rule file the registry could not load."""
    return [(shown_name(b.path), _plain(b.message, Path(b.path))) for b in systems.broken()]


def rule_notebook(key: str, title: str, blurb: str, file_name: str | None = None,
                  page: str | None = None) -> nbformat.NotebookNode:
    """The dashboard notebook of one rule file, or of the ``page`` of a rule folder (``"turn"``): a
    heading and two cells calling the package (:func:`rule_dashboard`, which shows the file's error
    if it breaks later)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"# {title}\n\n{blurb}"),
        nbformat.v4.new_code_cell(f"from workbench.rulepages import rule_dashboard\n\n"
                                  f"dashboard = rule_dashboard({key!r}, {(file_name or key)!r}"
                                  + (f", {page!r})" if page else ")")),
        nbformat.v4.new_code_cell("dashboard.show()"),
    ]
    return nb


_LOADER_MESSAGE = re.compile(r"^(?:[^:]*?)(?:, line (?P<line>\d+))?: (?P<field>[^:]+): "
                             r"expected (?P<expected>.*), got (?P<got>.*)$", re.S)


def _plain(message: str, path: Path) -> str:
    """The loader's message in a designer's words ("Line 4, at system.die: it
    should be ..., but the file has ..."), without the folders of the file."""
    for form in (str(path.resolve()), str(path)):
        message = message.replace(form, shown_name(path))
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
    builtin = set(systems.builtins())
    pages, refused = [], []
    broken = _broken()
    for key in systems.keys():
        if key in builtin:
            continue
        d = systems.get(key)
        name = f"{key}.ipynb"
        where = d.path.name if d.path else key
        kind = "folder" if d.path is not None and d.path.is_dir() else "file"
        if name in taken:
            refused.append((where, f"its key {key!r} is the name of another page; give it another key"))
            continue
        # (notebook, title, blurb, the file a refusal names, its page of the folder or "", where the file is)
        staged = [(name, d.title, d.blurb, where, "", f"rule {kind} {where}")]
        turn = getattr(d.module, "pages", {}).get("turn")
        if turn is not None:
            staged.append((f"{key}-turn.ipynb", turn.view.title or turn.name, TURN_LINE, f"{where}/turn.toml", "turn",
                           f"rule folder {where}"))
        for name, title, blurb, shown, page, source in staged:
            try:
                nbformat.write(rule_notebook(key, title, blurb, where, page), dest / name)
                (dest / name).chmod(0o444)
            except (OSError, ValueError) as exc:  # one file's page never stops the others
                refused.append((shown, f"its page could not be written ({exc})"))
                break
            pages.append(Dashboard(name, title, f"{blurb} ({source})"))
    return RulePages(tuple(pages), tuple(broken + refused), tuple(refused))


#: what the page of a rule file that no longer loads says, before the file's own message
BROKEN_PAGE = "This rule file has a mistake, so its dashboard cannot be shown until it is fixed."


class BrokenRulePage:
    """What a rule file's page shows when the file no longer loads: its name
    and the loader's message in a designer's words (line, field, what it
    should be, what it has), never a traceback."""

    def __init__(self, file_name: str, message: str):
        self.file_name, self.message = file_name, message

    def html(self) -> str:
        return (f'<div class="wb-error wb-rule-broken" role="alert" style="border:2px solid #b00020;'
                f'padding:0.8em;color:#b00020"><p><strong>{html.escape(BROKEN_PAGE)}</strong></p>'
                f'<p class="wb-error-message">{html.escape(self.file_name)}: {html.escape(self.message)}</p>'
                "<p>Fix the file, then reload this page.</p></div>")

    def show(self) -> "BrokenRulePage":
        from IPython.display import HTML, display

        display(HTML(self.html()))
        return self

    def _repr_html_(self) -> str:
        return self.html()


def rule_dashboard(key: str, file_name: str, page: str | None = None):
    """The served page of the rule file (or rule folder) ``file_name`` (system ``key``): its
    :class:`~workbench.ui.SystemDashboard`, or with ``page="turn"`` the folder's turn page
    (:class:`~workbench.ui.turn.TurnDashboard`), or a :class:`BrokenRulePage` with
    the file's error when the file no longer loads (it broke while the server runs)."""
    if key in systems.keys():
        if page == "turn":
            if "turn" not in getattr(systems.get(key).module, "pages", {}):
                return BrokenRulePage(f"{file_name}/turn.toml", "the file is no longer in its rule folder.")
            from .ui.turn import TurnDashboard
            return TurnDashboard(system=key)
        from .ui import SystemDashboard
        return SystemDashboard(key)
    for b in systems.broken():
        shown = shown_name(b.path)
        if _covers(file_name, (shown,)) or b.key == key:
            return BrokenRulePage(shown, _plain(b.message, Path(b.path)))
    return BrokenRulePage(file_name, "the file is no longer in its rule folder, or no longer names this system.")
