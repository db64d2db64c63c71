"""A preheated kernel's wait for its viewer, without Voila's server in the kernel.

A preheated kernel runs its notebook up to the point where it needs the viewer's request (the
link's values), then dials the server's request-info websocket ``<base URL>voila/query/<kernel
id>``; when a viewer takes the kernel, the server sends the request's variables
(``QUERY_STRING``, ...) as one JSON object, which become the kernel's environment variables.
:func:`wait_for_request` is ``voila.utils.wait_for_request`` with the ``websockets`` client,
reading Voila's ``VOILA_*`` variables, without importing Voila's server side
(docs/dashboards.md, "Voila's server stays out of the kernels").
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
