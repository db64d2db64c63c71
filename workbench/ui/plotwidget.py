"""The workbench's own plot widget, and what the page's other widgets of the workbench share.

* :class:`Plot` (an anywidget) draws a plotly figure with plotly.js's prebuilt bundles, which
  the workbench vendors (``workbench/ui/static/``, see VENDORED.md there), so a page works
  offline and loads no CDN; :class:`PlotlyLibrary` names the bundle for the plots of a page.
* :class:`Feed` carries the numbers of a whole page in one message per recompute.
* :class:`Module` is a widget class's JavaScript (files of ``workbench/ui/static/``), served
  by the dashboard server (:func:`module_route`, :func:`library_route`).
"""
from __future__ import annotations

import contextlib
import copy
import functools
import gzip
import hashlib
import itertools
import json
import math
import os
from collections.abc import Mapping
from importlib import resources
from typing import Any

import anywidget
import ipywidgets as W
import traitlets as T

__all__ = ["Plot", "PlotlyLibrary", "Feed", "Fed", "FedHTML", "BUNDLES", "as_json", "diff", "merge", "library_route", "LIBRARY_ENV",
           "LIBRARY_PATH"]

#: bundle name -> vendored file (workbench/ui/static/)
BUNDLES = {"basic": "plotly-basic.min.js", "cartesian": "plotly-cartesian.min.js"}
#: trace types the basic bundle draws
BASIC_TYPES = frozenset({"scatter", "bar", "pie"})
#: how a plot is drawn: no modebar (it covered the titles), no plotly logo, as wide as its box
CONFIG = {"displayModeBar": False, "displaylogo": False, "responsive": True}
#: set (to :data:`LIBRARY_PATH`) by the dashboard server for its kernels: the bundles are served there
LIBRARY_ENV = "WORKBENCH_PLOTLY_URL"
#: where the dashboard server serves the bundles, under its base URL
LIBRARY_PATH = "workbench/plotly/"


def _static(name: str) -> bytes:
    return resources.files("workbench.ui").joinpath("static", name).read_bytes()


def static_text(*names: str) -> str:
    """The files of ``workbench/ui/static/`` named, one after the other, as one text."""
    return "".join(_static(name).decode("utf-8") for name in names)


@functools.lru_cache(maxsize=None)
def _compressed(bundle: str) -> bytes:
    # mtime=0: the same bytes every time (a page's websocket traffic does not depend on the clock)
    return gzip.compress(_static(BUNDLES[bundle]), compresslevel=9, mtime=0)


@functools.lru_cache(maxsize=None)
def _version(bundle: str) -> str:
    return hashlib.sha256(_static(BUNDLES[bundle])).hexdigest()[:16]


def library_url(bundle: str, prefix: str = LIBRARY_PATH) -> str:
    """The bundle's address under the page's base URL, with its content's hash
    as ``?v=`` (the server then lets browsers cache it for good; a new
    plotly.js is a new address)."""
    return f"{prefix}{BUNDLES[bundle]}?v={_version(bundle)}"


def library_route(server_url: str = "/") -> tuple[str, type, dict[str, str]]:
    """The tornado route that serves the vendored bundles (and nothing else of
    the folder): ``(pattern, StaticFileHandler, {"path": folder})``. The
    server adds it to its handlers (gzip-compressed like its other static
    files) and sets ``$WORKBENCH_PLOTLY_URL`` to :data:`LIBRARY_PATH` before
    the kernels start."""
    import tornado.web

    base = server_url if server_url.endswith("/") else server_url + "/"
    names = "|".join(name.replace(".", r"\.") for name in BUNDLES.values())
    folder = resources.files("workbench.ui").joinpath("static")
    return f"{base}{LIBRARY_PATH}({names})", tornado.web.StaticFileHandler, {"path": str(folder)}


#: the JavaScript module of each of the workbench's own widget classes (anywidget ``_esm``), by name
MODULES: dict[str, str] = {}


@functools.lru_cache(maxsize=None)
def _module_version(name: str) -> str:
    return hashlib.sha256(MODULES[name].encode("utf-8")).hexdigest()[:16]


def module_url(name: str, prefix: str = LIBRARY_PATH) -> str:
    """The address of the module ``name`` under the page's base URL, versioned
    by its content as the bundles are (:func:`library_url`)."""
    return f"{prefix}{name}.mjs?v={_module_version(name)}"


class Module(T.Unicode):
    """An anywidget's ``_esm``: the JavaScript module ``code`` of its class, sent
    as the code itself, or, to the kernels of the dashboard server
    (``$WORKBENCH_PLOTLY_URL`` set), as the module's address under the page's
    base URL (:func:`module_url`), which the page's front end resolves. The
    browser then fetches and compiles each module once for every widget of its
    class (and caches it for every later page), where the code itself is
    compiled once per widget and sent in every page's widget state."""

    def __init__(self, name: str, code: str):
        super().__init__(code)
        self.tag(sync=True)
        self.module = name
        MODULES[name] = code

    def default(self, obj: Any = None) -> str:
        prefix = os.environ.get(LIBRARY_ENV)
        return module_url(self.module, prefix) if prefix else str(self.default_value)


def module_route(server_url: str = "/") -> tuple[str, type]:
    """The tornado route that serves :data:`MODULES` as ``<name>.mjs`` beside the
    bundles (compressed by the server's ``compress_response``), each cacheable
    for good at its versioned address (a new module is a new address)."""
    import tornado.web

    class ModuleHandler(tornado.web.RequestHandler):
        def get(self, name: str) -> None:
            if name not in MODULES:
                raise tornado.web.HTTPError(404)
            self.set_header("Content-Type", "text/javascript; charset=utf-8")
            if self.get_argument("v", "") == _module_version(name):
                self.set_header("Cache-Control", "public, max-age=31536000, immutable")
            self.finish(MODULES[name])

    base = server_url if server_url.endswith("/") else server_url + "/"
    return rf"{base}{LIBRARY_PATH}(\w+)\.mjs", ModuleHandler


class PlotlyLibrary(anywidget.AnyWidget):
    """plotly.js (one vendored bundle) for the plots of a page. Under the dashboard server
    (``$WORKBENCH_PLOTLY_URL`` set) it holds the bundle's address under the page's base URL
    (``url``), and the browser fetches the file as any static file: gzip-compressed by the server
    and cached for every later page (:func:`library_route`). Anywhere else (a designer's notebook)
    it carries the bundle itself, gzip-compressed (``code``), over the kernel's websocket.
    ``"basic"`` (scatter, bar, pie) draws every plot; ``"cartesian"`` (adds heatmap, histogram,
    box, contour) a page that shows a heatmap. Use :meth:`shared`: one per bundle in a kernel,
    shared by every plot of the page."""

    _esm = Module("empty", "export default {};")
    bundle = T.Unicode("basic").tag(sync=True)
    url = T.Unicode("").tag(sync=True)
    code = T.Bytes(b"").tag(sync=True)

    @classmethod
    def shared(cls, bundle: str = "basic") -> "PlotlyLibrary":
        if bundle not in BUNDLES:
            from ..errors import InputError
            raise InputError("bundle", "one of " + ", ".join(map(repr, BUNDLES)), bundle)
        lib = _LIBRARIES.get(bundle)
        if lib is None or lib.comm is None:  # closed (a kernel's widgets were closed): make another
            prefix = os.environ.get(LIBRARY_ENV)
            source = {"url": library_url(bundle, prefix)} if prefix else {"code": _compressed(bundle)}
            lib = _LIBRARIES[bundle] = cls(bundle=bundle, **source)
        return lib


_LIBRARIES: dict[str, PlotlyLibrary] = {}


class KernelOnly:
    """Mixin of a widget the page only reads (a plot, a text, the link, the feed): of the page's
    messages only a request for the state is answered, so the page never changes one (the
    controls, which the page does change, are :class:`workbench.ui.guard.ViewerSafe`)."""

    def _handle_msg(self, msg):
        try:
            if msg["content"]["data"].get("method") == "request_state":
                self.send_state()
        except Exception:  # noqa: BLE001 - a malformed message is dropped
            return


class Feed(KernelOnly, anywidget.AnyWidget):
    """The numbers of a page, one message per recompute: a widget made with ``feed=`` (a
    :class:`Plot`, a :class:`FedHTML`, a :class:`~workbench.ui.query.LinkBar`) sends its changing
    trait through the page's feed instead of a message of its own. Each widget message costs a
    kernel as much CPU as a few small plots' numbers, so a move sends one, not six.

    ``frame`` maps each fed widget's ``key`` to the current value of its fed trait; the page's
    fed widgets read their own entry (never shown itself, never written by the page).
    :meth:`post` sets one entry; inside :meth:`batch` the entries are gathered and sent together
    at its end (nothing when none changed)."""

    _esm = Module("empty", "export default {};")
    frame = T.Dict().tag(sync=True)

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self._held = 0
        self._pending: dict[str, Any] = {}
        self._keys = itertools.count(1)

    def new_key(self) -> str:
        return str(next(self._keys))

    def post(self, key: str, value: Any) -> None:
        """The entry of ``key`` is now ``value`` (sent now, or at the end of the batch)."""
        self._pending[key] = value
        if not self._held:
            self._flush()

    @contextlib.contextmanager
    def batch(self):
        """Gather every :meth:`post` until the end; then send the frame once."""
        self._held += 1
        try:
            yield self
        finally:
            self._held -= 1
            if not self._held:
                self._flush()

    def _flush(self) -> None:
        if not self._pending:
            return
        frame = {**self.frame, **self._pending}
        self._pending = {}
        if frame != self.frame:
            self.frame = frame


class Fed(KernelOnly, W.DOMWidget):
    """A widget whose trait named by ``_fed`` travels through a :class:`Feed`
    when one is given (``feed=``): that trait is then not synced on its own
    (its changes are posted to the feed under ``key``); without a feed it is
    synced as usual. Mixed into an anywidget before it."""

    _fed = ""
    feed = T.Instance(Feed, allow_none=True).tag(sync=True, **W.widget_serialization)
    key = T.Unicode("").tag(sync=True)

    def __init__(self, *args: Any, feed: Feed | None = None, **kwargs: Any):
        self._by_feed = feed is not None  # read by the synced keys' default, which anywidget reads first
        if feed is not None:
            kwargs.setdefault("key", feed.new_key())
        super().__init__(*args, feed=feed, **kwargs)
        if feed is not None:
            feed.post(self.key, getattr(self, self._fed))
            self.observe(lambda change: feed.post(self.key, change.new), names=self._fed)

    @T.default("keys")
    def _default_keys(self):
        names = list(self.traits(sync=True))
        return [n for n in names if n != self._fed] if self._by_feed else names


class FedHTML(Fed, anywidget.AnyWidget):
    """HTML on the page (as ``ipywidgets.HTML``: ``value``, the same CSS
    classes), whose ``value`` travels through the page's :class:`Feed`."""

    _fed = "value"
    _esm = Module("html", static_text("feed.js", "html.js"))
    value = T.Unicode("").tag(sync=True)


def as_json(figure: Any) -> dict[str, Any]:
    """A figure as plain plotly JSON (lists, floats, strings): a plotly ``Figure``
    (or a dict with numpy arrays, dates, NaN) becomes lists and numbers, a NaN
    ``null`` (a gap, as plotly.js draws it); a plain dict comes back equal. A
    :mod:`workbench.figures` dict needs none of this: ``Plot.show(figure, plain=True)``."""
    figure = _plainly(figure.to_plotly_json() if hasattr(figure, "to_plotly_json") else dict(figure))
    data = [{k: v for k, v in t.items() if k != "uid"} for t in figure.get("data", [])]
    return {"data": data, "layout": dict(figure.get("layout", {}))}


def _plainly(value: Any) -> Any:
    if isinstance(value, Mapping) and "bdata" in value and "dtype" in value:  # plotly's base64 typed array
        import base64

        import numpy as np

        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if value.get("shape"):
            arr = arr.reshape([int(n) for n in str(value["shape"]).split(",")])
        return _plainly(arr)
    if isinstance(value, Mapping):
        return {str(k): _plainly(v) for k, v in value.items()}
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):  # numpy arrays and scalars
        return _plainly(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_plainly(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.loads(json.dumps(value, default=str))  # dates and the like, as plotly writes them


def diff(base: Any, new: Any) -> Any:
    """What turns ``base`` into ``new`` for :func:`merge` (``None`` when they
    are equal): the keys of a dict that differ, a ``None`` for a key ``new``
    lacks, ``{"index": change}`` for the traces of a list of the same length
    of dicts; anything else is ``new`` itself."""
    if base == new:
        return None
    if isinstance(base, dict) and isinstance(new, dict):
        out: dict[Any, Any] = dict.fromkeys(base.keys() - new.keys())
        for k, v in new.items():
            if k not in base:
                out[k] = v
            elif (d := diff(base[k], v)) is not None:
                out[k] = d
        return out
    if (isinstance(base, list) and isinstance(new, list) and len(base) == len(new)
            and all(isinstance(x, dict) for x in base + new)):
        return {str(i): d for i, (a, b) in enumerate(zip(base, new)) if (d := diff(a, b)) is not None}
    return new


def merge(base: Any, delta: Any) -> Any:
    """``base`` with ``delta`` (from :func:`diff`) applied: what the browser draws."""
    if delta is None:
        return base
    if isinstance(base, list) and isinstance(delta, dict):
        items = list(base)
        for k, v in delta.items():
            items[int(k)] = merge(base[int(k)], v)
        return items
    if isinstance(base, dict) and isinstance(delta, dict):
        out = dict(base)
        for k, v in delta.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = merge(base.get(k), v)
        return out
    return delta


def _types(data: list[dict]) -> list[str]:
    return [t.get("type", "scatter") for t in data]


class Plot(Fed, anywidget.AnyWidget):
    """One plot of a dashboard. ``Plot(figure)``, then ``show(figure)`` for each new figure (a
    :mod:`workbench.figures` dict or a plotly ``Figure``). It syncs ``base``, the figure as first
    shown (styles, words, layout), and ``delta``, what the current figure changes in it (the
    numbers and titles): a slider move sends the new numbers and nothing else, and the browser's
    view never writes back. ``figure`` (``base`` merged with ``delta``; ``layout`` stays the
    widget's own CSS layout), ``data`` and :meth:`plotly` read what the browser draws, for tests
    and scripts (building them costs time, the dashboards never do).
    ``bundle`` picks the plotly.js bundle: ``"basic"``, ``"cartesian"``, or ``None`` to pick by the
    first figure's trace types. The CSS class ``wb-plot`` makes it as wide as its place on the page
    (:mod:`workbench.ui.looks`). ``feed``: the page's :class:`Feed`, which then carries ``delta``.
    """

    _fed = "delta"
    _esm = Module("plot", static_text("feed.js", "plot.js"))
    base = T.Dict().tag(sync=True)
    delta = T.Dict().tag(sync=True)
    config = T.Dict(CONFIG).tag(sync=True)
    library = T.Instance(PlotlyLibrary, allow_none=True).tag(sync=True, **W.widget_serialization)

    def __init__(self, figure: Any = None, *, bundle: str | None = None, feed: Feed | None = None, **kwargs: Any):
        super().__init__(feed=feed, **kwargs)
        self.add_class("wb-plot")
        if bundle is not None:  # known now: a plot shown empty and drawn later finds its library when it renders
            self.library = PlotlyLibrary.shared(bundle)
        if figure is not None:
            self.show(figure)

    @property
    def figure(self) -> dict[str, Any]:
        """The figure the browser draws, as plotly JSON."""
        return merge(self.base, self.delta or None) if self.base else {"data": [], "layout": {}}

    def show(self, figure: Any, *, plain: bool = False) -> None:
        """Draw ``figure``: with the traces of the figure on show (as many, of
        the same types), only what differs from the first is sent; otherwise
        the whole figure replaces it. ``plain``: the figure is plotly JSON
        already (a :mod:`workbench.figures` dict), so it is not checked."""
        fig = {"data": figure["data"], "layout": figure["layout"]} if plain else as_json(figure)
        types = _types(fig["data"])
        if self.library is None:  # no bundle named: the first figure's trace types pick it
            self.library = PlotlyLibrary.shared("basic" if set(types) <= BASIC_TYPES else "cartesian")
        if self.base and _types(self.base.get("data", [])) == types:
            delta = diff(self.base, fig) or {}
            if delta != self.delta:
                self.delta = delta
        else:
            with self.hold_sync():
                self.delta = {}
                self.base = copy.deepcopy(fig)

    @property
    def data(self):
        """The traces on show, as plotly objects."""
        return self.plotly().data

    def plotly(self):
        """The figure on show as a plotly ``Figure`` (its layout reads as
        ``plotly().layout.xaxis.title.text``)."""
        import plotly.graph_objects as go

        return go.Figure(self.figure, skip_invalid=True)
