"""The rule editor: a rule file's TOML text beside its live dashboard (JupyterLab only; how an
edit, a mistake and **Save** behave is docs/rule-dashboards.md, "The rule editor").

**What the edit changed** draws the baseline's distribution of models removed (the last saved
text, or the one kept with **Keep as baseline**) under the current one at the dashboard's values,
with the change of the headline numbers. The editor writes files, so it is never part of a served page.
"""
from __future__ import annotations

import asyncio
import atexit
import html
import shutil
import tempfile
from pathlib import Path
from typing import Any

import ipywidgets as W

from .. import rules
from ..errors import WorkbenchError
from ..systems.description import describe_rules
from .dashboard import SystemDashboard
from .looks import html_widget

__all__ = ["RuleEditor", "scratch_copy"]

#: the prefix of the temporary folders of :func:`scratch_copy`
SCRATCH_PREFIX = "rule-editor-"


def scratch_copy(source: str | Path) -> Path:
    """A copy of the rule file ``source`` in a temporary folder of its own, to
    try edits on without changing the original; the folder is removed when
    this Python process (the notebook's kernel) ends."""
    source = Path(source)
    if not source.is_file():
        raise WorkbenchError(f"source: expected a rule file, got {str(source)!r} (no such file)")
    folder = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Path(shutil.copyfile(source, folder / source.name))

#: the colour of the edited system on its dashboard (it is not on any shared plot)
EDITOR_COLOUR = "#8172B3"

_STYLE = ("<style>.wb-rule-text textarea{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;"
          "font-size:13px;line-height:1.35;white-space:pre;tab-size:2}</style>")


def _message_html(kind: str, text: str) -> str:
    colour = {"error": "#b00020", "ok": "#1b6e20", "info": "#555"}[kind]
    return f'<div class="wb-editor-{kind}" style="color:{colour};white-space:pre-wrap">{text}</div>'


class RuleEditor:
    """A rule file's text (``text``, a monospaced Textarea) beside its live
    dashboard (``dashboard``, a :class:`~workbench.ui.SystemDashboard`).

    * ``text.value = ...`` (typing): parsed again after ``debounce`` seconds
      without a keystroke (at once with ``debounce=0`` or outside a running
      event loop); :meth:`apply` parses now;
    * ``system``: the last :class:`~workbench.rules.RuleSystem` that parsed;
      ``error``: the current text's :class:`~workbench.rules.RuleFileError`
      (None when it parses); ``status``: the message shown;
    * :meth:`save` (the **Save** button) writes the text to ``path``.
    """

    def __init__(self, path: str | Path, *, debounce: float = 0.6):
        self.path = Path(path)
        self.debounce = float(debounce)
        self.redraws = 0
        self.system: rules.RuleSystem | None = None
        self.error: WorkbenchError | None = None
        self.dashboard: SystemDashboard | None = None
        self._pending: asyncio.TimerHandle | None = None
        self._saved_text = self.path.read_text(encoding="utf-8")
        self.baseline: rules.RuleSystem | None = None  # the RuleSystem the current text is compared with
        self.baseline_text = ""
        self.change = html_widget("wb-editor-change")
        self.keep_button = W.Button(description="Keep as baseline", icon="thumb-tack",
                                    tooltip="compare the next edits with the current text")
        self.keep_button.on_click(lambda _: self.keep_baseline())
        from .plotwidget import Plot
        self.change_fig = Plot(_change_figure()).add_class("wb-plot-change")
        change_box = W.VBox([W.HTML("<b>What the edit changed</b>"), W.HBox([self.keep_button]), self.change,
                             self.change_fig]).add_class("wb-editor-baseline")

        self.text = W.Textarea(value=self._saved_text, continuous_update=True,
                               layout=W.Layout(width="100%", height="44em")).add_class("wb-rule-text")
        self.status = html_widget("wb-editor-status")
        self.save_button = W.Button(description="Save", icon="save", button_style="primary",
                                    tooltip=f"write the text to {self.path}")
        self.save_button.on_click(lambda _: self.save())
        self.saved = W.HTML("")
        head = W.HTML(f"{_STYLE}<b>{html.escape(self.path.name)}</b> "
                      f"<span style='color:#555'>{html.escape(str(self.path.parent))}</span>")
        self.dashboard_box = W.VBox([], layout=W.Layout(flex="1 1 60%", min_width="420px"))
        right = W.VBox([self.dashboard_box, change_box], layout=W.Layout(flex="1 1 60%", min_width="420px"))
        left = W.VBox([head, self.text, W.HBox([self.save_button, self.saved]), self.status],
                      layout=W.Layout(flex="1 1 40%", min_width="320px"))
        self.widget = W.HBox([left, right],
                             layout=W.Layout(flex_flow="row wrap", width="100%")).add_class("wb-rule-editor")
        self.text.observe(self._on_edit, names="value")
        self.apply()
        if self.system is not None:
            self.keep_baseline()

    # -- parsing -----------------------------------------------------------
    def _on_edit(self, change=None) -> None:
        self._mark_saved()
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        try:
            loop = asyncio.get_running_loop() if self.debounce > 0 else None
        except RuntimeError:  # no event loop running: parsed at once
            loop = None
        if loop is None:
            self.apply()
        else:
            self.status.value = _message_html("info", "reading the rule file…")
            self._pending = loop.call_later(self.debounce, self.apply)

    def apply(self) -> bool:
        """Parse the current text: redraw the dashboard if it parses, show the
        error with its line if not. Returns whether it parsed."""
        self._pending = None
        text = self.text.value
        try:
            system = rules.loads(text, self.path)
            description = describe_rules(system, EDITOR_COLOUR)
            dashboard = SystemDashboard(description, profiles=False)
        except WorkbenchError as exc:
            self.error = exc
            self.status.value = _message_html("error", self._error_text(exc, text))
            return False
        moved = {}
        if self.dashboard is not None:
            before = self.dashboard.defaults()
            moved = {k: v for k, v in self.dashboard.values().items() if before.get(k) != v}  # set by hand
        kept = {k: v for k, v in moved.items() if k in dashboard.specs and _fits(dashboard.specs[k], v)}
        if kept:
            dashboard.set_values(**kept)
        self.system, self.error, self.dashboard = system, None, dashboard
        self.dashboard_box.children = [dashboard.widget]
        dashboard.on_refresh(self._show_change)
        self._show_change()
        self.redraws += 1
        stats = ", ".join(s.label or s.name for s in system.stats)
        self.status.value = _message_html(
            "ok", html.escape(f"{system.name}: {len(system.stages)} stages; stats {stats}."))
        return True

    @staticmethod
    def _error_text(exc: WorkbenchError, text: str) -> str:
        line = getattr(exc, "line", None)
        out = "&#9888; " + html.escape(str(exc))
        if line:
            lines = text.splitlines()
            if 1 <= line <= len(lines):
                out += f"\n<code>line {line}: {html.escape(lines[line - 1])}</code>"
        out += "\nThe dashboard shows the last version that worked."
        return out

    # -- saving ------------------------------------------------------------
    def save(self) -> bool:
        """Write the text to the file it was opened from if it parses; returns whether it wrote."""
        if self._pending is not None:
            self._pending.cancel()
            self.apply()
        elif self.error is None and self.system is not None and self.system.source != self.text.value:
            self.apply()
        if self.error is not None:
            self.saved.value = _message_html("error", "not saved: fix the error first")
            return False
        self.path.write_text(self.text.value, encoding="utf-8")
        self._saved_text = self.text.value
        self._mark_saved()
        self.keep_baseline()
        return True

    # -- the baseline --------------------------------------------------------
    def keep_baseline(self) -> bool:
        """Compare the next edits with the current text (if it parses); returns whether it did."""
        if self.error is not None or self.system is None:
            return False
        self.baseline, self.baseline_text = self.system, self.system.source
        self._show_change()
        return True

    def outcomes(self):
        """``(baseline, current)`` outcomes at the dashboard's values (None where there is none:
        no baseline yet, or a value the baseline's stats do not take)."""
        current = None if self.dashboard is None else self.dashboard.current_outcome()
        if current is None or self.baseline is None:
            return None, current
        before = describe_rules(self.baseline, EDITOR_COLOUR)
        function = before.modes[0].function
        accepted = before.arguments(function)
        values = {k: v for k, v in self.dashboard.values().items() if k in accepted}
        try:
            return before.function(function)(**values), current
        except WorkbenchError:
            return None, current

    def _show_change(self) -> None:
        before, after = self.outcomes()
        self.change_fig.show(_change_figure(before, after), plain=True)  # only the new bars travel
        if after is None:
            self.change.value = ""
        elif before is None:
            self.change.value = _message_html("info", "The baseline does not take these values.")
        elif self.baseline_text == self.text.value:
            self.change.value = _message_html("info", "The text is the baseline: nothing changed yet.")
        else:
            self.change.value = _change_html(before, after)

    def _mark_saved(self) -> None:
        same = self.text.value == self._saved_text
        self.saved.value = _message_html("ok" if same else "info", "saved" if same else "unsaved changes")

    # -- display -----------------------------------------------------------
    def show(self) -> None:
        from IPython.display import display
        display(self.widget)

    _ipython_display_ = show


def _change_figure(before=None, after=None):
    """Models removed by the baseline (grey) under the current text's (``None``: no bars)."""
    from .. import figures

    figure = figures.side_by_side({"baseline": before, "now": after},
                                  colours={"baseline": "#b0b0b0", "now": EDITOR_COLOUR}, barmode="overlay",
                                  title="Models removed: baseline (grey) under the current text", height=300)
    figure["data"][1]["opacity"] = 0.7
    return figure


def _change_html(before, after) -> str:
    """The headline numbers, baseline -> now, and their change."""
    from ..teach import pct
    rows = [("expected models removed", f"{before.mean:.2f}", f"{after.mean:.2f}", f"{after.mean - before.mean:+.2f}"),
            ("chance of at least one", pct(before.at_least(1)), pct(after.at_least(1)),
             f"{100 * (after.at_least(1) - before.at_least(1)):+.1f} points")]
    from .looks import table_html
    return table_html(("", "baseline", "now", "change"), ((a, b, c, f"<b>{d}</b>") for a, b, c, d in rows),
                      "wb-change", wrap=False)


def _fits(control: Any, value: Any) -> bool:
    try:
        control.check(value)
    except (WorkbenchError, ValueError, TypeError):
        return False
    return True
