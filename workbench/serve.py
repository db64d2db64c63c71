"""Serve the dashboards, read-only, with Voila (``make run``).

``python -m workbench.serve`` serves the built-in dashboard notebooks of
``notebooks/`` (:data:`DASHBOARDS`, each rendered by Voila at
``/voila/render/<notebook>``) and one generated dashboard per rule file
(:mod:`workbench.rulepages`: the broken ones are listed on the landing page
with their error), and nothing else. Every option is also an environment
variable (:data:`OPTIONS`; ``make run`` passes them through);
docs/dashboards.md lists them and says what a viewer gets.

This module reads the options and stages the pages: only the dashboard
notebooks, copied into a fresh temporary directory (signed, read-only) that
Voila serves; kernels get a throw-away ``IPYTHONDIR`` with history disabled,
their link channel dials this server's own host, and the connection files live
in the temporary directory, removed at exit. What the server shows and gives
(the landing page, the pages a refused request gets, the access cookie, the
kernels' shutdown, the times a viewer is given) is :mod:`workbench.servepages`,
below this module and the Voila application alike. The committed Voila configuration is
``workbench/voila/voila.json``; no other ``voila.json`` is read. The Voila
application itself (the token, the websocket guard, ``--max-kernels``'s 503,
the pools, the culler, gzip) is :mod:`workbench.dashboard_server`.
"""
from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import os
import re
import secrets
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping, overload

from .errors import InputError
from .resources import data_dir
from .servepages import (BUSY_RETRY_S, DASHBOARDS, DISCONNECT_GRACE, NOTICES, TEMPLATE_DIR, TEMPLATE_ROOT,  # noqa: F401 - the server's names
                         RELEASE_AFTER_RANGE, TOKEN_COOKIE, VOILA_DIR, Dashboard, ListenError, cull_settings, landing_page,
                         notice_page, refuse, shutdown_every_kernel, token_cookie_value)

PROJECT_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = data_dir("notebooks")  # the checkout's notebooks/, or their copy in an installed wheel
DEFAULT_PORT = 8866
HOST = "127.0.0.1"
DEFAULT_MAX_KERNELS = 40
#: the largest --pool-size: preheated kernels per dashboard (each ~150 MB), enough for a playtest group arriving at once
MAX_POOL_SIZE = 32


# ---------------------------------------------------------------- options

def _from_env(value, env: str):
    """``(value, name)``: the option's value if given, else the environment variable's (or None)."""
    if value is not None:
        return value, None
    got = os.environ.get(env)
    return (got if got not in (None, "") else None), env


def resolve_port(value: str | int | None) -> int:
    """The port to listen on: ``value`` if given, else ``$PORT``, else 8866 (0 = any free port)."""
    return resolve_int(value, "PORT", "port", DEFAULT_PORT, 0, 65535)


def resolve_host(value: str | None) -> str:
    """The interface to listen on: ``value``, else ``$HOST``, else 127.0.0.1.

    An IP address (v4 or v6) or a host name of letters, digits, dots and dashes.
    """
    value, env = _from_env(value, "HOST")
    if value is None:
        return HOST
    text = str(value).strip()
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    if not re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?", text):
        raise InputError(env or "host", "an IP address or a host name", value)
    return text


def resolve_base_url(value: str | None) -> str:
    """The URL prefix: ``value``, else ``$BASE_URL``, else ``/``; a path from the
    root, given with its trailing slash or without (``/dice`` -> ``/dice/``).

    Starts with ``/``; letters, digits and ``-._~`` in each segment; no empty,
    ``.`` or ``..`` segment (``dice/`` or ``no-slash`` is refused: a prefix that
    is not a path from the root is a typo, never guessed).
    """
    value, env = _from_env(value, "BASE_URL")
    if value is None:
        return "/"
    text = str(value).strip()
    segments = text.strip("/").split("/")
    if text.startswith("/") and segments == [""]:
        return "/"
    if not text.startswith("/") or any(not re.fullmatch(r"[A-Za-z0-9._~-]+", s) or s in (".", "..") for s in segments):
        raise InputError(env or "base-url", "a URL path such as /dice/ (letters, digits, - . _ ~ between slashes)",
                         value)
    return "/" + "/".join(segments) + "/"


def resolve_token(value: str | None) -> str | None:
    """The access token: ``value``, else ``$WORKBENCH_TOKEN``, else none (at least 8 printable characters)."""
    value, env = _from_env(value, "WORKBENCH_TOKEN")
    if value is None:
        return None
    text = str(value).strip()
    if not re.fullmatch(r"[A-Za-z0-9._~-]{8,256}", text):
        raise InputError(env or "token", "at least 8 letters, digits or - . _ ~", "a value that is not")
    return text


@overload
def resolve_int(value, env: str, option: str, default: int, low: int, high: int) -> int: ...
@overload
def resolve_int(value, env: str, option: str, default: None, low: int, high: int) -> int | None: ...
def resolve_int(value, env: str, option: str, default: int | None, low: int, high: int) -> int | None:
    """An integer option: ``value``, else ``$env``, else ``default``, within ``low..high``."""
    value, source = _from_env(value, env)
    if value is None:
        return default
    try:
        number = int(str(value).strip())
    except ValueError:
        number = low - 1
    if not low <= number <= high:
        raise InputError(source or option, f"an integer from {low} to {high}", value)
    return number


#: preheated kernels per page on a shared host (HOST not loopback) unless --pool-size says otherwise:
#: with refills started at once, a second viewer finds a warm kernel and a third its replacement
SHARED_POOL_SIZE = 2
#: on loopback (``make run`` on a laptop) only the first page of the landing page is preheated
LOOPBACK_PREHEATED = 1


def pool_plan(pool_size: int | None, host: str, dashboards) -> dict[str, int]:
    """Preheated kernels per page: ``{"default": n, <notebook>: n, ...}`` (Voila's
    ``kernel_pools_config`` shape, reduced to sizes).

    ``--pool-size``/``POOL_SIZE`` given: that many for every page. Otherwise
    on a shared host :data:`SHARED_POOL_SIZE` for every page; on loopback
    one kernel for the first page only (the one a designer opens first) and
    none for the others, whose viewer's kernel starts when they open it.
    """
    if pool_size is not None:
        return {"default": pool_size}
    if not is_loopback(host):
        return {"default": SHARED_POOL_SIZE}
    first = {dashboards[0].notebook: LOOPBACK_PREHEATED} if dashboards else {}
    return {"default": 0, **first}


def select_dashboards(names: str | None) -> tuple[Dashboard, ...]:
    """The dashboards named in ``names`` (comma-separated, with or without ``.ipynb``), or all of them."""
    if names is None or not names.strip():
        return DASHBOARDS
    by_name = {d.notebook.removesuffix(".ipynb"): d for d in DASHBOARDS}
    wanted = [n.strip().removesuffix(".ipynb") for n in names.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in by_name]
    if unknown or not wanted:
        raise InputError("dashboards", f"names among {', '.join(by_name)}", names)
    return tuple(d for d in DASHBOARDS if d.notebook.removesuffix(".ipynb") in wanted)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def kernel_link_host(host: str) -> str:
    """The address a kernel of this machine dials to reach a server listening
    on ``host``, as it goes into a URL (Voila's ``VOILA_APP_IP``, for a preheated
    kernel's link channel: docs/dashboards.md): every interface (``0.0.0.0``,
    ``::``) on the loopback address of its family, an IPv6 address bracketed.
    """
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host  # a host name: the kernel resolves it as the server did
    return f"[{address}]" if address.version == 6 else str(address)


#: the numeric libraries' thread counts a kernel runs with, unless the environment sets them
KERNEL_THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def kernel_environment(host: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """What the kernels' environment gets so that their link channel reaches
    this server on ``host``: ``VOILA_APP_IP``, and the host added to
    ``no_proxy``/``NO_PROXY`` (a configured HTTP proxy cannot reach this
    machine's own address). Each kernel also runs numpy's linear algebra on one
    thread (:data:`KERNEL_THREADS`, unless already set): every viewer has a
    kernel of their own, and a kernel's extra BLAS threads only spin while they
    wait for a core (on a loaded 2-core machine the d3-damage removal of
    ``benchmarks/bench_engine.py`` cost up to 8 ms of CPU instead of 0.64)."""
    given: Mapping[str, str] = os.environ if environ is None else environ
    dial = kernel_link_host(host)
    bare = dial.strip("[]")
    env = {"VOILA_APP_IP": dial}
    for name in ("no_proxy", "NO_PROXY"):
        present = [p for p in given.get(name, "").split(",") if p.strip()]
        env[name] = ",".join(present if bare in present else present + [bare])
    env.update({name: n for name, n in KERNEL_THREADS.items() if name not in given})
    return env


def _integer(env: str, option: str, default: int | None, low: int, high: int) -> Callable[[Any], Any]:
    return lambda value: resolve_int(value, env, option, default, low, high)


#: the options read from the command line or, left out, the environment (docs/dashboards.md), in the
#: order they are checked: flag -> (what reads its value, its --help)
OPTIONS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "port": (resolve_port, f"port (default: $PORT or {DEFAULT_PORT}; 0 = any free port)"),
    "host": (resolve_host, f"interface to listen on (default: $HOST or {HOST}; 0.0.0.0 = every interface)"),
    "base-url": (resolve_base_url, "prefix of every URL, e.g. /dice/ behind a reverse proxy (default: $BASE_URL or /)"),
    "token": (resolve_token, "access token every request needs (default: $WORKBENCH_TOKEN; generated when the "
                             "host is not loopback)"),
    "max-kernels": (_integer("MAX_KERNELS", "max-kernels", DEFAULT_MAX_KERNELS, 1, 10_000),
                    f"viewers' kernels at once; the next viewer gets 'busy' (default: $MAX_KERNELS or "
                    f"{DEFAULT_MAX_KERNELS})"),
    "pool-size": (_integer("POOL_SIZE", "pool-size", None, 0, MAX_POOL_SIZE),
                  f"preheated kernels per dashboard, 0-{MAX_POOL_SIZE} (default: $POOL_SIZE, else 1 for the first "
                  f"page on loopback and {SHARED_POOL_SIZE} per page elsewhere; each ~150 MB)"),
    "release-after": (_integer("RELEASE_AFTER", "release-after", BUSY_RETRY_S, *RELEASE_AFTER_RANGE),
                      "seconds within which the kernel of a page that never connects (a link preview, a script) "
                      f"is released, {RELEASE_AFTER_RANGE[0]}-{RELEASE_AFTER_RANGE[1]} (default: $RELEASE_AFTER "
                      f"or {BUSY_RETRY_S}; the busy page says to try again then)"),
}


# ---------------------------------------------------------------- files and pages

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


#: the kernels' start-up warning left out of the server's log: kernels listen on this
#: machine's loopback interface only, and every message is signed with the kernel's key
KERNEL_TCP_WARNING = "Kernel is running over TCP without encryption"


def _quiet_kernel_home(tmp: Path) -> Path:
    """An IPYTHONDIR whose profile disables history, so kernels write nothing to the user's home,
    and whose kernel configuration drops :data:`KERNEL_TCP_WARNING` (one per kernel, not actionable)."""
    profile = tmp / "ipython" / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    config = "c = get_config()  # noqa\nc.HistoryManager.enabled = False\n"
    quiet = ("import logging\n\n\nclass _DropTcpWarning(logging.Filter):\n"
             "    def filter(self, record):\n"
             f"        return {KERNEL_TCP_WARNING!r} not in record.getMessage()\n\n\n"
             "logging.getLogger('IPKernelApp').addFilter(_DropTcpWarning())\n")
    (profile / "ipython_config.py").write_text(config, encoding="utf-8")
    (profile / "ipython_kernel_config.py").write_text(config + quiet, encoding="utf-8")
    return tmp / "ipython"


def sign_notebooks(folder: Path, notary_dir: Path) -> None:
    """Sign every staged notebook in a notary store of this server's own
    (``notary_dir``: its secret and signature database, removed at exit), so
    that Jupyter Server does not warn "Notebook ... is not trusted" for each
    page; nothing is written to the user's Jupyter data folder."""
    import nbformat
    from nbformat.sign import NotebookNotary

    notary_dir.mkdir(parents=True, exist_ok=True)
    notary = NotebookNotary(data_dir=str(notary_dir))
    try:
        for path in sorted(folder.glob("*.ipynb")):
            notary.sign(nbformat.read(path, as_version=4))
    finally:
        notary.store.close()


# ---------------------------------------------------------------- the server


def main(argv: list[str] | None = None, prog: str = "python -m workbench.serve") -> int:
    """Serve the dashboards until interrupted (Ctrl-C or SIGTERM). Returns the exit status."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    for flag, (_, text) in OPTIONS.items():
        parser.add_argument(f"--{flag}", default=None, help=text)
    parser.add_argument("--public", action="store_true", help="serve a non-loopback host without a token")
    parser.add_argument("--dashboards", default=None, help="serve only these dashboards, e.g. changes,antares "
                                                           "(default: every one: "
                                                           + ", ".join(d.notebook.removesuffix(".ipynb")
                                                                       for d in DASHBOARDS) + ")")
    parser.add_argument("--notebooks", type=Path, default=NOTEBOOKS_DIR, help="folder holding the dashboard notebooks")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="workbench-dashboards-", ignore_cleanup_errors=True) as folder:
        tmp = Path(folder)  # the staged pages, the kernels' home and connection files: removed at exit
        try:
            port, host, base_url, token, max_kernels, pool_size, release_after = (
                read(getattr(args, flag.replace("-", "_"))) for flag, (read, _) in OPTIONS.items())
            dashboards = select_dashboards(args.dashboards)
            if token is None and not is_loopback(host) and not args.public:
                token = secrets.token_urlsafe(24)
            served = tmp / "dashboards"
            stage_notebooks(args.notebooks.resolve(), served, dashboards)
            rule_pages = None
            if not (args.dashboards or "").strip():  # every dashboard: the rule files' too, generated here
                from .rulepages import stage_rule_pages
                rule_pages = stage_rule_pages(served, tuple(d.notebook for d in dashboards))
                dashboards += rule_pages.dashboards
            os.environ["IPYTHONDIR"] = str(_quiet_kernel_home(tmp))
            os.environ["JUPYTER_PATH"] = os.pathsep.join(
                [str(TEMPLATE_ROOT)] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
            )
            os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
            os.environ.update(kernel_environment(host))  # the kernels' link channel dials this server's own host
            from .ui.forum import DOWNLOAD_DIR_ENV, DOWNLOAD_ENV, DOWNLOAD_PATH
            os.environ[DOWNLOAD_DIR_ENV] = str(tmp / "downloads")  # this server's own, removed at exit
            os.environ[DOWNLOAD_ENV] = base_url.rstrip("/") + "/" + DOWNLOAD_PATH  # a path on the page's own host
            from .ui.plotwidget import LIBRARY_ENV, LIBRARY_PATH
            os.environ[LIBRARY_ENV] = LIBRARY_PATH  # the plots fetch plotly.js there, under the page's base URL
            os.environ.pop("WORKBENCH_TOKEN", None)  # kernels need no secret
            sign_notebooks(served, tmp / "notary")
            from .dashboard_server import DashboardServer  # (importing Voila is slow: only now)

            app = DashboardServer()
            app.initialize([str(served), f"--Voila.connection_dir_root={tmp}", f"--Voila.base_url={base_url}",
                            f"--Voila.server_url={base_url}"])
            app.config.NotebookNotary.data_dir = str(tmp / "notary")  # the staged pages' signatures
            app.ip = host
            app.dashboards, app.rule_pages = dashboards, rule_pages
            app.port = port
            app.token = token  # read by the identity provider (workbench.dashboard_server.TokenIdentity)
            # read by the render route (dashboard_server.DashboardRender); Voila adds them to Tornado's settings
            app.tornado_settings = {"workbench_max_kernels": max_kernels, "workbench_release_after": release_after}
            if release_after != BUSY_RETRY_S:  # voila.json's culler is the default's
                app.config.MappingKernelManager.update(cull_settings(release_after))
            pools = pool_plan(pool_size, host, dashboards)
            app.voila_configuration.default_pool_size = pools["default"]
            app.voila_configuration.preheat_kernel = any(n > 0 for n in pools.values())
            app.config.VoilaKernelManager.kernel_pools_config = {name: {"pool_size": n} for name, n in pools.items()}
            if importlib.util.find_spec("anywidget"):  # plots are FigureWidgets: plotly's 5 MB mime renderer is unused
                app.voila_configuration.extension_denylist = [
                    *(app.voila_configuration.extension_denylist or []), "jupyterlab-plotly"]
            app.start()
        except (InputError, ListenError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":  # run main() of the module the server's own modules import, never a second copy
    from workbench.serve import main as serve_main

    sys.exit(serve_main())
