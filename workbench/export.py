"""Figures for forum posts: PNG and SVG through kaleido, standalone offline HTML, from an
outcome (:func:`outcome_figure`: the very traces of :mod:`workbench.figures`, as the dashboards
draw them) or a plotly figure; :func:`save_figure` takes the format from the file's suffix.

The browser (kaleido 1.x drives a Chrome-family one through ``choreographer``) is
:func:`browser_path`'s; the workbench never downloads one itself. MathJax is switched off
(kaleido would fetch it from a CDN) and plotly.js comes from the installed plotly package.
"""
from __future__ import annotations

import asyncio
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterable, Mapping

from . import figures, validate as v
from .errors import InputError, WorkbenchError
from .outcome import Outcome

__all__ = ["ExportError", "CHROMIUM", "FORMATS", "INSTALL_HINT", "browser_path", "outcome_figure", "outcomes_figure", "as_figure",
           "figure_bytes", "figure_images", "figure_html", "save_figure"]

#: Debian's Chromium (scripts/install-chromium.sh): the last resort on Linux
CHROMIUM = "/usr/bin/chromium"
#: file suffixes save_figure understands
FORMATS = ("png", "svg", "html")
DEFAULT_WIDTH = 900
DEFAULT_HEIGHT = 500

#: what to do when no browser is found
INSTALL_HINT = ("install Google Chrome or Chromium, or fetch a private copy with `plotly_get_chrome` "
                "(or `kaleido_get_chrome`; from Python: `kaleido.get_chrome_sync()`), or set "
                "WORKBENCH_CHROMIUM to a Chrome-family browser; HTML export works without one")


class ExportError(WorkbenchError):
    """A figure could not be rendered (no browser, or the browser failed)."""


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _discover() -> str | None:
    """The browser choreographer would pick on this OS, or None."""
    try:
        from choreographer.browsers.chromium import Chromium
        found = Chromium.find_browser(skip_local=False)
    except (ImportError, AttributeError, TypeError):  # an older choreographer: its PATH search only
        try:
            from choreographer.utils import browser_which  # type: ignore[attr-defined]  # only older releases export it
        except ImportError:
            return None
        found = browser_which(["google-chrome", "chrome", "chromium", "chromium-browser", "msedge"])
    return str(found) if found else None


def browser_path() -> str:
    """The Chrome-family browser kaleido drives for PNG/SVG.

    In order: ``$WORKBENCH_CHROMIUM``, ``$BROWSER_PATH``, choreographer's own
    search (:func:`_discover`: its downloaded copy, then the ``PATH``, the
    Windows registry and the usual install folders of each OS), then Debian's
    ``/usr/bin/chromium`` on Linux. Raises :class:`ExportError` naming what to
    install when none is found, or when an explicit path is not an executable.
    """
    for var in ("WORKBENCH_CHROMIUM", "BROWSER_PATH"):
        path = os.environ.get(var)
        if path:
            if not _executable(path):
                raise ExportError(f"PNG/SVG export: {var} is {path!r}, which is not an executable browser "
                                  f"(point it at Chrome or Chromium, or unset it to search; {INSTALL_HINT})")
            return path
    found = _discover()
    if found and _executable(found):
        return found
    if sys.platform.startswith("linux") and _executable(CHROMIUM):
        return CHROMIUM
    raise ExportError(f"PNG/SVG export needs a Chrome-family browser and found none on this computer: "
                      f"{INSTALL_HINT}")


# ---------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------
def outcome_figure(outcome: Outcome, title: str | None = None):
    """:func:`workbench.figures.outcome_figure` (bars of the chance of exactly N, a line of the chance
    of at least N: the very traces of the dashboards' plots) as a plotly figure."""
    import plotly.graph_objects as go

    return go.Figure(figures.outcome_figure(outcome, title))


def outcomes_figure(outcomes: Mapping[str, Outcome], title: str | None = None):
    """Several outcomes side by side (the compare dashboard's systems):
    :func:`workbench.figures.side_by_side` as a plotly figure."""
    import plotly.graph_objects as go

    if not isinstance(outcomes, Mapping):
        raise InputError("outcomes", "a mapping of names to workbench Outcomes", type(outcomes).__name__)
    return go.Figure(figures.side_by_side(outcomes, title=title or "Chance of exactly N, side by side",
                                          averages=True))


def as_figure(obj: Any):
    """An Outcome becomes :func:`outcome_figure`, a mapping of outcomes :func:`outcomes_figure`;
    a plotly figure (or its dict) stays as it is."""
    import plotly.graph_objects as go

    if isinstance(obj, Outcome):
        return outcome_figure(obj)
    if isinstance(obj, Mapping) and obj and all(isinstance(o, Outcome) for o in obj.values()):
        return outcomes_figure(obj)
    if isinstance(obj, go.Figure):
        return obj
    if isinstance(obj, dict) and "data" in obj:
        return go.Figure(obj)
    raise InputError("outcome_or_figure", "a workbench Outcome or a plotly Figure", type(obj).__name__)


def _size(name: str, value: Any) -> int:
    return v.integer(name, value, 10, 10_000)


def figure_images(obj: Any, formats: Iterable[str] = ("png", "svg"), *, width: int = DEFAULT_WIDTH,
                  height: int = DEFAULT_HEIGHT, scale: float = 1) -> dict[str, bytes]:
    """Render one figure to several static formats in one browser session."""
    import kaleido

    fig = as_figure(obj)
    formats = [v.choice("format", f, ("png", "svg")) for f in formats]
    width, height = _size("width", width), _size("height", height)
    scale = v.real("scale", scale, 0, 10, lo_open=True)
    path = browser_path()
    opts = [dict(format=f, width=width, height=height, scale=scale) for f in formats]

    async def run() -> list[bytes]:
        async with kaleido.Kaleido(path=path, mathjax=False, n=1) as k:
            return [await k.calc_fig(fig, opts=o) for o in opts]

    # its own thread and event loop: works inside Jupyter/Voila kernels too
    with ThreadPoolExecutor(1, thread_name_prefix="workbench-kaleido") as pool:
        images = pool.submit(asyncio.run, run())
    exc = images.exception()
    if exc is not None:
        raise ExportError(f"rendering {'/'.join(formats)} with the browser at {path!r} failed: "
                          f"{type(exc).__name__}: {exc}") from exc
    return dict(zip(formats, images.result()))


def figure_html(obj: Any, *, width: int | None = None, height: int | None = None) -> str:
    """A standalone page with plotly.js inlined (no script from the network)."""
    fig = as_figure(obj)
    return fig.to_html(include_plotlyjs=True, include_mathjax=False, full_html=True,
                       default_width=f"{_size('width', width)}px" if width else "100%",
                       default_height=f"{_size('height', height)}px" if height else "100%",
                       config={"displaylogo": False, "responsive": True})


def figure_bytes(obj: Any, fmt: str, *, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT,
                 scale: float = 1) -> bytes:
    """The bytes of one format: "png", "svg" or "html"."""
    fmt = v.choice("format", fmt, FORMATS)
    if fmt == "html":
        return figure_html(obj, width=width, height=height).encode("utf-8")
    return figure_images(obj, (fmt,), width=width, height=height, scale=scale)[fmt]


def save_figure(outcome_or_figure: Any, path: str | os.PathLike, *, width: int = DEFAULT_WIDTH,
                height: int = DEFAULT_HEIGHT, scale: float = 1) -> Path:
    """Write an outcome's figure (:func:`outcome_figure`) or a plotly figure to ``path``.

    The format is the suffix: ``.png`` and ``.svg`` are rendered by kaleido
    with the browser of :func:`browser_path` at ``width`` x ``height`` pixels (times
    ``scale`` for PNG); ``.html`` is a standalone page with plotly.js inlined
    that works offline. Any other suffix raises
    :class:`~workbench.errors.InputError`. Returns the path written.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputError("path", "a file path ending in .png, .svg or .html", path)
    p = Path(path)
    suffix = p.suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise InputError("path", "a file name ending in .png, .svg or .html", str(path),
                         "the format is taken from the suffix")
    data = figure_bytes(outcome_or_figure, suffix, width=width, height=height, scale=scale)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p
