"""What one dashboard kernel costs: memory and CPU of a preheated kernel's work.

Each playtester holds a kernel of their own, so its weight is the server's
cost per viewer. A preheated kernel imports ipykernel, builds its dashboard,
then waits for its viewer's link. Measured here in a fresh process each (no
server needed): the kernel's own imports, the dashboard built, and the wait
module imported, two ways:

* **workbench**: ``workbench.ui.preheat`` (the ``websockets`` client), what
  the dashboards use;
* **peer**: ``voila.utils.wait_for_request``, Voila's own function, which
  imports Voila's server side into the kernel.

Printed per dashboard: resident memory (RSS), unique memory (USS) and CPU
seconds of the process, and the ratio peer / workbench.

``--moves``: what one slider move costs a real kernel (started by
jupyter_client, no server, no browser): the Changes dashboard's BS slider is
moved by comm messages like a browser's, and the kernel's CPU per move is
read from its process. The peer is a bare ipywidgets page in the same kind of
kernel: a slider whose observer updates one HTML widget, and one updating as
many widgets as the dashboard does per move, so that the ratio shows what
the dashboard adds over the messages themselves. Kill-6's page (a rule file,
four steps) is moved with its "Stage by stage" section folded and open: what
the stage charts add to a move once a viewer opens them. "messages out"
counts what the kernel publishes per move: its busy and idle status and the
widget messages (a system page's numbers travel in one, its feed: see
``workbench.ui.plotwidget.Feed``). Run:
``.venv/bin/python benchmarks/bench_kernel.py`` (``--quick``: Changes only;
``--moves``: the slider moves only).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

KERNEL = """
import json, os, resource, sys, time
import ipykernel.ipkernel, ipywidgets  # what every kernel imports before the notebook
{build}
{wait}
import psutil
p = psutil.Process()
m = p.memory_full_info()
t = p.cpu_times()
print(json.dumps({{"rss": m.rss / 2**20, "uss": m.uss / 2**20, "cpu": t.user + t.system,
                  "modules": len(sys.modules)}}))
"""
BUILDS = {
    "changes": "from workbench.ui import SystemDashboard\nd = SystemDashboard('changes')",
    "compare": "from workbench.ui import CompareDashboard\nd = CompareDashboard()",
    "diagnostics": "from workbench.ui.diagnostics import DiagnosticsDashboard\nd = DiagnosticsDashboard()",
}
WAITS = {
    "workbench": "from workbench.ui.preheat import wait_for_request",
    "peer (voila.utils)": "from voila.utils import wait_for_request",
}


def measure(build: str, wait: str) -> dict:
    out = subprocess.run([sys.executable, "-c", KERNEL.format(build=build, wait=wait)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


MOVE_PAGES = {
    "workbench Changes": "from workbench.ui import SystemDashboard\n"
                         "d = SystemDashboard('changes'); display(d); c = d.controls['bs']",
    "kill6, stages folded": "from workbench.ui import SystemDashboard\n"
                            "d = SystemDashboard('kill6'); display(d); c = d.controls['bs']",
    "kill6, stages open": "from workbench.ui import SystemDashboard\nd = SystemDashboard('kill6'); display(d)\n"
                          "d.stage_charts.widget.selected_index = 0; c = d.controls['bs']",
    "peer: 1 update": "import ipywidgets as W\nc = W.IntSlider(min=1, max=13); hs = [W.HTML()]\n"
                      "c.observe(lambda ch: [setattr(h, 'value', str(ch.new) * 100) for h in hs], 'value')\n"
                      "display(W.VBox([c, *hs]))",
    "peer: 6 updates": "import ipywidgets as W\nc = W.IntSlider(min=1, max=13); hs = [W.HTML() for _ in range(6)]\n"
                       "c.observe(lambda ch: [setattr(h, 'value', str(ch.new) * 100) for h in hs], 'value')\n"
                       "display(W.VBox([c, *hs]))",
}
MOVES = 60


def move_cost(build: str, moves: int = MOVES) -> dict:
    """Kernel CPU-ms and iopub messages per slider move, the slider moved over comm messages."""
    import queue
    import time

    import psutil
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT))
    try:
        def run(code: str) -> str:
            msg_id, out = kc.execute(code), []
            while True:
                m = kc.get_iopub_msg(timeout=120)
                if m["msg_type"] == "stream":
                    out.append(m["content"]["text"])
                if m["msg_type"] == "error":
                    raise SystemExit("\n".join(m["content"]["traceback"]))
                if (m["msg_type"] == "status" and m["content"]["execution_state"] == "idle"
                        and m["parent_header"].get("msg_id") == msg_id):
                    return "".join(out)

        model = run(build + "\nprint(c.model_id)").strip().splitlines()[-1]

        def drain(seconds: float) -> int:
            n, end = 0, time.monotonic() + seconds
            while time.monotonic() < end:
                try:
                    kc.get_iopub_msg(timeout=0.05)
                    n += 1
                except queue.Empty:  # nothing more within the poll
                    pass
            return n

        def move(value: int) -> None:
            content = {"comm_id": model, "data": {"method": "update", "state": {"value": value}, "buffer_paths": []}}
            kc.shell_channel.send(kc.session.msg("comm_msg", content))

        for v in (6, 7):  # warm: the first redraws build caches
            move(v)
            drain(1.0)
        proc = psutil.Process(km.provisioner.process.pid)  # type: ignore[attr-defined]
        before, messages = proc.cpu_times(), 0
        for i in range(moves):
            move(3 + i % 8)
            messages += drain(0.25)
        after = proc.cpu_times()
        cpu = (after.user + after.system) - (before.user + before.system)
        return {"ms": cpu / moves * 1e3, "messages": messages / moves}
    finally:
        km.shutdown_kernel(now=True)


def main_moves() -> int:
    print(f"one slider move, kernel CPU (mean of {MOVES} moves; the clock ticks at 10 ms, so +-{10 / MOVES:.2f} ms):")
    rows = {name: move_cost(code) for name, code in MOVE_PAGES.items()}
    for name, r in rows.items():
        print(f"  {name:20} {r['ms']:6.1f} ms  {r['messages']:4.1f} messages out")
    ours = rows["workbench Changes"]["ms"]
    for name in ("peer: 1 update", "peer: 6 updates"):
        print(f"  workbench / {name:15} {ours / rows[name]['ms']:5.2f}x")
    return 0


def main(argv: list[str]) -> int:
    if "--moves" in argv:
        return main_moves()
    pages = ["changes"] if "--quick" in argv else list(BUILDS)
    print(f"{'page':12} {'wait for the link':20} {'RSS MB':>7} {'USS MB':>7} {'CPU s':>6} {'modules':>8}")
    for page in pages:
        rows = {name: measure(BUILDS[page], code) for name, code in WAITS.items()}
        for name, r in rows.items():
            print(f"{page:12} {name:20} {r['rss']:7.1f} {r['uss']:7.1f} {r['cpu']:6.2f} {r['modules']:8d}")
        ours, peer = rows["workbench"], rows["peer (voila.utils)"]
        print(f"{page:12} {'peer / workbench':20} {peer['rss'] / ours['rss']:7.2f} {peer['uss'] / ours['uss']:7.2f} "
              f"{peer['cpu'] / ours['cpu']:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
