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
seconds of the process, and the ratio peer / workbench. Run:
``.venv/bin/python benchmarks/bench_kernel.py`` (``--quick``: Changes only).
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


def main(argv: list[str]) -> int:
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
