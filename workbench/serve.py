"""Serve the dashboards, read-only, with Voila on 127.0.0.1 (``make run``).

``python -m workbench.serve`` serves the six dashboard notebooks of
``notebooks/`` (one per rule system, ``compare.ipynb`` and ``diagnostics.ipynb``), one generated
dashboard per rule file (``workbench.rulepages``: the broken ones are listed on the landing page with
their error), and nothing else:

* a landing page at ``/`` links each dashboard at
  ``/voila/render/<name>.ipynb``; the port comes from ``--port`` or the
  environment variable ``PORT`` (default 8866; ``0`` lets the system choose),
  and the address is printed once the server listens;
* only the dashboard notebooks are copied into a fresh temporary directory
  that Voila serves; Voila's directory listing (``/voila/tree``), its contents
  API (``/voila/api/contents``) and its file handler (``/voila/files``) are not
  mounted, and the render route accepts exactly the dashboard names, so no
  other file, notebook or listing of the project can be fetched, path
  traversal included;
* sources are stripped (``strip_sources``), tracebacks hidden, and the
  template and theme cannot be overridden from the URL; Voila's standalone
  kernel websocket forwards only comm and kernel-info messages, so a viewer
  cannot execute code of their own (``tests/browser`` sends an
  ``execute_request`` and checks it is refused);
* kernels are preheated, one per dashboard, so a first render does not wait
  for a kernel to start and the notebook to run; a dashboard reads its
  shared-link values after ``voila.utils.wait_for_request()`` from
  ``QUERY_STRING`` (see docs/dashboards.md);
* pages load fully offline: the ``workbench`` template (in
  ``workbench/voila/share/voila/templates/workbench``) is the stock ``lab``
  template without its CDN stylesheet links;
* nothing a viewer does writes to the project: kernels get a throw-away
  ``IPYTHONDIR`` with history disabled, and connection files live in the
  temporary directory, removed at exit.

The committed Voila configuration is ``workbench/voila/voila.json``; no other
``voila.json`` (current directory, ``~/.jupyter``) is read.
"""
from __future__ import annotations

import argparse
import html
import os
import shutil
import string
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .resources import data_dir

PROJECT_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = data_dir("notebooks")  # the checkout's notebooks/, or their copy in an installed wheel
VOILA_DIR = Path(__file__).resolve().parent / "voila"
TEMPLATE_ROOT = VOILA_DIR / "share"  # a Jupyter data dir: voila/templates/workbench
LANDING_TEMPLATE = TEMPLATE_ROOT / "voila" / "templates" / "workbench" / "landing.html"
DEFAULT_PORT = 8866
HOST = "127.0.0.1"


@dataclass(frozen=True)
class Dashboard:
    """One served notebook: its file name in ``notebooks/``, a title and a line for the landing page."""

    notebook: str
    title: str
    blurb: str

    @property
    def path(self) -> str:
        """URL path of the rendered dashboard."""
        return f"/voila/render/{self.notebook}"


def _system_dashboards() -> tuple[Dashboard, ...]:
    """One dashboard per built-in system, titled and described by its description (workbench.systems)."""
    from . import systems
    return tuple(Dashboard(f"{key}.ipynb", d.title, d.blurb) for key, d in systems.builtins().items())


DASHBOARDS: tuple[Dashboard, ...] = _system_dashboards() + (
    Dashboard("compare.ipynb", "Four systems side by side", "One matchup in each system, shared sliders, overlaid distributions."),
    Dashboard("diagnostics.ipynb", "Design diagnostics", "Sweeps over two stats, the value of +1, granularity, equivalent settings across systems."),
)


def dashboard_url(base: str, dashboard: Dashboard, **values) -> str:
    """A shareable link: ``base`` + the dashboard path + ``?name=value&...`` (stat-level argument names)."""
    from urllib.parse import urlencode

    query = urlencode(values)
    return base.rstrip("/") + dashboard.path + (f"?{query}" if query else "")


def resolve_port(value: str | int | None) -> int:
    """The port to listen on: ``value`` if given, else ``$PORT``, else 8866 (0 = any free port)."""
    source = "port"
    if value is None:
        value = os.environ.get("PORT") or DEFAULT_PORT
        source = "PORT"
    try:
        port = int(str(value).strip())
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise InputError(source, "an integer from 0 to 65535", value)
    return port


def stage_notebooks(source: Path, dest: Path, dashboards=DASHBOARDS) -> list[Path]:
    """Copy exactly the dashboard notebooks from ``source`` into ``dest`` (which Voila then serves).

    Voila's directory mode renders and preheats every notebook under its root;
    staging only these files keeps every other notebook and file out of reach.
    """
    missing = [d.notebook for d in dashboards if not (source / d.notebook).is_file()]
    if missing:
        raise InputError(
            "notebooks",
            f"a folder holding {', '.join(d.notebook for d in dashboards)}",
            str(source),
            hint=f"missing: {', '.join(missing)}",
        )
    dest.mkdir(parents=True, exist_ok=True)
    staged = []
    for d in dashboards:
        target = dest / d.notebook
        shutil.copyfile(source / d.notebook, target)
        target.chmod(0o444)
        staged.append(target)
    return staged


def landing_page(dashboards=DASHBOARDS, extra_items: str = "") -> str:
    """The HTML of ``/``: one link per dashboard (then ``extra_items``), no external resource."""
    items = "\n".join(
        f'<li><a href="{html.escape(d.path)}">{html.escape(d.title)}</a>'
        f"<span>{html.escape(d.blurb)}</span></li>"
        for d in dashboards
    ) + ("\n" + extra_items if extra_items else "")
    return string.Template(LANDING_TEMPLATE.read_text(encoding="utf-8")).substitute(items=items)


#: where the server publishes plotly's FigureWidget module, and the environment
#: variable (inherited by the kernels) that holds its full URL. A FigureWidget
#: otherwise carries the whole 5 MB module in its widget state, once per figure
#: and page view; with ``fig._esm = os.environ[PLOTLY_ESM_ENV]`` the browser
#: loads it once from this server (still 127.0.0.1) and caches it.
PLOTLY_ESM_PATH = "/workbench/static/plotly-widgetbundle.js"
PLOTLY_ESM_ENV = "WORKBENCH_PLOTLY_ESM_URL"


def plotly_widget_bundle() -> Path | None:
    """The file of plotly's FigureWidget ES module, if this plotly ships one."""
    try:
        import plotly
    except ImportError:  # pragma: no cover - plotly is a dependency
        return None
    path = Path(plotly.__file__).parent / "package_data" / "widgetbundle.js"
    return path if path.is_file() else None


def _have_anywidget() -> bool:
    import importlib.util

    return importlib.util.find_spec("anywidget") is not None


def _quiet_kernel_home(tmp: Path) -> Path:
    """An IPYTHONDIR whose profile disables history, so kernels write nothing to the user's home."""
    profile = tmp / "ipython" / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    config = "c = get_config()  # noqa\nc.HistoryManager.enabled = False\n"
    (profile / "ipython_config.py").write_text(config, encoding="utf-8")
    (profile / "ipython_kernel_config.py").write_text(config, encoding="utf-8")
    return tmp / "ipython"


def _make_server_class():
    """The Voila application, restricted to the dashboards (built lazily: importing voila is slow)."""
    import tornado.httpserver
    import tornado.ioloop
    import tornado.netutil
    import tornado.web
    from traitlets import default
    from voila.app import Voila

    class LandingHandler(tornado.web.RequestHandler):
        def initialize(self, page: str):
            self.page = page

        def get(self):
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("X-Content-Type-Options", "nosniff")
            self.set_header("Cache-Control", "no-cache")
            self.finish(self.page)

    def _not_found_on_error(cls):
        class Guarded(cls):
            async def get(self, path, include_body=True):
                try:
                    return await super().get(path, include_body)
                except (AssertionError, ValueError):  # Voila asserts on paths it cannot place
                    raise tornado.web.HTTPError(404) from None

        Guarded.__name__ = f"Guarded{cls.__name__}"
        return Guarded

    class PlotlyBundleHandler(tornado.web.StaticFileHandler):
        """plotly's FigureWidget module, served once and cached by the browser (see PLOTLY_ESM_ENV)."""

        def set_extra_headers(self, path):
            self.set_header("Access-Control-Allow-Origin", "*")  # an ES module import from the page's origin
            self.set_header("Cache-Control", "public, max-age=86400")

    class DashboardServer(Voila):
        """Voila serving a fixed list of dashboards, read-only, on one interface."""

        name = "workbench-dashboards"
        dashboards = DASHBOARDS
        landing_extra = ""  # the rule files that are not served, with why (workbench.rulepages)

        @default("config_file_paths")
        def _config_file_paths_default(self):
            return [str(VOILA_DIR)]  # only the committed voila.json

        # Routes a viewer must never reach: listings, the contents API, raw files,
        # and the catch-all render route (replaced by one limited to the dashboards).
        _DROPPED = ("/voila/tree", "/voila/api/contents", "/voila/files/", "/voila/render/")

        def init_handlers(self):
            kept, render_cls, render_kwargs = [], None, None
            for spec in super().init_handlers():
                pattern = spec[0]
                if pattern.startswith("/voila/render/"):
                    render_cls, render_kwargs = spec[1], spec[2]
                if pattern == self.server_url or any(pattern.startswith(p) for p in self._DROPPED):
                    continue
                if pattern.startswith("/voila/templates/"):  # a malformed path is a 404, not a 500
                    spec = (pattern, _not_found_on_error(spec[1]), *spec[2:])
                kept.append(spec)
            if render_kwargs is None:  # pragma: no cover - Voila changed its routes
                raise RuntimeError("Voila has no /voila/render/ route to restrict")
            names = "|".join(d.notebook.replace(".", r"\.") for d in self.dashboards)
            kept.insert(0, (self.server_url, LandingHandler, {"page": landing_page(self.dashboards, self.landing_extra)}))
            bundle = plotly_widget_bundle()
            if bundle is not None:
                route = self.server_url + PLOTLY_ESM_PATH.lstrip("/").replace("plotly-widgetbundle.js",
                                                                              r"plotly-(widgetbundle\.js)")
                kept.insert(1, (route, PlotlyBundleHandler, {"path": str(bundle.parent)}))
            kept.insert(1, (self.server_url + rf"voila/render/({names})", render_cls, render_kwargs))
            return kept

        def start(self):
            """Bind first (so ``--port 0`` is known to the preheated kernels), then serve until stopped."""
            self.connection_dir = tempfile.mkdtemp(prefix="voila_", dir=self.connection_dir_root)
            sockets = tornado.netutil.bind_sockets(self.port, self.ip)
            self.port = sockets[0].getsockname()[1]
            if plotly_widget_bundle() is not None:  # read by workbench.ui in the (preheated) kernels
                os.environ[PLOTLY_ESM_ENV] = f"http://{self.ip}:{self.port}{PLOTLY_ESM_PATH}"
            settings = self.init_settings()
            self.app = tornado.web.Application(**settings)
            self.app.settings.update(self.tornado_settings)
            self.app.add_handlers(".*$", self.init_handlers())
            server = tornado.httpserver.HTTPServer(self.app)
            server.add_sockets(sockets)
            url = f"http://{self.ip}:{self.port}/"
            print(f"Dashboards served at {url}", flush=True)
            for d in self.dashboards:
                print(f"  {d.title}: {url.rstrip('/')}{d.path}", flush=True)
            self.ioloop = tornado.ioloop.IOLoop.current()
            try:
                self.ioloop.start()
            except KeyboardInterrupt:
                self.log.info("Stopping...")
            finally:
                server.stop()
                self.stop()

    return DashboardServer


class ServerProcess:
    """``python -m workbench.serve`` in a child process (for tests and benchmarks).

    ``url`` is the base address once it listens; ``log`` collects its stderr
    lines; :meth:`wait_pools` waits until every dashboard has a preheated
    kernel ready; :meth:`wait_quiet` until the server and its kernels are idle;
    :meth:`stop` ends it (SIGTERM, then SIGKILL).
    """

    POOL_FILLED = "Kernel pool of {name} is filled"

    def __init__(self, port: int = 0, notebooks: Path | None = None, pool_size: int = 1,
                 dashboards=DASHBOARDS, timeout: float = 120.0):
        import subprocess
        import threading

        self.dashboards = dashboards
        argv = [sys.executable, "-m", "workbench.serve", "--port", str(port), "--pool-size", str(pool_size)]
        if notebooks is not None:
            argv += ["--notebooks", str(notebooks)]
        env = {k: v for k, v in os.environ.items() if k != "PORT"}
        self.proc = subprocess.Popen(argv, cwd=str(PROJECT_ROOT), env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.log: list[str] = []
        self.out: list[str] = []
        self._cond = threading.Condition()
        for stream, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.log)):
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True).start()
        self.url = self._wait(lambda: next((ln.split(" at ", 1)[1].strip() for ln in self.out
                                            if ln.startswith("Dashboards served at ")), None), timeout)

    def _pump(self, stream, sink):
        for line in stream:
            with self._cond:
                sink.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _wait(self, found, timeout: float):
        import time

        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = found()
                if value:
                    return value
                if self.proc.poll() is not None:
                    raise RuntimeError("the dashboard server exited:\n" + "\n".join(self.out + self.log[-40:]))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("the dashboard server did not get ready:\n" + "\n".join(self.log[-40:]))
                self._cond.wait(min(left, 0.5))

    def pools_filled(self, name: str) -> int:
        """How many times the pool of one notebook has been filled so far."""
        with self._cond:
            return sum(self.POOL_FILLED.format(name=name) in ln for ln in self.log)

    def wait_pools(self, counts: dict[str, int] | None = None, timeout: float = 120.0) -> None:
        """Wait until each dashboard's pool was filled ``counts[name]`` times (default once)."""
        counts = counts or {d.notebook: 1 for d in self.dashboards}
        self._wait(lambda: all(self.pools_filled(n) >= c for n, c in counts.items()), timeout)

    def cpu_seconds(self) -> float:
        """CPU time used so far by the server and every process under it (its kernels)."""
        import psutil

        total = 0.0
        try:
            root = psutil.Process(self.proc.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return total
        for p in procs:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.NoSuchProcess:  # a kernel that ended meanwhile
                pass
        return total

    def wait_quiet(self, busy: float = 0.1, window: float = 1.0, timeout: float = 300.0) -> float:
        """Wait until the server and its kernels use less than ``busy`` of one
        core over ``window`` seconds (kernels started, notebooks pre-executed),
        so that what is measured next does not compete with them. Returns the
        seconds waited."""
        import time

        start = time.monotonic()
        before = self.cpu_seconds()
        while True:
            time.sleep(window)
            now = self.cpu_seconds()
            if now - before < busy * window:
                return time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"the dashboard server stayed busy for {timeout:.0f} s")
            before = now

    def stop(self, timeout: float = 30.0) -> int:
        import signal
        import subprocess

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        return self.proc.returncode

    def __enter__(self) -> "ServerProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """Serve the dashboards until interrupted (Ctrl-C or SIGTERM). Returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m workbench.serve", description=__doc__.split("\n")[0])
    parser.add_argument("--port", default=None, help=f"port on {HOST} (default: $PORT or {DEFAULT_PORT}; 0 = any free port)")
    parser.add_argument("--notebooks", type=Path, default=NOTEBOOKS_DIR, help="folder holding the dashboard notebooks")
    parser.add_argument("--pool-size", type=int, default=1, help="preheated kernels per dashboard (each ~130 MB)")
    args = parser.parse_args(argv)
    try:
        port = resolve_port(args.port)
        if not 0 <= args.pool_size <= 4:
            raise InputError("pool-size", "an integer from 0 to 4", args.pool_size)
        tmp = Path(tempfile.mkdtemp(prefix="workbench-dashboards-"))
        try:
            served = tmp / "dashboards"
            stage_notebooks(args.notebooks.resolve(), served)
            from .rulepages import stage_rule_pages  # one dashboard per rule file, generated here
            rule_pages = stage_rule_pages(served, tuple(d.notebook for d in DASHBOARDS))
        except Exception:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    try:
        os.environ["IPYTHONDIR"] = str(_quiet_kernel_home(tmp))
        os.environ["JUPYTER_PATH"] = os.pathsep.join(
            [str(TEMPLATE_ROOT)] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
        )
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        app = _make_server_class()()
        app.dashboards, app.landing_extra = DASHBOARDS + rule_pages.dashboards, rule_pages.landing_items()
        app.initialize([str(served), f"--Voila.connection_dir_root={tmp}"])
        app.ip = HOST
        app.port = port
        app.voila_configuration.default_pool_size = args.pool_size
        app.voila_configuration.preheat_kernel = args.pool_size > 0
        if _have_anywidget():  # plots are FigureWidgets: the 5 MB plotly mime renderer is never used
            app.voila_configuration.extension_denylist = [
                *(app.voila_configuration.extension_denylist or []), "jupyterlab-plotly"]
        app.start()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
