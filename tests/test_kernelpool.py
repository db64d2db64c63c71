"""Refills of the preheated pool wait for a quiet moment and run one at a time
(workbench.kernelpool), driven through a stand-in with the shape of Voila's
kernel manager: ``fill_if_needed`` creates each replacement's coroutine with
``self._initialize(name, None, **kwargs)`` after ``delay`` seconds (Voila 0.5,
``voila_kernel_manager.py``)."""
from __future__ import annotations

import asyncio

import pytest

from workbench import kernelpool
from workbench.kernelpool import PacedRefill


class StandInPool:
    """Voila's pool logic in miniature; a kernel "preheats" for ``preheat`` seconds."""

    def __init__(self, preheat: float):
        self.preheat = preheat
        self._pools: dict[str, list[asyncio.Task]] = {"nb": []}
        self.pool = self._pools["nb"]
        self.events: list[tuple[str, str, float]] = []  # (what, kernel, loop time)
        self.ready: set[str] = set()
        self.count = 0

    async def _initialize(self, notebook_name, kernel_id=None, **kwargs):
        loop = asyncio.get_running_loop()
        self.count += 1
        kid = f"{notebook_name}-{self.count}"
        self.events.append(("start", kid, loop.time()))

        async def run():
            await asyncio.sleep(self.preheat)
            self.ready.add(kid)
            self.events.append(("ready", kid, loop.time()))
            await asyncio.sleep(3600)  # waits for its viewer

        return {"task": loop.create_task(run()), "kernel_id": kid, "renderer": None}

    def fill_if_needed(self, delay=None, notebook_name=None, **kwargs):
        delay = 1.0 if delay is None else delay

        async def wait_before(d, aw):
            await asyncio.sleep(d)
            return await aw

        self.pool.append(asyncio.get_running_loop().create_task(
            wait_before(delay, self._initialize(notebook_name, None, **kwargs))))

    async def paced_and_filled(self, size: int, quiet: float, patience: float) -> PacedRefill:
        """Install the pacer, then Voila's first fill of ``size`` kernels, preheated (events cleared)."""
        loop = asyncio.get_running_loop()
        pacer = PacedRefill(quiet=quiet, patience=patience, ready=lambda k: k in self.ready,
                            clock=loop.time).install(self)
        for _ in range(size):
            self.fill_if_needed(delay=0, notebook_name="nb")
        await asyncio.gather(*self.pool)
        self.events.clear()
        return pacer

    def take(self):
        """As Voila's get_rendered_notebook does: pop the pool's first entry, ask for a refill
        (here before awaiting the entry, which Voila does first: the order does not matter)."""
        taken = self.pool.pop(0) if self.pool else None
        self.fill_if_needed(delay=None, notebook_name="nb")
        return taken


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30))


def test_a_burst_of_takes_is_refilled_after_it_ends_one_kernel_at_a_time():
    async def scenario():
        km = StandInPool(preheat=0.3)
        pacer = await km.paced_and_filled(4, quiet=0.5, patience=10)
        for _ in range(4):  # four viewers, 0.1 s apart, each taking a ready kernel
            assert km.take().done()
            await asyncio.sleep(0.1)
        last_take = pacer.last_taken
        # the first viewer's replacement started at once (no burst yet); no other one has a kernel yet,
        # so none is the pool's in a count of kernels
        assert len(pacer.unstarted) == 3
        await asyncio.gather(*km.pool)
        assert not pacer.unstarted
        assert len(km.pool) == 4
        starts = [t for what, _, t in km.events if what == "start"]
        readies = [t for what, _, t in km.events if what == "ready"]
        assert len(starts) == 4
        assert starts[0] < last_take
        assert min(starts[1:]) >= last_take + 0.5 - 0.05, "a refill started while the burst was still arriving"
        # each replacement starts only after the previous one reached its viewer wait
        for ready, nxt in zip(readies, starts[1:]):
            assert nxt >= ready
        assert all(kid in km.ready for what, kid, _ in km.events if what == "start")

    run(scenario())


def test_a_steady_stream_of_viewers_still_gets_replacements_within_patience():
    async def scenario():
        km = StandInPool(preheat=0.05)
        pacer = await km.paced_and_filled(12, quiet=0.5, patience=0.8)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        for _ in range(12):  # a viewer every 0.2 s for 2.4 s, each taking a ready kernel: never quiet for 0.5 s
            assert km.take().done()
            await asyncio.sleep(0.2)
        first = next(t for what, _, t in km.events if what == "start")
        assert first - t0 <= 0.8 + 0.3, "the first replacement waited past its patience"
        for task in km.pool:
            task.cancel()
        await asyncio.gather(*km.pool, return_exceptions=True)
        assert pacer.last_taken >= t0

    run(scenario())


def test_the_first_fill_and_explicit_delays_are_voilas_own():
    async def scenario():
        km = StandInPool(preheat=0.01)
        loop = asyncio.get_running_loop()
        pacer = PacedRefill(quiet=5, patience=10, ready=lambda k: k in km.ready, clock=loop.time).install(km)
        km.fill_if_needed(delay=0, notebook_name="nb")  # start-up: not paced (quiet 5 s would delay it)
        await asyncio.gather(*km.pool)
        assert len(km.events) >= 1 and pacer.last_taken == -float("inf") and not pacer.unstarted
        assert "_initialize" not in vars(km), "the paced stand-in must not outlive the refill call"

    run(scenario())


def test_quiet_longer_than_patience_is_refused():
    with pytest.raises(ValueError, match="quiet"):
        PacedRefill(quiet=30, patience=10)


def test_a_viewer_waiting_for_a_pending_replacement_gets_it_without_the_quiet_wait():
    async def scenario():
        km = StandInPool(preheat=0.05)
        loop = asyncio.get_running_loop()
        PacedRefill(quiet=5, patience=10, ready=lambda k: k in km.ready, clock=loop.time).install(km)
        t0 = loop.time()
        km.take()  # the pool is empty: this asks for a replacement, which waits for quiet
        pending = km.take()  # a second viewer takes that pending replacement and waits for it
        content = await pending
        assert content["kernel_id"] in km.ready
        assert loop.time() - t0 < 2, "a waiting viewer sat through the quiet period"
        for task in km.pool:
            task.cancel()
        await asyncio.gather(*km.pool, return_exceptions=True)

    run(scenario())


def test_a_waited_for_replacement_does_not_queue_behind_another_dashboards_quiet_wait():
    async def scenario():
        km = StandInPool(preheat=0.05)
        km._pools["other"] = []
        loop = asyncio.get_running_loop()
        PacedRefill(quiet=5, patience=10, ready=lambda k: k in km.ready, clock=loop.time).install(km)
        km.fill_if_needed(delay=None, notebook_name="other")  # another dashboard's refill, waiting for quiet
        km._pools["other"].append(km.pool.pop())  # (the stand-in files every refill under "nb")
        await asyncio.sleep(0.1)
        t0 = loop.time()
        km.take()  # this dashboard: a refill, also waiting for quiet
        pending = km.take()  # a viewer takes it and waits
        content = await pending
        assert loop.time() - t0 < 2, "the waited-for replacement sat behind a quiet wait"
        assert content["kernel_id"] in km.ready
        for task in [*km.pool, *km._pools["other"]]:
            task.cancel()
        await asyncio.gather(*km.pool, *km._pools["other"], return_exceptions=True)

    run(scenario())


def test_a_viewer_outside_a_burst_gets_a_replacement_started_at_once():
    async def scenario():
        km = StandInPool(preheat=0.2)
        pacer = await km.paced_and_filled(2, quiet=5, patience=10)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        assert km.take().done()  # the first viewer of the page
        await asyncio.sleep(0.5)
        t1 = loop.time()
        assert km.take().done()  # a second one, after the first's replacement has preheated
        await asyncio.gather(*km.pool)
        starts = [t for what, _, t in km.events if what == "start"]
        assert len(starts) == 2 and not pacer.in_burst()
        assert starts[0] - t0 < 0.1 and starts[1] - t1 < 0.1, "a refill waited although no burst was on"
        assert len(km.pool) == 2

    run(scenario())


def test_three_viewers_together_are_not_a_burst_but_five_are():
    async def scenario():
        loop = asyncio.get_running_loop()
        for viewers, paced in ((3, False), (5, True)):
            km = StandInPool(preheat=0.05)
            pacer = await km.paced_and_filled(viewers, quiet=1.0, patience=10)
            t0 = loop.time()
            for _ in range(viewers):
                km.take()
            await asyncio.gather(*km.pool)
            first = min(t for what, _, t in km.events if what == "start")
            assert (first - t0 >= 1.0 - 0.05) is paced, (viewers, first - t0)
            starts = sorted(t for what, _, t in km.events if what == "start")
            readies = sorted(t for what, _, t in km.events if what == "ready")
            assert all(nxt >= ready for ready, nxt in zip(readies, starts[1:]))  # still one at a time
            assert pacer.burst == 4

    run(scenario())


def test_a_burst_needs_at_least_one_take():
    with pytest.raises(ValueError, match="burst"):
        PacedRefill(burst=0)


def test_a_replacement_stuck_before_its_viewer_wait_is_logged_and_the_next_one_starts():
    class Log:
        def __init__(self):
            self.warnings: list[str] = []

        def info(self, *args):
            pass

        def warning(self, fmt, *args):
            self.warnings.append(fmt % args)

    async def scenario():
        km = StandInPool(preheat=3600)  # a notebook that never reaches its viewer wait
        km.log = Log()
        loop = asyncio.get_running_loop()
        PacedRefill(quiet=0, patience=0, limit=0.3, ready=lambda k: k in km.ready, clock=loop.time).install(km)
        km.take()
        km.take()  # two replacements: the second waits its turn behind the stuck first
        started = loop.time()
        await asyncio.gather(*km.pool)
        assert loop.time() - started < 2, "the second replacement waited for more than the limit"
        assert [what for what, _, _ in km.events] == ["start", "start"]
        assert len(km.log.warnings) == 2
        assert all(w.startswith(kernelpool.SLOW_LOG + " nb: kernel nb-") for w in km.log.warnings)
        assert "after 0.3 s" in km.log.warnings[0]

    run(scenario())


def test_replacements_viewers_wait_for_start_together_and_refills_nobody_waits_for_hold_back():
    async def scenario():
        km = StandInPool(preheat=1.0)
        loop = asyncio.get_running_loop()
        PacedRefill(quiet=0, patience=0, ready=lambda k: k in km.ready, clock=loop.time).install(km)
        t0 = loop.time()
        km.take()  # the pool is empty: a refill nobody waits for yet, which starts preheating
        await asyncio.sleep(0.2)
        waited = [km.take() for _ in range(3)]  # three viewers: each takes the pending replacement before it
        contents = await asyncio.gather(*waited)
        starts = {kid: t for what, kid, t in km.events if what == "start"}
        readies = {kid: t for what, kid, t in km.events if what == "ready"}
        mine = [c["kernel_id"] for c in contents]
        assert len(set(mine)) == 3 and all(kid in km.ready for kid in mine)
        # the second and third viewers' kernels did not wait for the one preheating before them
        assert max(starts[kid] for kid in mine) - t0 < 0.2 + 0.3, starts
        assert loop.time() - t0 < 1.0 + 0.2 + 0.5, "the viewers' kernels preheated one after another"
        await asyncio.gather(*km.pool)  # the refill nobody waits for
        starts = {kid: t for what, kid, t in km.events if what == "start"}
        (spare,) = set(starts) - set(mine)
        assert starts[spare] >= max(readies[kid] for kid in mine), "a spare refill competed with waited-for ones"

    run(scenario())
