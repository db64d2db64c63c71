"""Many viewers at once, and many views in a row (a benchmark, not a timed test).

Real Chromium (``/usr/bin/chromium``, Playwright), servers started by
``ServerProcess`` (tests/serverkit.py) on free loopback ports, each idle at the
start (pools filled, process tree quiet):

* **concurrent**: N viewers (N = 5, 10, 20 by default), each in a browser
  context of its own, open one dashboard (changes) and, separately, all seven
  built-in dashboards (round robin) at once. Reported: time to the first
  rendered plot (median, worst), the share whose plot redraws within 2 s of a
  slider move (timed in the page from the key press to the plot's data
  changing), kernels and server memory (server process + kernels, RSS) idle,
  at the peak, and 60 s after every page closed, and the CPU seconds spent
  from the first page opened to the last plot drawn by the browser and by the
  server with its kernels (both share this machine's cores). The pool is
  sized to the viewers: N preheated kernels for one dashboard, ceil(N/7) per
  dashboard for all seven;
* **sequential** (first): 100 open-render-close page views of one dashboard;
  kernels and memory before and 60 s after (they must return to the idle
  figures), and the server process's own memory after 0, 20, 50 and 100 views.

One Chromium serves every viewer, each in a browser context of its own. A
pool is at most ``MAX_POOL_SIZE`` (``--pool-size``, 32); a page whose plot is not drawn within
``RENDER_LIMIT_S`` counts as not rendered (column "rendered").

Targets on a 2-core machine (browsers included): every slider move redraws
within 2 s; 10 viewers render within 15 s, 20 within 30 s; kernels and memory
back to idle within 60 s of the pages closing.

Usage: ``.venv/bin/python benchmarks/bench_viewers.py [--sizes 5,10,20] [--sequential 100] [--settle 60]``.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the tests' server harness
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's workbench

from serverkit import ServerProcess
from workbench.serve import DASHBOARDS, MAX_POOL_SIZE

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dashboard import PLOT, WATCH_JS, plotly_el  # the same plots and slider-to-redraw watch

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
SLIDER = {"changes": "bs", "forgotten": "shoot", "gunfire": "bs", "antares": "acc", "compare": "accuracy"}
REDRAW_LIMIT_S = 2.0
RENDER_LIMIT_S = 240.0  # a page without its plot by then counts as not rendered

# What a page that never drew holds: its front end started (its widget manager), outputs in the HTML,
# outputs rendered, widgets.
UNRENDERED_JS = """() => ({app: typeof window.workbenchWidgets, scripts: document.querySelectorAll(
  'script[type="application/vnd.voila.cell-output+json"]').length, outputs: document.querySelectorAll(
  '.jp-OutputArea-output').length, widgets: document.querySelectorAll('.jupyter-widgets').length,
  text: document.body ? document.body.innerText.slice(0, 160) : null})"""

# In the page, from its start: the moment the plot is first drawn (ms since the epoch, this
# machine's clock). Asking each page in turn from here would time the asking: a page that drew
# while an earlier one was still being waited for would be counted late.
DRAWN_AT_JS = """(() => {
  const sel = %s;
  const timer = setInterval(() => {
    if (document.querySelector(sel)) { window.__wbDrawnAt = Date.now(); clearInterval(timer); }
  }, 100);
})();"""


def browser_cpu() -> float:
    """CPU seconds used so far by Chromium and all its processes (renderers, GPU, network)."""
    import psutil

    total = 0.0
    for p in psutil.process_iter(["cmdline"]):
        try:
            cmd = p.info["cmdline"] or []
            if cmd and os.path.basename(cmd[0]) == "chromium":  # /usr/bin/chromium starts /usr/lib/chromium/chromium
                t = p.cpu_times()
                total += t.user + t.system
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return total


def snapshot(server: ServerProcess, own: bool = False) -> tuple[int, float]:
    """(kernels, MB of server + kernels), or of the server process alone when ``own``."""
    srv, kernels = server.memory_mb()
    return server.kernels(), srv if own else srv + kernels


def concurrent(browser, n: int, names: list[str], settle: float) -> dict:
    chosen = tuple(d for d in DASHBOARDS if d.notebook[:-6] in names)
    pool = min(MAX_POOL_SIZE, n if len(chosen) == 1 else math.ceil(n / len(chosen)))
    with ServerProcess(port=0, dashboards=chosen, pool_size=pool, timeout=180, rule_pages=False) as server:
        server.wait_pools(timeout=900)
        server.wait_quiet(timeout=900)
        idle = snapshot(server)
        cpu0 = (browser_cpu(), server.cpu_seconds())
        contexts, pages, firsts = [], [], []
        t0, epoch0 = time.perf_counter(), time.time()
        for i in range(n):
            name = chosen[i % len(chosen)].notebook[:-6]
            context = browser.new_context()
            context.add_init_script(DRAWN_AT_JS % json.dumps(f"{PLOT.get(name, '.wb-plot-dist')} .main-svg"))
            page = context.new_page()
            page.set_default_timeout(600_000)
            page.goto(server.url + f"voila/render/{name}.ipynb", wait_until="commit")
            contexts.append(context)
            pages.append((name, page))
        rendered = []
        for name, page in pages:
            left = t0 + RENDER_LIMIT_S - time.perf_counter()
            try:
                page.wait_for_selector(f"{PLOT.get(name, '.wb-plot-dist')} .main-svg", timeout=max(left, 0.1) * 1000)
            except Exception:  # not rendered in time: counted, not timed, described
                print(f"  not rendered ({name}): {page.evaluate(UNRENDERED_JS)}", file=sys.stderr, flush=True)
                continue
            firsts.append(page.evaluate("window.__wbDrawnAt") / 1000 - epoch0)  # when the page drew it
            rendered.append((name, page))
        cpu = (browser_cpu() - cpu0[0], server.cpu_seconds() - cpu0[1])
        peak = snapshot(server)
        movable = [(name, page) for name, page in rendered if name in SLIDER]
        for name, page in movable:
            page.evaluate(WATCH_JS, plotly_el(PLOT.get(name, ".wb-plot-dist")))
        for name, page in movable:
            page.locator(f".wb-slider-{SLIDER[name]} .noUi-handle").focus()
            page.keyboard.press("ArrowRight")
        time.sleep(REDRAW_LIMIT_S + 1)
        in_time = 0
        for _name, page in movable:
            t = page.evaluate("window.__wb")
            if t and t["t1"] is not None and (t["t1"] - t["t0"]) / 1000 <= REDRAW_LIMIT_S:
                in_time += 1
        peak = max(peak, snapshot(server), key=lambda s: s[1])
        for _name, page in pages:
            page.close(run_before_unload=True)
        for context in contexts:
            context.close()
        time.sleep(settle)
        after = snapshot(server)
    return {"n": n, "dashboards": len(chosen), "pool": pool, "rendered": len(firsts),
            "median": statistics.median(firsts) if firsts else math.nan,
            "worst": max(firsts) if firsts else math.nan, "redrawn": (in_time, len(movable)), "idle": idle, "peak": peak, "after": after, "cpu": cpu}


def sequential(browser, views: int, settle: float) -> dict:
    chosen = tuple(d for d in DASHBOARDS if d.notebook == "changes.ipynb")
    with ServerProcess(port=0, dashboards=chosen, pool_size=1, timeout=180, rule_pages=False) as server:
        server.wait_pools(timeout=600)
        server.wait_quiet(timeout=600)
        before = snapshot(server)
        t0 = time.perf_counter()
        marks = {}
        for i in range(views):
            if i in (0, 20, 50):
                marks[i] = snapshot(server, own=True)
            context = browser.new_context()
            page = context.new_page()
            page.set_default_timeout(600_000)
            page.goto(server.url + "voila/render/changes.ipynb")
            page.wait_for_selector(".wb-plot-dist .main-svg")
            page.close(run_before_unload=True)
            context.close()
        took = time.perf_counter() - t0
        marks[views] = snapshot(server, own=True)
        time.sleep(settle)
        after = snapshot(server)
    return {"views": views, "seconds": took, "before": before, "after": after, "marks": marks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="5,10,20", help="numbers of concurrent viewers")
    parser.add_argument("--sequential", type=int, default=100, help="open-render-close views in a row")
    parser.add_argument("--settle", type=float, default=60.0, help="seconds after the pages close")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            if args.sequential:
                print(f"sequential: {args.sequential} open-render-close views of one dashboard (pool 1)", flush=True)
                s = sequential(browser, args.sequential, args.settle)
                print(f"sequential: {s['views']} open-render-close views in {s['seconds']:.0f} s; "
                      f"kernels {s['before'][0]} before, {s['after'][0]} {args.settle:.0f} s after; "
                      f"memory {s['before'][1]:.0f} MB before, {s['after'][1]:.0f} MB after")
                print("server process alone (MB) after " + ", ".join(f"{v} views: {m[1]:.0f}" for v, m in sorted(s["marks"].items())))
            print()
            print("concurrent viewers (targets: all redraw <= 2 s; 10 render <= 15 s, 20 <= 30 s; back to idle in 60 s)")
            print(f"{'N':>3} {'dash':>4} {'pool':>4} {'rendered':>8} {'first plot median/worst s':>26} {'redrawn<=2s':>11} "
                  f"{'kernels idle/peak/after':>24} {'MB idle/peak/after':>22} {'CPU s browser/server':>21}")
            for names in (["changes"], [d.notebook[:-6] for d in DASHBOARDS]):  # one, then all seven
                for n in sizes:
                    r = concurrent(browser, n, names, args.settle)
                    print(f"{r['n']:>3} {r['dashboards']:>4} {r['pool']:>4} {r['rendered']:>4}/{r['n']:<3} {r['median']:>13.1f} / {r['worst']:<10.1f} "
                          f"{r['redrawn'][0]:>5}/{r['redrawn'][1]:<5} "
                          f"{r['idle'][0]:>8}/{r['peak'][0]}/{r['after'][0]:<10} "
                          f"{r['idle'][1]:>8.0f}/{r['peak'][1]:.0f}/{r['after'][1]:.0f}{'':>8}{r['cpu'][0]:.0f} / {r['cpu'][1]:.0f}", flush=True)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
