"""The idle culler never takes a kernel a viewer is waiting for (workbench.kernelcull).

Driven through Jupyter Server's own culler (``cull_kernel_if_idle``) and
Voila's own pooling manager made on the server's class, with stand-in kernels
carrying what the culler reads of one (state, last activity, kernel spec):
no kernel process is started. Each spared case is first shown culled by the
managers the server used before (Jupyter Server's and Voila's as they come).
"""
from __future__ import annotations

import asyncio
import itertools
import tempfile
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

from workbench.kernelcull import START_LIMIT_S, DashboardKernelManager

IDLE_S = 20  # the culler's timeout here (voila.json's)


class StandInKernel:
    """What Jupyter Server's culler reads of a kernel it manages."""

    def __init__(self, state: str, idle_s: float):
        self.execution_state = state
        self.last_activity = datetime.now(timezone.utc) - timedelta(seconds=idle_s)
        self.kernel_spec = SimpleNamespace(metadata={})
        self.kernel_name = "python3"


def manage(km, kernel_id: str, kernel: StandInKernel) -> str:
    """Put a stand-in kernel where Jupyter Server's manager keeps its kernels, no websocket open."""
    km._kernels[kernel_id] = kernel
    km._kernel_connections[kernel_id] = 0
    return kernel_id


def recording(km):
    """The manager, its shutdowns recorded instead of done (``km.shut``: the culled kernel ids)."""
    km.shut = []

    async def shutdown_kernel(kernel_id, *args, **kwargs):
        km.shut.append(kernel_id)

    km.shutdown_kernel = shutdown_kernel
    return km


def voila_pooling(base):
    """Voila's pooling kernel manager made on ``base``, as Voila's ``start()`` makes it
    (no notebook to preheat: its pool is filled by the test)."""
    from voila.app import Voila
    from voila.voila_kernel_manager import voila_kernel_manager_factory

    app = Voila()
    app.root_dir = tempfile.mkdtemp(prefix="workbench-cull-")
    km = recording(voila_kernel_manager_factory(base, True, 0)(parent=app, cull_idle_timeout=IDLE_S))
    km.fill_if_needed = lambda *args, **kwargs: None  # the refill a take asks for is not this test's
    return km


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 30))


def test_a_kernel_still_starting_is_spared_where_jupyter_servers_culler_takes_it():
    for cls, culled in ((AsyncMappingKernelManager, ["k"]), (DashboardKernelManager, [])):
        km = recording(cls(cull_idle_timeout=IDLE_S))
        manage(km, "k", StandInKernel("starting", idle_s=3 * IDLE_S))  # launched a minute ago, not answering yet
        run(km.cull_kernel_if_idle("k"))
        assert km.shut == culled, cls
    km = recording(DashboardKernelManager(cull_idle_timeout=IDLE_S))
    manage(km, "stuck", StandInKernel("starting", idle_s=START_LIMIT_S + 1))  # never answers: culled after all
    manage(km, "idle", StandInKernel("idle", idle_s=IDLE_S + 1))
    manage(km, "recent", StandInKernel("idle", idle_s=IDLE_S - 5))
    for kernel_id in ("stuck", "idle", "recent"):
        run(km.cull_kernel_if_idle(kernel_id))
    assert km.shut == ["stuck", "idle"]  # the culler still releases what is idle, and only that


def test_a_busy_kernel_is_spared_even_when_busy_ones_are_culled():
    for cls, culled in ((AsyncMappingKernelManager, ["k"]), (DashboardKernelManager, [])):
        km = recording(cls(cull_idle_timeout=IDLE_S, cull_busy=True))
        manage(km, "k", StandInKernel("busy", idle_s=3 * IDLE_S))  # a notebook's cell running for a minute
        run(km.cull_kernel_if_idle("k"))
        assert km.shut == culled, cls


def test_a_started_kernel_is_spared_until_its_page_is_sent_then_idles_from_then(monkeypatch):
    ids = (f"k{n}" for n in itertools.count())

    async def launch(km, **kwargs):  # Jupyter Server's start, without a process: idle since its last cell
        return manage(km, next(ids), StandInKernel("idle", idle_s=IDLE_S + 10))

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", launch)

    async def scenario():
        km = recording(DashboardKernelManager(cull_idle_timeout=IDLE_S))
        with km.rendering_page():  # as the render handler does around Voila's render
            viewer = await km.start_kernel(kernel_name="python3")
            refill = await asyncio.create_task(km.start_kernel())  # a pool refill, in a task of its own
            for kernel_id in (viewer, refill):
                await km.cull_kernel_if_idle(kernel_id)
            assert km.shut == [refill]  # idle, and no page waits for it
            assert km.page_pending(viewer) and not km.page_pending(refill)
        assert not km.page_pending(viewer)
        await km.cull_kernel_if_idle(viewer)
        assert km.shut == [refill]  # its page was just sent: the browser gets the whole idle time to connect
        km.get_kernel(viewer).last_activity -= timedelta(seconds=IDLE_S + 1)
        await km.cull_kernel_if_idle(viewer)
        assert km.shut == [refill, viewer]  # a page that never connected is released

    run(scenario())


def _pool_entry(kernel_id: str):
    """A preheated pool entry as Voila's ``_initialize`` leaves it (done: waiting for its viewer)."""
    loop = asyncio.get_running_loop()
    entry = loop.create_future()
    renderer = SimpleNamespace(rendered_cache=[], stop_generator=False)
    entry.set_result({"kernel_id": kernel_id, "renderer": renderer, "task": loop.create_future()})
    return entry


def test_a_preheated_kernel_taken_by_a_render_is_spared_until_its_page_is_sent():
    async def take_and_cull(km):
        manage(km, "v", StandInKernel("idle", idle_s=IDLE_S + 10))  # preheated, the notebook's last cell long ago
        km._pools["nb"] = [_pool_entry("v")]
        await km.cull_kernel_if_idle("v")
        assert km.shut == []  # in the pool: Voila's own manager spares it
        _, _, kernel_id = await km.get_rendered_notebook("nb")
        assert kernel_id == "v"
        await km.cull_kernel_if_idle("v")

    async def before():
        km = voila_pooling(AsyncMappingKernelManager)
        await take_and_cull(km)
        assert km.shut == ["v"]  # taken for a viewer's page, culled while that page is rendered

    async def now():
        km = voila_pooling(DashboardKernelManager)
        with km.rendering_page():
            await take_and_cull(km)
            assert km.shut == []
        await km.cull_kernel_if_idle("v")
        assert km.shut == []  # idle from the moment its page was sent
        km.get_kernel("v").last_activity -= timedelta(seconds=IDLE_S + 1)
        await km.cull_kernel_if_idle("v")
        assert km.shut == ["v"]

    run(before())
    run(now())


def test_the_server_manages_its_kernels_with_this_culler_and_voila_json_configures_it(tmp_path):
    from workbench.dashboard_server import DashboardServer

    app = DashboardServer()
    app.initialize([str(tmp_path)])
    assert app.voila_configuration.multi_kernel_manager_class is DashboardKernelManager
    km = DashboardKernelManager(parent=app)
    assert (km.cull_idle_timeout, km.cull_interval, km.cull_busy, km.cull_connected) == (20, 10, False, False)

