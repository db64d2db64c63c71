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
* **make run** (printed first): the server as ``make run`` starts it on a laptop
  (loopback, every shipped dashboard and rule-file page, the default pool
  policy of ``serve.pool_plan``: one preheated kernel for the first page).
  Its idle memory once the pool is filled and the process tree quiet: the
  kernels, the server's and the kernels' RSS and USS, the total (target
  <= 700 MB, judged on RSS, the stricter: shared pages count in every
  process). Then a **second viewer**: viewer A opens changes.ipynb in a fresh
  context, viewer B the same URL 2 s later; each one's seconds from its own
  navigation start to its first plot drawn (timed in the page, to the 0.1 s
  the page polls at) and B/A,
  ``--second-runs`` times (3), each on a quiet server whose pool has refilled
  (target: median B/A <= 2);
* **sequential**: 100 open-render-close page views of one dashboard;
  kernels and memory before and 60 s after (they must return to the idle
  figures), and the server process's own memory after 0, 20, 50 and 100 views.

One Chromium serves every viewer, each in a browser context of its own. A
pool is at most ``MAX_POOL_SIZE`` (``--pool-size``, 32); a page whose plot is not drawn within
``RENDER_LIMIT_S`` counts as not rendered (column "rendered").

Targets on a 2-core machine (browsers included): every slider move redraws
within 2 s; 10 viewers render within 15 s, 20 within 30 s; kernels and memory
back to idle within 60 s of the pages closing.

Usage: ``.venv/bin/python benchmarks/bench_viewers.py [--sizes 5,10,20] [--sequential 100] [--settle 60]
[--make-run-only | --no-make-run] [--second-runs 3]``.
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
from workbench.serve import DASHBOARDS, HOST, MAX_POOL_SIZE, pool_plan

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


#: `make run` idle on loopback, the server and its kernels (RSS, MB)
MAKE_RUN_IDLE_TARGET_MB = 700.0
#: a second viewer of the same page, 2 s after the first, draws within this many times the first's time
SECOND_VIEWER_RATIO_TARGET = 2.0
SECOND_VIEWER_AFTER_S = 2.0
#: each viewer of the second-viewer runs must have drawn by then (counted as not drawn otherwise)
SECOND_VIEWER_LIMIT_S = 180.0


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


def tree_memory(pid: int) -> dict:
    """The server ``pid`` and its kernels now: ``kernels`` (its child processes) and
    MB of ``server_rss``, ``server_uss``, ``kernels_rss``, ``kernels_uss`` (every
    process under it; a kernel that ended meanwhile is left out)."""
    import psutil

    root = psutil.Process(pid)
    mem = root.memory_full_info()
    out = {"kernels": len(root.children(recursive=False)), "server_rss": mem.rss / 2**20,
           "server_uss": mem.uss / 2**20, "kernels_rss": 0.0, "kernels_uss": 0.0}
    for child in root.children(recursive=True):
        try:
            m = child.memory_full_info()
        except psutil.NoSuchProcess:
            continue
        out["kernels_rss"] += m.rss / 2**20
        out["kernels_uss"] += m.uss / 2**20
    return out


def make_run_report(idle: dict, runs: list[tuple[float, float]]) -> list[str]:
    """The lines of the `make run` block: its idle memory (:func:`tree_memory`) against
    :data:`MAKE_RUN_IDLE_TARGET_MB`, judged on RSS, and each second-viewer run
    ``(A s, B s)`` (NaN: not drawn in time) with B/A; the median ratio against
    :data:`SECOND_VIEWER_RATIO_TARGET` (a run where either did not draw counts as
    missed, and so does no run at all)."""
    rss = idle["server_rss"] + idle["kernels_rss"]
    uss = idle["server_uss"] + idle["kernels_uss"]
    lines = [f"  idle: {idle['kernels']} kernel(s); server {idle['server_rss']:.0f} MB RSS ({idle['server_uss']:.0f} USS), "
             f"kernels {idle['kernels_rss']:.0f} MB RSS ({idle['kernels_uss']:.0f} USS); total {rss:.0f} MB RSS "
             f"({uss:.0f} USS)   target RSS <= {MAKE_RUN_IDLE_TARGET_MB:.0f} MB  "
             f"{'OK' if rss <= MAKE_RUN_IDLE_TARGET_MB else 'MISSED'}"]
    ratios = []
    for i, (a, b) in enumerate(runs, 1):
        ratio = b / a if a > 0 else math.nan  # NaN stays NaN
        ratios.append(ratio if not math.isnan(ratio) else math.inf)
        lines.append(f"  second viewer, run {i}: A {a:.2f} s, B (2 s later) {b:.2f} s to the first plot; B/A {ratio:.2f}")
    median = statistics.median(ratios) if ratios else math.inf
    ok = median <= SECOND_VIEWER_RATIO_TARGET and all(not math.isinf(r) for r in ratios)
    shown = f"{median:.2f}" if not math.isinf(median) else "nan (not drawn)"
    lines.append(f"  second viewer: median B/A {shown} over {len(runs)} run(s)   target B <= "
                 f"{SECOND_VIEWER_RATIO_TARGET:.0f}x A  {'OK' if ok else 'MISSED'}")
    return lines


def _refilled(server: ServerProcess, fills: dict[str, int], idle_kernels: int, timeout: float) -> None:
    """Wait until each preheated pool was filled ``fills[name]`` times (each kernel a viewer
    took is replaced once), the server holds no more kernels than idle (the viewers' kernels
    shut down) and it is quiet."""
    deadline = time.monotonic() + timeout
    server.wait_pools(fills, timeout=timeout)
    while server.kernels() > idle_kernels:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the viewers' kernels still run after {timeout:.0f} s ({server.kernels()} kernels)")
        time.sleep(0.5)
    server.wait_quiet(timeout=max(deadline - time.monotonic(), 30))


def _drawn_after_navigation(page, timeout_s: float) -> float:
    """Seconds from the page's own navigation start to its first plot drawn (DRAWN_AT_JS), NaN if not in time."""
    try:
        page.wait_for_function("() => window.__wbDrawnAt !== undefined", timeout=max(timeout_s, 0.1) * 1000)
    except Exception:  # not drawn in time: counted, not timed, described
        try:
            print(f"  not drawn: {page.evaluate(UNRENDERED_JS)}", file=sys.stderr, flush=True)
        except Exception as err:
            print(f"  not drawn, and the page does not answer: {err}", file=sys.stderr, flush=True)
        return math.nan
    return page.evaluate("() => (window.__wbDrawnAt - performance.timeOrigin) / 1000")


def second_viewer(browser, server: ServerProcess, url: str) -> tuple[float, float]:
    """Viewer A opens ``url`` in a fresh context, viewer B the same 2 s later: (A s, B s) to the first plot."""
    contexts, pages = [], []
    try:
        t0 = time.perf_counter()
        for delay in (0.0, SECOND_VIEWER_AFTER_S):
            time.sleep(max(0.0, t0 + delay - time.perf_counter()))
            context = browser.new_context()
            contexts.append(context)
            context.add_init_script(DRAWN_AT_JS % json.dumps(f"{PLOT.get('changes', '.wb-plot-dist')} .main-svg"))
            page = context.new_page()
            page.set_default_timeout(SECOND_VIEWER_LIMIT_S * 1000)
            page.goto(url, wait_until="commit")
            pages.append(page)
        deadline = time.perf_counter() + SECOND_VIEWER_LIMIT_S
        a, b = (_drawn_after_navigation(page, deadline - time.perf_counter()) for page in pages)
        return a, b
    finally:
        for page in pages:
            page.close(run_before_unload=True)
        for context in contexts:
            context.close()


def make_run(browser, runs: int) -> tuple[dict, list[tuple[float, float]], list[int]]:
    """The server as `make run` starts it: its idle memory, then ``runs`` second-viewer runs.
    Also returns how many of each run's two viewers got a pool kernel (the server's log)."""
    plan = pool_plan(None, HOST, DASHBOARDS)
    preheated = {name: 1 for name, n in plan.items() if name != "default" and n > 0}
    with ServerProcess(port=0, pool_size=None, timeout=180) as server:  # every page and rule page, default pools
        server.wait_pools(preheated, timeout=600)
        server.wait_quiet(timeout=600)
        time.sleep(2)  # and stays quiet
        server.wait_quiet(timeout=600)
        idle = tree_memory(server.proc.pid)
        results, taken = [], []
        for _ in range(runs):
            fills = {name: server.pools_filled(name) for name in preheated}
            mark = len(server.log)
            results.append(second_viewer(browser, server, server.url + "voila/render/changes.ipynb"))
            took = {name: sum("Using pre-heated kernel" in ln and ln.endswith(f" for {name}") for ln in server.log[mark:])
                    for name in preheated}
            taken.append(sum(took.values()))
            # a pool of one is empty whenever a kernel is taken from it: each take is refilled, and logged, once
            _refilled(server, {name: fills[name] + took[name] for name in preheated}, idle["kernels"], timeout=600)
    return idle, results, taken


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
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--make-run-only", action="store_true", help="only the `make run` section (idle memory, second viewer)")
    only.add_argument("--no-make-run", action="store_true", help="leave the `make run` section out")
    parser.add_argument("--second-runs", type=int, default=3, help="second-viewer runs (median of their B/A)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            if not args.no_make_run:
                load = os.getloadavg()
                print(f"make run (loopback, every page and rule page, default pools): {os.cpu_count()} cores, "
                      f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at start", flush=True)
                idle, runs, taken = make_run(browser, args.second_runs)
                for line in make_run_report(idle, runs):
                    print(line)
                print("  viewers served from the pool (preheated or its pending replacement), per run: "
                      + ", ".join(f"{n} of 2" for n in taken), flush=True)
                if args.make_run_only:
                    return 0
                print()
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
