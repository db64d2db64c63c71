"""What the dashboard server shows and gives, below both its command line
(:mod:`workbench.serve`) and its Voila application (:mod:`workbench.dashboard_server`):
the pages it serves (:data:`DASHBOARDS`: one per built-in system, titled and described
by its description, then the other pages; the rule files' pages are added when the
server starts, :mod:`workbench.rulepages`), the landing page, the pages a refused
request gets, the access cookie, the kernels' shutdown and the times a viewer is
given. Importing it imports neither Voila nor Tornado.
"""
from __future__ import annotations

import hashlib
import hmac
import html
import string
from dataclasses import dataclass
from pathlib import Path

from . import systems
from .systems import changes, ownfile

VOILA_DIR = Path(__file__).resolve().parent / "voila"
TEMPLATE_ROOT = VOILA_DIR / "share"  # a Jupyter data dir: voila/templates/workbench
TEMPLATE_DIR = TEMPLATE_ROOT / "voila" / "templates" / "workbench"
LANDING_TEMPLATE = TEMPLATE_DIR / "landing.html"
NOTICE_TEMPLATE = TEMPLATE_DIR / "notice.html"
#: seconds a kernel may stay without any websocket before it is shut down (a
#: page that closed without Voila's shutdown beacon; a brief network drop reconnects sooner)
DISCONNECT_GRACE = 15.0
#: seconds after which a refused ("busy") viewer may try again: a kernel whose page
#: never connected is released within this (the culler of ``voila.json``: 20 s idle,
#: checked every 10 s)
BUSY_RETRY_S = 30
#: the fewest and most seconds ``--release-after`` accepts: a kernel's idle time counts from the moment
#: its page was sent (workbench.kernelcull spares it while it starts and while its page renders), and
#: the idle part (two thirds) of the fewest still gives a phone on a slow connection 10 s to connect
RELEASE_AFTER_RANGE = (15, 3600)


@dataclass(frozen=True)
class Dashboard:
    """One served notebook: its file name in ``notebooks/``, a title and a line for the landing page."""

    notebook: str
    title: str
    blurb: str

    @property
    def path(self) -> str:
        """URL path of the rendered dashboard, below the base URL."""
        return f"/voila/render/{self.notebook}"


#: the landing page's line of a turn page (the built-in's, and a copy's of the Changes folder)
TURN_LINE = ("Two forces play a whole Changes turn again and again: each player's plan, engage or stay under fire, "
             "wasted shots, and the same forces under I-go-you-go.")
_TURN = ownfile.page(changes.KEY, "turn")  # the built-in turn page, titled by its rule file (rules/changes/turn.toml)

#: one page per built-in system, titled and described by its description, then the other pages
DASHBOARDS: tuple[Dashboard, ...] = tuple(Dashboard(f"{key}.ipynb", d.title, d.blurb)
                                          for key, d in systems.builtins().items()) + (
    Dashboard("compare.ipynb", "Four systems side by side", "One matchup in each system, shared sliders, overlaid distributions."),
    Dashboard("diagnostics.ipynb", "Design diagnostics", "Sweeps over two stats, the value of +1, granularity, equivalent settings across systems."),
    Dashboard("changes_turn.ipynb", _TURN.view.title or _TURN.name, TURN_LINE),
    Dashboard("before_after.ipynb", "Before and after", "What one rule change does: the change of models removed "
              "over a grid of two stats, the matchups it moves most, and a forum post of it."),
)


def cull_settings(release_after: int = BUSY_RETRY_S) -> dict[str, int]:
    """Jupyter Server's culler (``MappingKernelManager``) for kernels whose page
    never connected, released within ``release_after`` seconds of going idle:
    two thirds idle time, one third between two looks (30 s: 20 s idle, every 10 s)."""
    idle = max(1, release_after * 2 // 3)
    return {"cull_idle_timeout": idle, "cull_interval": max(1, release_after - idle)}


TOKEN_COOKIE = "workbench_token"


def landing_page(dashboards=DASHBOARDS, extra_items: str = "") -> str:
    """The HTML of the base URL: one link per dashboard, relative to the page
    (then ``extra_items``), no external resource."""
    items = "\n".join(
        f'<li><a href="{html.escape(d.path.lstrip("/"))}">{html.escape(d.title)}</a>'
        f"<span>{html.escape(d.blurb)}</span></li>"
        for d in dashboards
    ) + ("\n" + extra_items if extra_items else "")
    return string.Template(LANDING_TEMPLATE.read_text(encoding="utf-8")).substitute(items=items)


#: the pages a refused request gets: (HTTP status, title, what to do)
NOTICES = {
    "token": (401, "This link needs its access token",
              "These dashboards are shared with a token. Open the full link you were given "
              "(it ends with ?token=...), or ask the person who shared it for that link."),
    "busy": (503, "The dashboards are busy",
             "Too many people are using the dashboards right now. Try again in {retry} seconds: "
             "a place is freed as soon as someone closes a dashboard."),
}


def notice_page(kind: str, retry: int = BUSY_RETRY_S) -> tuple[int, str]:
    """``(status, html)`` of a refused request's page (``kind``: ``token`` or
    ``busy``; a busy page says to try again in ``retry`` seconds)."""
    status, title, text = NOTICES[kind]
    text = text.format(retry=retry)
    page = string.Template(NOTICE_TEMPLATE.read_text(encoding="utf-8")).substitute(
        title=html.escape(title), text=html.escape(text))
    return status, page


def refuse(handler, kind: str, retry: int = BUSY_RETRY_S, **headers: str) -> None:
    """Answer ``handler``'s request with the refusal page of ``kind`` (never
    cached), plus ``headers`` (``WWW-Authenticate``, ``Retry-After``)."""
    status, page = notice_page(kind, retry)
    handler.set_status(status)
    for name, value in headers.items():
        handler.set_header(name, value)
    handler.set_header("Content-Type", "text/html; charset=utf-8")
    handler.set_header("Cache-Control", "no-store")
    handler.finish(page)


async def shutdown_every_kernel(km, attempts: int = 10, pause: float = 0.5) -> None:
    """``km.shutdown_all(now=True)``, again when it stops at a kernel still starting.

    ``shutdown_all`` also shuts down the kernels whose start is pending (a refill
    started as the server stops), and Jupyter Server answers such a kernel's id
    with a 404; ``shutdown_all`` then stops there and leaves the other kernels
    and the pool running. A 404 is retried after ``pause`` seconds, at most
    ``attempts`` times in all (a few seconds: the start is usually done by
    then). Any other error, or a 404 on every attempt, is raised."""
    import asyncio

    import tornado.web

    for attempt in range(attempts):
        try:
            await km.shutdown_all(now=True)
            return
        except tornado.web.HTTPError as exc:
            if exc.status_code != 404 or attempt == attempts - 1:
                raise
            await asyncio.sleep(pause)


def token_cookie_value(token: str) -> str:
    """What the access cookie holds: a keyed hash of the token (never the token
    itself), the same in every server process given that token, so a viewer
    whom a proxy moves to another process stays admitted."""
    return hmac.new(token.encode(), b"workbench dashboards access", hashlib.sha256).hexdigest()


class ListenError(Exception):
    """The server could not listen on its host and port (the message says why, in one line)."""
