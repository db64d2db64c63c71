"""Every private name of Voila 0.5 the dashboard server still needs, each with why.

The server is built on the extension points Voila and Jupyter Server offer
(an identity provider, a kernel websocket connection class, traitlets
configuration, ``listen()``: :mod:`workbench.dashboard_server`). What those
do not reach is read or replaced here, and only here, so that a Voila upgrade
that renames one of them breaks one module (``tests/test_packaging.py``
imports the server at the lowest supported versions to find out).
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator


def pooled(km) -> Iterator[Any]:
    """Every preheated kernel's task in ``km``'s pools (done or still starting).

    Voila's ``VoilaKernelManager`` keeps its preheated kernels in ``_pools``
    (notebook name -> list of tasks) and offers only ``get_pool_size(name)``:
    nothing says *which* kernels are pooled, which counting the kernels
    viewers hold (``--max-kernels``) and sparing a pooled kernel from the
    disconnect shutdown both need.
    """
    for pool in getattr(km, "_pools", {}).values():
        yield from pool


def has_pools(km) -> bool:
    """Whether ``km`` preheats kernels (Voila's pooling kernel manager: it has ``_pools``)."""
    return hasattr(km, "_pools")


def pooled_kernel_id(task) -> str | None:
    """The kernel id of a pool task that finished well, else None (a task's
    result is Voila's private dict ``{"kernel_id": ..., "task": ...}``)."""
    if task.done() and task.exception() is None:
        return task.result().get("kernel_id")
    return None


def initializer(km) -> Callable[..., Any]:
    """``km._initialize``: the coroutine function Voila's ``fill_if_needed``
    calls to start and preheat one pool kernel. Voila has no hook between "a
    replacement is asked for" and "its kernel starts", so the paced refill
    (:mod:`workbench.kernelpool`) stands in for it while one fill call runs."""
    return km._initialize


@contextlib.contextmanager
def initializer_replaced(km, stand_in: Callable[..., Any]) -> Iterator[None]:
    """``stand_in`` where Voila's ``fill_if_needed`` looks up ``_initialize`` (an
    instance attribute over the class's method) while the ``with`` block runs."""
    km._initialize = stand_in
    try:
        yield
    finally:
        del km._initialize


def waiting_for_viewer(kernel_id: str) -> bool:
    """Whether a preheated kernel's notebook waits for its viewer's request.

    Voila's ``RequestInfoSocketHandler`` keeps the kernels whose
    ``wait_for_request`` websocket is open in the class's ``_waiters``; it has
    no public way to ask.
    """
    from voila.request_info_handler import RequestInfoSocketHandler

    return kernel_id in RequestInfoSocketHandler._waiters
