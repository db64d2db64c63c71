"""The Voila application that serves the dashboards, on Voila's and Jupyter Server's own hooks
(each class's docstring names its hook).

:mod:`workbench.serve` reads the options and stages the pages; this module is
the server itself, imported only when one starts (importing Voila is slow). The
private names of Voila it still needs are all in :mod:`workbench.voila_internals`.
"""
from __future__ import annotations

import errno
import hmac
import logging
import shutil
import socket
from urllib.parse import parse_qsl, urlencode

import tornado.httpserver
import tornado.ioloop
import tornado.netutil
import tornado.web
from jupyter_core.utils import run_sync
from jupyter_server.auth.identity import IdentityProvider, User
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from traitlets import default
from voila.app import Voila
from voila.request_info_handler import RequestInfoSocketHandler
from voila.static_file_handler import AllowListFileHandler, TemplateStaticFileHandler
from voila.tornado.contentshandler import VoilaContentsHandler
from voila.tornado.handler import TornadoVoilaHandler
from voila.tornado.treehandler import TornadoVoilaTreeHandler

from . import kernelchannel
from .compressed import precompressed
from .kernelpool import PacedRefill
from .rulepages import RulePages
from .servepages import (BUSY_RETRY_S, DASHBOARDS, DISCONNECT_GRACE, TOKEN_COOKIE, VOILA_DIR, ListenError, landing_page,
                    refuse, shutdown_every_kernel, token_cookie_value)
from .voila_internals import has_pools, pooled, pooled_kernel_id

#: what a viewer reads when the page's kernel could not be started
NOT_STARTED = "This dashboard could not start its calculations: the server is busy. Reload the page in a minute."


class NotStarted:
    """The kernel id of a page whose kernel could not be started: false, with the page's sentence."""

    message = NOT_STARTED

    def __bool__(self) -> bool:
        return False


def kernel_started(kernel_start):
    """The page template's filter on Voila's ``kernel_start``: the started kernel's id,
    or a :class:`NotStarted` (the reason in the server's log) where Voila's raises (the
    kernel died or did not answer within ``VoilaExecutor.startup_timeout``). Voila renders
    a page with a fresh kernel in a task whose error nobody reads: that page loaded for
    ever, and its kernel, never connected, was never released."""

    async def start(nb):
        try:
            return await kernel_start(nb)
        except Exception:
            logging.getLogger(DashboardServer.__name__).exception(
                "The kernel of a page could not be started; the page says so")
            return NotStarted()

    return start


#: who a request is when the server has no token, and who a kernel dialling its link channel is
VIEWER, KERNEL = User(username="viewer"), User(username="kernel")


def _same(given: str | None, secret: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), secret.encode())


def bind_error(exc: OSError, host: str, port: int) -> str:
    """One line saying why the server could not listen."""
    if exc.errno == errno.EADDRINUSE:
        return (f"port {port} on {host} is already in use (another server?): stop it, "
                f"or choose another port with --port or PORT")
    if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
        return f"{host} is not an address of this machine: choose another with --host or HOST"
    if exc.errno == errno.EACCES:
        return f"port {port} needs administrator rights: choose one above 1023 with --port or PORT"
    if isinstance(exc, socket.gaierror):
        return f"host name {host} is not known: choose another with --host or HOST"
    return f"cannot listen on {host} port {port}: {exc.strerror or exc}"


class TokenIdentity(IdentityProvider):
    """The dashboards' access token (``--token``), as Jupyter Server's identity provider.

    A viewer carries the token in ``?token=`` (which sets the access cookie,
    :func:`workbench.serve.token_cookie_value`), an ``Authorization:
    token ...`` header, or that cookie; without a token every request is a
    viewer. A preheated kernel's link channel (``voila/query/<kernel id>``) is
    admitted without it when the id names a kernel this server runs
    (docs/dashboards.md says why that id is the kernel's credential).
    """

    cookie_name = TOKEN_COOKIE

    @property
    def auth_enabled(self) -> bool:
        return bool(self.token)

    @property
    def login_available(self) -> bool:
        return False  # a link carries its token: there is no login page

    def get_handlers(self) -> list:
        return []

    def get_user(self, handler: tornado.web.RequestHandler) -> User | None:
        if not self.token:
            return VIEWER
        if self._is_a_kernel(handler):
            return KERNEL
        if _same(handler.get_query_argument("token", None), self.token):
            handler.set_cookie(self.cookie_name, token_cookie_value(self.token), path=handler.settings["base_url"],
                               httponly=True, samesite="Lax", expires_days=30)
            return VIEWER
        scheme, _, value = handler.request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() in ("token", "bearer") and _same(value.strip(), self.token):
            return VIEWER
        if _same(handler.get_cookie(self.cookie_name), token_cookie_value(self.token)):
            return VIEWER
        return None

    @staticmethod
    def _is_a_kernel(handler) -> bool:
        if not isinstance(handler, RequestInfoSocketHandler):
            return False
        km = handler.settings.get("kernel_manager")
        kernel_id = handler.path_kwargs.get("kernel_id") or next(iter(handler.path_args), None)
        return km is not None and kernel_id is not None and kernel_id in km


class Gate(tornado.web.RequestHandler):
    """Mixed ahead of every route's handler (:func:`gated`): a request
    :class:`TokenIdentity` does not know gets 401 and the page saying the
    link's token is needed (403 for a websocket), never the token; a page
    opened with ``?token=`` is redirected to its address without it, so the
    token never reaches a kernel's ``QUERY_STRING`` or a shared link."""

    def prepare(self):
        identity = self.settings["identity_provider"]
        user = identity.get_user(self)
        websocket = self.request.headers.get("Upgrade", "").lower() == "websocket"
        if user is None:
            if websocket:
                self.set_status(403)
                self.finish("403: this connection needs the dashboards' access token\n")
            else:
                refuse(self, "token", **{"WWW-Authenticate": 'Token realm="dashboards"'})
            return None
        if identity.token and self.request.method in ("GET", "HEAD") and not websocket \
                and self.get_query_argument("token", None) is not None:
            rest = [(k, v) for k, v in parse_qsl(self.request.query, keep_blank_values=True) if k != "token"]
            self.redirect(self.request.path + (f"?{urlencode(rest)}" if rest else ""))
            return None
        return super().prepare()


def gated(cls):
    return type(f"Gated{cls.__name__}", (Gate, cls), {})


class LandingHandler(tornado.web.RequestHandler):
    """The landing page, written on each visit (a rule file that broke since is listed as broken)."""

    def initialize(self, page):
        self.page = page

    def get(self):
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Cache-Control", "no-cache")
        self.finish(self.page())


class TemplateFiles(TemplateStaticFileHandler):
    """Voila's template files, where a path Voila cannot place is a 404 (Voila asserts: a 500)."""

    async def get(self, path, include_body=True):
        try:
            return await super().get(path, include_body)
        except (AssertionError, ValueError):
            raise tornado.web.HTTPError(404) from None


def viewer_kernels(km) -> int:
    """Kernels handed to viewers: every running kernel but the preheated pool's."""
    unstarted = getattr(getattr(km, "workbench_refill", None), "unstarted", ())
    # the pool's kernels: started well, or starting (a paced replacement not started yet has none)
    pool = sum(1 for task in pooled(km) if (task.exception() is None if task.done() else task not in unstarted))
    return max(0, len(km.list_kernel_ids()) - pool)


class DashboardRender(TornadoVoilaHandler):
    """Voila's render route: refuses a new viewer (503, and when to try again)
    when ``max_kernels`` viewers' kernels run, and gives every page the
    ``_xsrf`` cookie Voila's shutdown beacon reads (without it the beacon is
    refused: ``'_xsrf' argument missing``). The kernel a render takes is not
    culled before its page is sent (:class:`~workbench.kernelcull.DashboardKernelManager`)."""

    async def get(self, path=None):
        limit = self.settings.get("workbench_max_kernels") or 0
        if limit and viewer_kernels(self.kernel_manager) >= limit:
            retry = self.settings.get("workbench_release_after") or BUSY_RETRY_S
            refuse(self, "busy", retry, **{"Retry-After": str(retry)})
            return
        self.xsrf_token  # noqa: B018 - reading it sets the _xsrf cookie
        with self.kernel_manager.rendering_page():
            return await super().get(path)


class GuardedConnection(ZMQChannelsWebsocketConnection):
    """Jupyter Server's kernel websocket connection, guarded (:mod:`workbench.kernelchannel`):
    only the v1 framing (an upgrade without its subprotocol is a 400), each frame checked
    before it is read, outgoing messages scrubbed, and a kernel whose last websocket closed
    shut down after :data:`~workbench.serve.DISCONNECT_GRACE` seconds unless a page
    reconnected (a page closed without Voila's shutdown beacon)."""

    async def prepare(self):
        offered = [p.strip() for p in self.websocket_handler.request.headers.get("Sec-WebSocket-Protocol", "")
                   .split(",")]
        if kernelchannel.V1_PROTOCOL not in offered:
            raise tornado.web.HTTPError(400, f"this kernel channel speaks only {kernelchannel.V1_PROTOCOL}")
        return await super().prepare()

    def handle_incoming_message(self, incoming_msg: str) -> None:
        frame: object = incoming_msg  # (annotated str by Jupyter Server: a v1 frame is bytes)
        if not isinstance(frame, bytes) or kernelchannel.parse_v1(frame) is None:
            self.log.warning("Dropped a malformed message on the channel of kernel %s", self.kernel_id)
            return
        super().handle_incoming_message(incoming_msg)

    @property
    def write_message(self):
        send = self.websocket_handler.write_message

        def scrubbed(message, binary=False):
            if isinstance(message, bytes):
                return send(kernelchannel.scrub_frame(message), binary)
            return None  # only the legacy framing, which is refused: never pass text

        return scrubbed

    def disconnect(self):
        km, kernel_id = self.multi_kernel_manager, self.kernel_id
        super().disconnect()
        tornado.ioloop.IOLoop.current().call_later(DISCONNECT_GRACE, _shutdown_if_abandoned, km, kernel_id,
                                                   self.log)


async def _shutdown_if_abandoned(km, kernel_id: str, log) -> None:
    if kernel_id not in km or km.kernel_model(kernel_id).get("connections", 0) > 0:
        return
    if any(pooled_kernel_id(task) == kernel_id for task in pooled(km)):
        return
    log.info("Shutting down kernel %s: its page has been gone for %.0f s", kernel_id, DISCONNECT_GRACE)
    try:
        await km.shutdown_kernel(kernel_id)
    except Exception:  # noqa: BLE001 - already gone (the beacon or the culler first): any error of its manager
        pass


#: The LaTeX typesetter a dashboard page gets: none (no page shows a formula; MathJax 3 was
#: about 170 kB of a first view). Given this ``fullMathjaxUrl``, Voila loads JupyterLab's
#: MathJax 2 extension, which runs this URL, a script in the address whose ``MathJax.Hub``
#: typesets nothing (the ``?config=...`` it appends is a comment after ``//``): docs/dashboards.md.
NO_TYPESETTER = ("data:text/javascript,window.MathJax={Hub:{Config:function(){},Configured:function(){},"
                 "Queue:function(){},Register:{StartupHook:function(){}}}};//")


def dashboard_page_config(page_config: dict, **_context) -> dict:
    """Voila's ``page_config_hook`` for every dashboard page (rendered or preheated):
    the page config Voila made, with no LaTeX typesetter (:data:`NO_TYPESETTER`)."""
    return {**page_config, "fullMathjaxUrl": NO_TYPESETTER, "mathjaxConfig": "none"}


#: Voila's routes a viewer must never reach: listings, the contents API and raw files
#: (the catch-all render route is replaced by one limited to the dashboards)
DROPPED = (TornadoVoilaTreeHandler, VoilaContentsHandler, AllowListFileHandler)


class DashboardServer(Voila):
    """Voila serving a fixed list of dashboards, read-only, on one interface."""

    name = "workbench-dashboards"
    dashboards = DASHBOARDS
    rule_pages: RulePages | None = None  # the staged rule-file pages, listed as they are now

    @default("config_file_paths")
    def _config_file_paths_default(self):
        return [str(VOILA_DIR)]  # only the committed voila.json

    @default("identity_provider_class")
    def _identity_default(self):
        return TokenIdentity

    @default("kernel_websocket_connection_class")
    def _connection_default(self):
        return GuardedConnection

    def initialize(self, argv=None):
        super().initialize(argv)
        # read by the kernel manager made in start() (its class, kernelcull's, is named in voila.json)
        self.voila_configuration.page_config_hook = dashboard_page_config
        # the page template's (workbench/index.html.j2) guard of its kernel's start
        self.config.VoilaExporter.filters = {**self.config.VoilaExporter.get("filters", {}),
                                             "workbench_kernel_started": kernel_started}

    def landing_html(self) -> str:
        if self.rule_pages is None:
            return landing_page(self.dashboards)
        now = self.rule_pages.now()
        fixed = tuple(d for d in self.dashboards if d not in self.rule_pages.dashboards)
        return landing_page(fixed + now.dashboards, now.landing_items())

    def init_settings(self):
        settings = super().init_settings()
        if has_pools(self.kernel_manager):  # preheated kernels: refills paced (workbench.kernelpool)
            PacedRefill().install(self.kernel_manager)
        # answers gzipped, the kernel websocket permessage-deflated, and the lab extensions' files (their
        # content hash in their names) kept by the browser: docs/dashboards.md, "Compressed for phones"
        settings.update(compress_response=True, websocket_compression_options={},
                        static_immutable_cache=[self.server_url + "voila/labextensions/"])
        return settings

    def init_handlers(self):
        base = self.server_url
        kept, render_kwargs = [], None
        for pattern, cls, *rest in super().init_handlers():
            if cls is TornadoVoilaHandler:
                render_kwargs = rest[0]
            if pattern == base or cls is TornadoVoilaHandler or cls in DROPPED:
                continue
            if cls is TemplateStaticFileHandler:
                cls = TemplateFiles
            if isinstance(cls, type) and issubclass(cls, tornado.web.StaticFileHandler):
                cls = precompressed(cls)
            kept.append((pattern, gated(cls), *rest))
        if render_kwargs is None:  # pragma: no cover - Voila changed its routes
            raise RuntimeError("Voila has no voila/render/ route to restrict")
        names = "|".join(d.notebook.replace(".", r"\.") for d in self.dashboards)
        front = [(base, gated(LandingHandler), {"page": self.landing_html}),
                 (base + rf"voila/render/({names})", gated(DashboardRender), render_kwargs)]
        from .ui.forum import download_route  # the forum panel's figure downloads, served as files
        from .ui.plotwidget import library_route, module_route  # plotly.js and the widgets' modules, cacheable
        (down, down_cls, down_kw), (lib, lib_cls, lib_kw) = download_route(base), library_route(base)
        mod, mod_cls = module_route(base)
        front += [(down, gated(down_cls), down_kw), (lib, gated(precompressed(lib_cls)), lib_kw), (mod, gated(mod_cls))]
        if base != "/":  # the prefix without its last slash leads to the landing page
            front.append((base.rstrip("/"), tornado.web.RedirectHandler, {"url": base}))
        return front + kept

    def stop(self):
        """End every kernel at once (``now=True``): asked to shut down while it is
        still running its notebook (a preheated one waiting for its viewer), a
        kernel prints a ZMQ traceback per kernel into the log at every Ctrl-C."""
        shutil.rmtree(self.connection_dir, ignore_errors=True)
        run_sync(shutdown_every_kernel)(self.kernel_manager)

    def start(self):
        """Bind first, then Voila's ``start``: a taken port is a clear error (never
        another port), and the kernels Voila's kernel manager preheats as it is made
        (before ``listen()``) dial the port really bound, also for ``--port 0``."""
        try:
            self._sockets = tornado.netutil.bind_sockets(self.port, self.ip)
        except OSError as exc:
            raise ListenError(bind_error(exc, self.ip, self.port)) from None
        self.port = self._sockets[0].getsockname()[1]
        super().start()

    def listen(self):
        """Serve on the bound sockets (behind a proxy, its ``X-Forwarded-*``
        headers name the viewer), print the links, run until stopped."""
        server = tornado.httpserver.HTTPServer(self.app, xheaders=True)
        server.add_sockets(self._sockets)
        self._print_links()
        self.ioloop = tornado.ioloop.IOLoop.current()
        try:
            self.ioloop.start()
        except KeyboardInterrupt:
            self.log.info("Stopping...")
        finally:
            server.stop()
            self.stop()

    def _print_links(self) -> None:
        shown = self.ip
        if shown in ("0.0.0.0", "::"):
            shown = socket.gethostname()
        elif ":" in shown:
            shown = f"[{shown}]"
        url = f"http://{shown}:{self.port}{self.base_url}"
        query = f"?token={self.token}" if self.token else ""
        print(f"Dashboards served at {url}", flush=True)
        for d in self.dashboards:
            print(f"  {d.title}: {url.rstrip('/')}{d.path}{query}", flush=True)
        if self.token:
            print(f"Access token: every link above carries it; the landing page is {url}{query}", flush=True)
