"""Refilling Voila's pool of preheated kernels without starving the viewers.

Voila starts the replacement of every taken kernel ``fill_delay`` seconds
later, all at once (sixteen at once cost a 2-core machine about 60
CPU-seconds beside the pages being opened). :class:`PacedRefill` starts a
replacement at once, except during a burst of viewers (then once they stop
arriving, at the latest after ``patience`` seconds), and one at a time unless
a viewer already waits for it. The first fill at start-up is Voila's own.
Why, and the measurements: docs/dashboards.md, "Refills start at once".
"""
from __future__ import annotations

import asyncio
import collections
import time
from typing import Any, Callable

from .voila_internals import initializer, initializer_replaced, pooled, waiting_for_viewer

#: during a burst: seconds without a viewer taking a kernel before a replacement starts
QUIET_S = 12.0
#: a burst: this many kernels taken within BURST_WINDOW_S seconds (a group of three is not one)
BURST_TAKES = 4
BURST_WINDOW_S = 10.0
#: a replacement starts at the latest this many seconds after it was asked for
PATIENCE_S = 45.0
#: the next replacement waits at most this long for the previous one's notebook to reach its viewer wait
PREHEAT_LIMIT_S = 120.0
#: what the server's log says when a replacement starts (followed by the notebook's name)
REFILL_LOG = "Preheating a replacement kernel for"
#: what the log says when a replacement's notebook is still not waiting for its viewer after the limit
SLOW_LOG = "Slow replacement kernel for"


class PacedRefill:
    """Paces the refills of a Voila kernel manager's pool (see the module's text).

    ``install(km)`` wraps ``km.fill_if_needed`` for the refills Voila asks for
    after a viewer took a kernel (``delay=None``); ``ready(kernel_id)`` says
    when a preheating notebook has reached its viewer wait (injectable for tests).
    """

    def __init__(self, quiet: float = QUIET_S, patience: float = PATIENCE_S, limit: float = PREHEAT_LIMIT_S,
                 ready: Callable[[str], bool] = waiting_for_viewer, clock: Callable[[], float] = time.monotonic,
                 burst: int = BURST_TAKES, window: float = BURST_WINDOW_S):
        if not 0 <= quiet <= patience:
            raise ValueError(f"quiet: expected 0 <= quiet <= patience ({patience}), got {quiet}")
        if burst < 1 or window < 0:
            raise ValueError(f"burst: expected at least 1 take within a window of 0 s or more, got {burst} in {window}")
        self.quiet, self.patience, self.limit = quiet, patience, limit
        self.burst, self.window = burst, window
        self.takes: collections.deque[float] = collections.deque()  # when viewers took kernels, the last window
        self.ready, self.clock = ready, clock
        self.last_taken = -float("inf")
        self._queue: list[asyncio.Task] = []  # replacements done waiting for quiet, in order
        self.unstarted: set[asyncio.Task] = set()  # replacements whose kernel is not started yet
        self._running: set[asyncio.Task] = set()  # replacements starting their kernel and preheating
        # the kernel manager and its own fill and initializer: set by install(km), before Voila can call a fill
        self._km: Any
        self._fill: Callable[..., Any]
        self._initialize: Callable[..., Any]

    def install(self, km) -> "PacedRefill":
        self._km, self._fill, self._initialize = km, km.fill_if_needed, initializer(km)
        km.fill_if_needed = self.fill_if_needed
        km.workbench_refill = self  # read by the count of the kernels viewers hold (dashboard_server.viewer_kernels)
        return self

    def fill_if_needed(self, delay: float | None = None, notebook_name: str | None = None, **kwargs):
        if delay is not None:  # the first fill, or an explicit delay: Voila's own
            return self._fill(delay=delay, notebook_name=notebook_name, **kwargs)
        asked = self.last_taken = self.clock()
        self.takes.append(asked)
        # Voila's fill_if_needed creates each replacement's coroutine with its initializer:
        # while it runs, that is the paced one
        paced = lambda name, kernel_id=None, **kw: self._paced(asked, name, kernel_id, **kw)
        with initializer_replaced(self._km, paced):
            return self._fill(delay=0, notebook_name=notebook_name, **kwargs)

    async def _paced(self, asked: float, notebook_name: str, kernel_id: str | None = None, **kwargs):
        me = asyncio.current_task()  # the pool's entry for this replacement (Voila's task)
        if me is None:  # a coroutine the event loop runs always runs in a task
            raise RuntimeError("PacedRefill._paced must run in an asyncio task")
        self.unstarted.add(me)
        try:
            await self._wait_turn(me, asked)
        finally:
            self.unstarted.discard(me)
        self._running.add(me)
        try:
            log = getattr(self._km, "log", None)
            if log is not None:
                log.info("%s %s", REFILL_LOG, notebook_name)
            content = await self._initialize(notebook_name, kernel_id, **kwargs)
            deadline = self.clock() + self.limit
            while not (content["task"].done() or self.ready(content["kernel_id"])):
                if self.clock() >= deadline:
                    if log is not None:  # the next replacement goes; this one is said, so a slow page shows
                        log.warning("%s %s: kernel %s has not reached its viewer wait after %g s; "
                                    "starting the next one", SLOW_LOG, notebook_name, content["kernel_id"],
                                    self.limit)
                    break
                await asyncio.sleep(0.25)
            return content
        finally:
            self._running.discard(me)

    async def _wait_turn(self, me, asked: float) -> None:
        """Return when replacement ``me`` may start: at once when a viewer waits for it, else
        after the quiet wait, in its turn, when no other replacement is preheating."""
        while not self._claimed(me) and self._held(asked):  # quiet first (outside the queue: others may go meanwhile)
            await asyncio.sleep(0.25)
        self._queue.append(me)
        try:  # a burst that begins while this one queues holds it too
            while not self._claimed(me) and (self._running or self._next() is not me or self._held(asked)):
                await asyncio.sleep(0.1)
        finally:
            self._queue.remove(me)

    def _held(self, asked: float) -> bool:
        """Whether a replacement asked for at ``asked`` still waits for quiet (only during a burst)."""
        return self.in_burst() and min(self.last_taken + self.quiet, asked + self.patience) > self.clock()

    def in_burst(self) -> bool:
        """Whether viewers are arriving in a burst: ``burst`` takes within the last ``window`` seconds."""
        now = self.clock()
        while self.takes and self.takes[0] < now - self.window:
            self.takes.popleft()
        return len(self.takes) >= self.burst

    def _next(self):
        """The queued replacement nobody waits for that starts next, or None while a viewer waits for one."""
        if any(self._claimed(t) for t in self._queue):
            return None
        return self._queue[0] if self._queue else None

    def _claimed(self, task) -> bool:
        """Whether a viewer took this pending replacement from the pool (and waits for it)."""
        return not any(t is task for t in pooled(self._km))
