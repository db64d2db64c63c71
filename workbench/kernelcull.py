"""Jupyter Server's idle culler, never taking a kernel whose page is still on its way.

The culler (``voila.json``, ``--release-after``) releases the kernel of a page
that never connects. :class:`DashboardKernelManager` (Voila's
``multi_kernel_manager_class``, made into Voila's pooling manager by Voila
itself) spares the two a viewer waits for that its idle test would take: a
kernel still starting (up to :data:`START_LIMIT_S` seconds) and one whose page
is still being rendered or sent (its idle time starts when that request
ends). Why: docs/dashboards.md, "A page on its way keeps its kernel".
"""
from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

#: seconds a kernel may stay ``starting`` (its process launched, not answering yet) and still be spared
START_LIMIT_S = 120.0


def _now() -> datetime:
    return datetime.now(timezone.utc)  # the clock of Jupyter Server's ``last_activity`` (aware, UTC)


class DashboardKernelManager(AsyncMappingKernelManager):
    """Jupyter Server's kernel manager whose idle culler spares a kernel still
    starting, busy, or whose page is still being rendered (see the module's text).

    A render request runs inside :meth:`rendering_page`; the kernel it starts
    (:meth:`start_kernel`) or takes from Voila's pool (``get_rendered_notebook``)
    is that page's until the request ends.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._pages: dict[asyncio.Task, set[str]] = {}  # a running render request -> the kernels it took
        taken = getattr(self, "get_rendered_notebook", None)
        if taken is not None:  # Voila's pooling manager, made on this class: a viewer takes a preheated kernel
            async def get_rendered_notebook(*args, **kwargs):
                result = await taken(*args, **kwargs)
                self._claim(result[2])  # Voila's (render task, rendered cells, kernel id)
                return result

            self.get_rendered_notebook = get_rendered_notebook

    @contextlib.contextmanager
    def rendering_page(self) -> Iterator[set[str]]:
        """While a render request runs (in its own asyncio task): the kernels it takes
        are spared by the culler; when it ends, their idle time starts from then."""
        task = asyncio.current_task()
        if task is None:  # a render request is a coroutine the event loop runs in a task
            raise RuntimeError("rendering_page must be entered in an asyncio task")
        kernels = self._pages.setdefault(task, set())
        try:
            yield kernels
        finally:
            del self._pages[task]
            for kernel_id in kernels:
                if kernel_id in self:
                    kernel: Any = self.get_kernel(kernel_id)  # (Jupyter Server adds last_activity to each)
                    kernel.last_activity = _now()

    def page_pending(self, kernel_id: str) -> bool:
        """Whether a render request that took this kernel is still running."""
        return any(kernel_id in kernels for kernels in self._pages.values())

    def _claim(self, kernel_id: str) -> None:
        """The kernel belongs to the page the current task renders, if it renders one
        (a pool refill started meanwhile runs in a task of its own: not claimed)."""
        kernels = self._pages.get(asyncio.current_task())  # type: ignore[arg-type]
        if kernels is not None:
            kernels.add(kernel_id)

    async def start_kernel(self, **kwargs: Any) -> str:  # type: ignore[override]  # (async, as Jupyter Server's is)
        kernel_id = await super().start_kernel(**kwargs)
        self._claim(kernel_id)
        return kernel_id

    def spared(self, kernel_id: str) -> str | None:
        """Why the culler must leave this kernel now (in words for the log), else None."""
        if self.page_pending(kernel_id):
            return "its page is still being rendered or sent"
        kernel = self.get_kernel(kernel_id)
        state = getattr(kernel, "execution_state", None)
        if state == "busy":
            return "it is running code"
        last = getattr(kernel, "last_activity", None)
        if state == "starting" and (last is None or _now() - last < timedelta(seconds=START_LIMIT_S)):
            return "it is still starting"
        return None

    async def cull_kernel_if_idle(self, kernel_id: str):
        reason = self.spared(kernel_id)
        if reason is not None:
            self.log.debug("Not culling kernel %s: %s", kernel_id, reason)
            return None
        return await super().cull_kernel_if_idle(kernel_id)
