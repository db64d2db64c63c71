"""A preheated kernel's wait for its viewer, without Voila's server in the kernel.

Voila preheats a dashboard's kernel: it runs the notebook before anyone asks
for the page, up to the point where the notebook needs the viewer's request
(here, the values of the link). There the kernel dials the server's
request-info websocket, ``<base URL>voila/query/<kernel id>``, and waits; when
a viewer takes the kernel, the server sends the request's variables
(``QUERY_STRING``, ``SCRIPT_NAME``, ...) as one JSON object, which become the
kernel's environment variables.

``voila.utils.wait_for_request`` does exactly that, but importing it imports
Voila's server side with it (jupyter_server, jupyterlab_server, nbconvert:
about a thousand modules, 6 CPU-seconds and 60 MB in every kernel, measured
with Voila 0.5.8), which a kernel never uses. :func:`wait_for_request` speaks
the same protocol with the ``websockets`` client Voila itself depends on,
reading the variables Voila's kernel manager sets (``VOILA_PREHEAT``,
``VOILA_KERNEL_ID``, ``VOILA_APP_IP``, ``VOILA_APP_PORT``,
``VOILA_SERVER_URL``, ``VOILA_WS_BASE_URL``, ``VOILA_WS_PROTOCOL``).
"""
from __future__ import annotations

import json
import os
import warnings
from typing import Mapping

__all__ = ["request_url", "wait_for_request", "OPEN_TIMEOUT_S"]

#: seconds to reach the server's request-info websocket (Voila's own value)
OPEN_TIMEOUT_S = 5.0


def request_url(environ: Mapping[str, str] | None = None) -> str:
    """The request-info websocket of this kernel, from Voila's variables (Voila's defaults where unset)."""
    env = os.environ if environ is None else environ
    protocol = env.get("VOILA_WS_PROTOCOL", "ws")
    host = env.get("VOILA_APP_IP", "127.0.0.1")
    port = env.get("VOILA_APP_PORT", "8866")
    base = env.get("VOILA_WS_BASE_URL", env.get("VOILA_SERVER_URL", "/"))
    return f"{protocol}://{host}:{port}{base}voila/query/{env.get('VOILA_KERNEL_ID')}"


def wait_for_request(url: str | None = None, open_timeout: float = OPEN_TIMEOUT_S) -> None:
    """Outside a preheated kernel, return at once. Inside one, wait until a
    viewer takes this kernel and put its request's variables into
    ``os.environ``. When the server cannot be reached, warn (as Voila does)
    and return with the environment unchanged."""
    if os.environ.get("VOILA_PREHEAT", "False") == "False":
        return
    try:
        from websockets.exceptions import WebSocketException
        from websockets.sync.client import connect
    except ImportError:  # pragma: no cover - a websockets older than 12 (Voila allows 9): Voila's own wait
        from voila.utils import wait_for_request as voila_wait

        voila_wait(url)
        return
    url = url or request_url()
    try:
        # the server is this machine (workbench.serve sets VOILA_APP_IP): never through a proxy
        with connect(url, open_timeout=open_timeout, proxy=None) as ws:
            info = ws.recv()
    except (OSError, TimeoutError, WebSocketException) as exc:
        warnings.warn(f"Failed to connect to {url}: {exc}", stacklevel=2)
        return
    for key, value in json.loads(info).items():
        os.environ[key] = value
