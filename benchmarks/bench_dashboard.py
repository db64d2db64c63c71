"""Dashboard latency in the real browser (a benchmark, not a timed test).

Starts ``python -m workbench.serve`` on a free port of 127.0.0.1 and drives
Debian's Chromium (``/usr/bin/chromium``) through Playwright, as a viewer would:

* **first render**: a fresh browser context (empty cache) opens each dashboard
  alone, once its preheated kernel has pre-executed the notebook and the
  server is idle (under 10 % of a core for a second: a viewer opening a link
  to a running server); the time from navigation to the distribution plot
  drawn (its SVG present) - target <= 3 s;
* **slider change to plot redrawn**: on the changes dashboard, an arrow key
  on the BS slider's handle, timed in the page from the key press to the
  moment the plot's data differ (polled every animation frame); the median
  over ``--changes`` presses (default 30, alternating right and left) -
  target <= 150 ms;
* **what a first view costs**: each dashboard opened in a fresh context,
  the bytes it fetched over HTTP (as sent, compressed) and over its
  websocket (both ways) until the plot is drawn and the page settles, and
  the CPU time of every Chromium process for it (the median of ``--views``
  views), beside the CPU time of two empty pages opened the same way in the
  same run (each the median of three after a warm-up): a blank page whose
  content is set without a request, and the server's own "not found" page,
  reached by a navigation as a dashboard is - targets <= 1.2 MB and <= 2x
  the empty page (judged against the blank one);
* **what a slider move costs**: ten moves of the BS slider on the changes
  dashboard, each waited for until its plot is redrawn: the CPU time of the
  viewer's own kernel (the kernel that worked hardest in that time) and of
  the server, and the websocket bytes both ways, per move - targets <= 8 ms
  of kernel CPU and <= 4 kB.

Usage: ``.venv/bin/python benchmarks/bench_dashboard.py [--changes N] [--rounds R] [--views V] [--breakdown]``
(``--breakdown``: each first view by file and message kind, and the answers worth compressing that
were sent uncompressed; a move by message kind and direction).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the tests' server harness
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the checkout's workbench

from serverkit import ServerProcess
from wirecount import WireCounter
from workbench.serve import DASHBOARDS

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
FIRST_RENDER_TARGET_S = 3.0
FIRST_VIEW_BYTES_TARGET = 1.2e6
FIRST_VIEW_CPU_RATIO_TARGET = 2.0
MOVE_KERNEL_MS_TARGET = 8.0
MOVE_BYTES_TARGET = 4096
MOVES = 10
#: answers worth compressing (fonts and images are compressed already)
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")
REDRAW_TARGET_MS = 150.0
#: per dashboard, what its first view fetched, by kind (filled by first_views, printed with --breakdown)
BREAKDOWNS: dict[str, str] = {}
#: per dashboard, (HTTP and websocket bytes on the wire) of opening it again in the same browser
AGAIN: dict[str, tuple[int, int]] = {}
PLOT = {"compare": ".wb-plot-compare", "diagnostics": ".wb-plot-heatmap", "changes_turn": ".wb-plot-lost-active",
        "before_after": ".wb-diff-heatmap"}

# In the page: remember the key-press time, then poll each frame until the plot's data change.
WATCH_JS = """
(sel) => {
  const sig = () => { const el = document.querySelector(sel);
    return el ? JSON.stringify((el._fullData || []).map(t => [Array.from(t.x || []), Array.from(t.y || [])])) : ""; };
  window.__wb = {t0: null, t1: null};
  document.addEventListener('keydown', () => {
    const before = sig(); window.__wb = {t0: performance.now(), t1: null};
    const poll = () => { if (sig() !== before) { window.__wb.t1 = performance.now(); } else { requestAnimationFrame(poll); } };
    requestAnimationFrame(poll);
  }, true);
}
"""


def plotly_el(plot: str) -> str:
    return f"{plot}.js-plotly-plot, {plot} .js-plotly-plot"


class WaitTimedOut(RuntimeError):
    """A page that did not load or draw in time, named with what was waited for."""


def open_drawn(page, url: str, plot: str, what: str, timeout_ms: int = 120_000) -> None:
    """Navigate to ``url`` and wait until its plot ``plot`` has drawn (its ``.main-svg``).
    A timeout names the page (``what``), the address and the plot waited for, and the
    page's own last console errors: a run of eight pages once failed with only
    Playwright's "Timeout exceeded" and no hint of which one it was."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text[:200]) if msg.type == "error" else None)
    page.on("pageerror", lambda err: errors.append(str(err)[:200]))
    step = f"loading {url}"
    try:
        page.goto(url, timeout=300_000)
        step = f"waiting {timeout_ms / 1000:g} s for {plot} .main-svg"
        page.wait_for_selector(f"{plot} .main-svg", timeout=timeout_ms)
    except PlaywrightTimeout as err:
        said = "; ".join(errors[-3:]) or "none"
        raise WaitTimedOut(f"{what}: timed out {step} (its console errors: {said})") from err


def first_renders(browser, server, rounds: int) -> dict[str, list[float]]:
    """Each dashboard opened alone: after the previous one's replacement kernel has
    started and pre-executed (the server is quiet), so renders do not compete with it."""
    times: dict[str, list[float]] = {d.notebook: [] for d in DASHBOARDS}
    filled = {d.notebook: 1 for d in DASHBOARDS}
    for _ in range(rounds):
        for d in DASHBOARDS:
            server.wait_pools(filled, timeout=300)
            server.wait_quiet()
            context = browser.new_context()
            page = context.new_page()
            plot = PLOT.get(d.notebook[:-6], ".wb-plot-dist")
            t0 = time.perf_counter()
            open_drawn(page, server.url.rstrip("/") + d.path, plot, f"first render of {d.notebook}")
            times[d.notebook].append(time.perf_counter() - t0)
            context.close()
            filled[d.notebook] += 1  # its pool refills after use
    return times


def redraws(browser, server, changes: int) -> list[float]:
    context = browser.new_context()
    page = context.new_page()
    open_drawn(page, server.url.rstrip("/") + "/voila/render/changes.ipynb?bs=6", ".wb-plot-dist",
               "changes.ipynb (slider redraws)")
    page.evaluate(WATCH_JS, ".wb-plot-dist.js-plotly-plot, .wb-plot-dist .js-plotly-plot")
    handle = page.locator(".wb-slider-bs .noUi-handle")
    out = []
    for i in range(changes):
        handle.focus()
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        page.wait_for_function("() => window.__wb.t1 !== null", timeout=30_000)
        out.append(page.evaluate("() => window.__wb.t1 - window.__wb.t0"))
        page.wait_for_timeout(100)  # let the kernel settle, as a person between two presses
    context.close()
    return out


def _chromium_procs():
    """Every Chromium process started under this benchmark (Playwright's driver's children)."""
    import psutil

    me = psutil.Process()
    return [p for p in me.children(recursive=True) if "chrom" in p.name().lower()]


def _cpu(procs) -> float:
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except Exception:
            pass
    return total


def _chromium_cpu() -> float:
    return _cpu(_chromium_procs())


def _payload_len(payload) -> int:
    return len(payload.encode("utf-8")) if isinstance(payload, str) else len(payload)


class Traffic:
    """What a page sends and receives: HTTP bodies as they came over the wire
    (Content-Length or the body's own size) and websocket frames both ways,
    each also counted by kind (:func:`http_kind`, :func:`ws_kind`)."""

    def __init__(self, page):
        self.http = 0
        self.ws_in = 0
        self.ws_out = 0
        self.frames = 0
        self.kinds: dict[tuple[str, str], list[int]] = {}  # (where, kind) -> [count, bytes]
        self.plain: list[str] = []  # compressible answers sent without Content-Encoding
        page.on("requestfinished", self._finished)
        page.on("websocket", self._socket)

    def _count(self, where: str, kind: str, size: int) -> None:
        entry = self.kinds.setdefault((where, kind), [0, 0])
        entry[0] += 1
        entry[1] += size

    def _finished(self, request):
        try:
            sizes = request.sizes()
            size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        except Exception:
            return
        self.http += size
        self._count("http", http_kind(request.url), size)
        try:
            headers = request.response().headers
        except Exception:
            return
        if (request.url.startswith("http") and headers.get("content-type", "").startswith(COMPRESSIBLE) and "content-encoding" not in headers
                and sizes["responseBodySize"] > 1024):
            self.plain.append(f"{http_kind(request.url)} ({sizes['responseBodySize'] / 1e3:.1f} kB)")

    def _socket(self, ws):
        def got(payload):
            size = _payload_len(payload)
            self.ws_in += size
            self.frames += 1
            self._count("ws in", ws_kind(payload), size)

        def sent(payload):
            size = _payload_len(payload)
            self.ws_out += size
            self.frames += 1
            self._count("ws out", ws_kind(payload), size)

        ws.on("framereceived", got)
        ws.on("framesent", sent)

    def reset(self) -> None:
        self.http = self.ws_in = self.ws_out = self.frames = 0
        self.kinds = {}
        self.plain = []

    @property
    def ws(self) -> int:
        return self.ws_in + self.ws_out

    def breakdown(self, per: int = 1, indent: str = "    ") -> str:
        """One line per kind, largest first (counts and bytes divided by ``per``)."""
        rows = sorted(self.kinds.items(), key=lambda kv: -kv[1][1])
        text = "\n".join(f"{indent}{where:6s} {kind:58s} {n / per:5.1f} x  {size / per / 1e3:8.2f} kB"
                         for (where, kind), (n, size) in rows)
        return text + f"\n{indent}sent uncompressed: {', '.join(self.plain) or 'nothing worth compressing'}"


def http_kind(url: str) -> str:
    """A request's file, without the page's address and query (version hashes kept short)."""
    from urllib.parse import urlsplit

    path = urlsplit(url).path
    for marker in ("/voila/render/", "/voila/static/", "/voila/labextensions/", "/voila/templates/", "/api/"):
        if marker in path:
            return marker.strip("/").split("/")[-1] + ": " + path.split(marker, 1)[1][-52:]
    return path[-58:]


def ws_kind(payload) -> str:
    """A kernel message's type (a comm message's method and the state keys it carries)."""
    import json

    try:
        from workbench.kernelchannel import parse_v1

        if isinstance(payload, str):
            msg = json.loads(payload)
            channel, header, content = msg.get("channel", "?"), msg["header"], msg.get("content", {})
        else:
            channel, parts = parse_v1(payload, max_parts=1 << 16)
            header, content = json.loads(parts[0]), json.loads(parts[3])
    except Exception:
        return "undecoded"
    kind = f"{channel}.{header.get('msg_type')}"
    if header.get("msg_type") == "status":
        kind += " " + str(content.get("execution_state"))
    data = content.get("data") if isinstance(content, dict) else None
    if isinstance(data, dict):
        kind += " " + str(data.get("method", ""))
        state = data.get("state")
        if isinstance(state, dict):
            kind += " " + ",".join(sorted(state))[:40]
    return kind


#: the empty pages a first view is set against, each opened this often after one warm-up (median taken)
EMPTY_RUNS = 3
#: an address of the server that answers a small "not found" page (its own page, no dashboard)
MISSING_PAGE = "voila/render/no-such-page.ipynb"
#: each empty page's CPU-s per run after the warm-up (printed beside the medians)
EMPTY_RUNS_SEEN: dict[str, list[float]] = {}


def _empty_cpu(browser, open_page) -> float:
    """Chromium's CPU-s for a fresh context that opens a page with ``open_page(page)``
    and lets it settle as long as a first view does."""
    context = browser.new_context()
    page = context.new_page()
    before = _chromium_cpu()
    open_page(page)
    page.wait_for_timeout(1500)
    cpu = _chromium_cpu() - before
    context.close()
    return cpu


def empty_pages(browser, server) -> dict[str, float]:
    """Chromium's CPU-s of the two empty pages, median of :data:`EMPTY_RUNS` after a warm-up:
    ``"blank"``, content set in a fresh page (no navigation, no network), and ``"navigated"``,
    a fresh page that navigates to the server's "not found" page (what any page of the server
    costs before its own content: a renderer for the site, the network, a small HTML page)."""
    openers = {
        "blank": lambda page: page.set_content("<!doctype html><title>empty</title><p>empty</p>"),
        "navigated": lambda page: page.goto(server.url.rstrip("/") + "/" + MISSING_PAGE, timeout=120_000),
    }
    out = {}
    for name, opener in openers.items():
        server.wait_quiet()
        runs = [_empty_cpu(browser, opener) for _ in range(EMPTY_RUNS + 1)][1:]  # the first warms up
        out[name] = statistics.median(runs)
        EMPTY_RUNS_SEEN[name] = runs
    return out


def first_views(browser, server, wire, views: int = 1) -> tuple[dict[str, float], dict[str, tuple[int, int, float, int]]]:
    """The empty pages' Chromium CPU (:func:`empty_pages`), then per dashboard (HTTP bytes,
    websocket payload bytes, Chromium CPU-s, websocket bytes on the wire): each dashboard
    opened ``views`` times (rounds over every dashboard), the CPU the median (each run in
    :data:`VIEW_RUNS`), the bytes of the first round."""
    out = {}
    blank = empty_pages(browser, server)
    filled = {d.notebook: 1 for d in DASHBOARDS}
    for round_ in range(views):
        for d in DASHBOARDS:
            server.wait_pools(filled, timeout=300)
            server.wait_quiet()
            context = browser.new_context()
            page = context.new_page()
            traffic = Traffic(page)
            before = _chromium_cpu()
            plot = PLOT.get(d.notebook[:-6], ".wb-plot-dist")
            wire.reset()
            open_drawn(page, wire.url.rstrip("/") + d.path, plot, f"first view of {d.notebook} (round {round_ + 1})")
            page.wait_for_timeout(1500)  # the page settles (every plot drawn, the websocket quiet)
            VIEW_RUNS.setdefault(d.notebook, []).append(_chromium_cpu() - before)
            if not round_:
                out[d.notebook] = (traffic.http, traffic.ws, 0.0, wire.ws())
                BREAKDOWNS[d.notebook] = traffic.breakdown()
            filled[d.notebook] += 1
            if d.notebook == "changes.ipynb" and not round_:  # the same viewer opens the link again: what its browser kept
                server.wait_pools(filled, timeout=300)
                server.wait_quiet()
                traffic.reset()
                wire.reset()
                open_drawn(page, wire.url.rstrip("/") + d.path, plot, f"{d.notebook} opened again")
                page.wait_for_timeout(1500)
                AGAIN[d.notebook] = (wire.http(), wire.ws())  # on the wire: a cached file is not counted
                filled[d.notebook] += 1
            context.close()
    return blank, {name: (http, ws, statistics.median(VIEW_RUNS[name]), wire_ws)
                   for name, (http, ws, _, wire_ws) in out.items()}


#: per dashboard, Chromium's CPU-s of each of its first views
VIEW_RUNS: dict[str, list[float]] = {}


def _kernels(server):
    import psutil

    try:
        return {p.pid: p for p in psutil.Process(server.proc.pid).children(recursive=True)}
    except psutil.NoSuchProcess:
        return {}


def moves(browser, server, wire, n: int = MOVES) -> dict[str, float]:
    """Kernel and server CPU-ms and websocket bytes per slider move (the viewer's own kernel)."""
    import psutil

    server.wait_quiet()
    context = browser.new_context()
    page = context.new_page()
    traffic = Traffic(page)
    open_drawn(page, wire.url.rstrip("/") + "/voila/render/changes.ipynb?bs=6", ".wb-plot-dist",
               "changes.ipynb (slider moves' cost)")
    page.evaluate(WATCH_JS, plotly_el(".wb-plot-dist"))
    server.wait_quiet()
    page.wait_for_timeout(500)
    traffic.reset()  # from here on: the moves only
    wire.reset()
    kernels = _kernels(server)
    k_before = {pid: _cpu([p]) for pid, p in kernels.items()}
    root = psutil.Process(server.proc.pid)
    s_before = _cpu([root])
    handle = page.locator(".wb-slider-bs .noUi-handle")
    for i in range(n):
        handle.focus()
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        page.wait_for_function("() => window.__wb.t1 !== null", timeout=30_000)
        page.wait_for_timeout(300)  # every message of the move has arrived
    kernel = max((_cpu([p]) - k_before[pid] for pid, p in kernels.items()), default=0.0)
    server_cpu = _cpu([root]) - s_before
    result = {"kernel_ms": 1000 * kernel / n, "server_ms": 1000 * server_cpu / n,
              "ws_bytes": traffic.ws / n, "ws_out": traffic.ws_out / n, "frames": traffic.frames / n,
              "breakdown": traffic.breakdown(per=n), "wire": wire.ws() / n,
              "wire_out": wire.counts[("ws", "out")] / n}
    context.close()
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--changes", type=int, default=30, help="slider changes to time (>= 20)")
    ap.add_argument("--rounds", type=int, default=1, help="first renders per dashboard")
    ap.add_argument("--costs-only", action="store_true", help="only the first-view and slider-move costs")
    ap.add_argument("--views", type=int, default=1,
                    help="first views of each dashboard (its CPU the median; a single view varies by 0.2-0.3 CPU-s)")
    ap.add_argument("--breakdown", action="store_true",
                    help="print what makes up each first view (per file) and a move (per message kind)")
    ap.add_argument("--notebooks", type=Path, default=None, help="serve these dashboard notebooks instead of notebooks/")
    ap.add_argument("--only", default="", help="comma-separated dashboards to serve and measure (e.g. changes)")
    args = ap.parse_args(argv)
    global DASHBOARDS
    if args.only:
        wanted = {n.strip().removesuffix(".ipynb") for n in args.only.split(",")}
        DASHBOARDS = tuple(d for d in DASHBOARDS if d.notebook.removesuffix(".ipynb") in wanted)
        if not any(d.notebook == "changes.ipynb" for d in DASHBOARDS):
            ap.error("--only: the slider moves are measured on changes: include it")
    if args.changes < 20 and not args.costs_only:
        ap.error("--changes: at least 20")
    if not os.path.exists(CHROMIUM):
        print(f"{CHROMIUM} is missing: run scripts/install-chromium.sh as root", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()[0]
    with ServerProcess(port=0, timeout=120, notebooks=args.notebooks, dashboards=DASHBOARDS,
                                                rule_pages=not args.only) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        wire = WireCounter(server.url)
        try:
            renders = {} if args.costs_only else first_renders(browser, server, args.rounds)
            times = [] if args.costs_only else redraws(browser, server, args.changes)
            blank, views = first_views(browser, server, wire, args.views)
            move = moves(browser, server, wire)
        except WaitTimedOut as err:
            print(f"dashboard benchmark stopped: {err}", file=sys.stderr)
            return 1
        finally:
            wire.close()
            browser.close()

    print(f"dashboard benchmark: Chromium {CHROMIUM}, {os.cpu_count()} cores, load average {load:.1f} at start")
    if not args.costs_only:
        _print_renders(renders, times)
    _print_costs(blank, views, move)
    if args.breakdown:
        for name, text in BREAKDOWNS.items():
            print(f"  first view of {name}, by file and message kind:\n{text}")
        print(f"  one move, by message kind (both directions):\n{move['breakdown']}")
    return 0


def _runs(name: str) -> str:
    runs = VIEW_RUNS.get(name, [])
    return f" (median of {' '.join(f'{c:.2f}' for c in runs)})" if len(runs) > 1 else ""


def _ratio(cpu: float, empty: float) -> str:
    return f"{cpu / empty:.1f}x" if empty else "nan"


def _print_renders(renders, times) -> None:
    print("first render (navigation -> distribution plot drawn; fresh context, preheated kernel):")
    all_renders = []
    for name, ts in renders.items():
        all_renders += ts
        print(f"  {name:18s} " + "  ".join(f"{t:5.2f} s" for t in ts))
    med_render = statistics.median(all_renders)
    print(f"  median {med_render:.2f} s, worst {max(all_renders):.2f} s   target <= {FIRST_RENDER_TARGET_S:.1f} s  "
          f"{'OK' if max(all_renders) <= FIRST_RENDER_TARGET_S else 'MISSED'}")
    med = statistics.median(times)
    q = statistics.quantiles(times, n=10)
    print(f"slider change -> plot redrawn ({len(times)} changes of BS on changes.ipynb, keyboard):")
    print(f"  median {med:.0f} ms, p10 {q[0]:.0f} ms, p90 {q[-1]:.0f} ms, worst {max(times):.0f} ms   "
          f"target median <= {REDRAW_TARGET_MS:.0f} ms  {'OK' if med <= REDRAW_TARGET_MS else 'MISSED'}")


def _print_costs(empty, views, move) -> None:
    blank, navigated = empty["blank"], empty["navigated"]
    runs = {name: " ".join(f"{c:.2f}" for c in cpus) for name, cpus in EMPTY_RUNS_SEEN.items()}
    print(f"first view (fresh context, until drawn and settled); empty pages, Chromium CPU-s (median of "
          f"{EMPTY_RUNS} after a warm-up):")
    print(f"  blank (set_content) {blank:.2f} ({runs.get('blank', '')}); navigated (the server's not-found page) "
          f"{navigated:.2f} ({runs.get('navigated', '')})")
    print("  (before the workbench's own plot widget: 3.08 MB HTTP + 163 kB websocket, 4.25 CPU-s vs 0.91 empty;")
    print("   before plotly.js was a static file: changes 1.57 MB HTTP + 551.5 kB websocket, diagnostics 1.49 + 742.6;")
    print("   before MathJax, Font Awesome's font and nbconvert's stylesheet were left out: changes 1.96 MB HTTP +")
    print("   22.5 kB websocket, compare 1.96 + 18.6, diagnostics 1.99 + 31.1; changes again 32.4 kB + 22.4 kB;")
    print("   before the workbench's own front end replaced Voila's: changes 1.64 MB, Chromium 3.19 CPU-s vs 0.70 empty,")
    print("   4.6x)")
    print("  (websocket: the bytes on the wire, compressed; in brackets the messages as decoded;")
    print("   the CPU target is judged against the blank page, the stricter of the two)")
    for name, (http, ws_payload, cpu, ws) in views.items():
        total = http + ws
        ok = total <= FIRST_VIEW_BYTES_TARGET and cpu <= FIRST_VIEW_CPU_RATIO_TARGET * blank
        print(f"  {name:18s} {http / 1e6:5.2f} MB HTTP + {ws / 1e3:6.1f} kB websocket ({ws_payload / 1e3:.1f} kB)"
              f" = {total / 1e6:5.2f} MB; "
              f"Chromium {cpu:5.2f} CPU-s{_runs(name)} ({_ratio(cpu, blank)} blank, {_ratio(cpu, navigated)} navigated)   "
              f"target <= {FIRST_VIEW_BYTES_TARGET / 1e6:.1f} MB and <= {FIRST_VIEW_CPU_RATIO_TARGET:.0f}x  "
              f"{'OK' if ok else 'MISSED'}")
    for name, (http, ws) in AGAIN.items():
        print(f"  {name:18s} opened again in the same browser: {http / 1e3:6.1f} kB HTTP + {ws / 1e3:5.1f} kB websocket"
              " (what the browser kept is not fetched again)")
    ok = move["kernel_ms"] <= MOVE_KERNEL_MS_TARGET and move["wire"] <= MOVE_BYTES_TARGET
    print(f"slider move ({MOVES} moves of BS on changes.ipynb, the viewer's own kernel):")
    print("  (before: 25-30 ms kernel CPU, 25 ms server CPU, 57 kB and 35 frames over the websocket;")
    print("   before the websocket was compressed: 8.53 kB, 360 B sent by the browser, in 9 frames)")
    print(f"  kernel {move['kernel_ms']:.1f} ms CPU, server {move['server_ms']:.1f} ms CPU, websocket "
          f"{move['wire'] / 1e3:.2f} kB on the wire ({move['wire_out']:.0f} B sent by the browser; messages as decoded "
          f"{move['ws_bytes'] / 1e3:.2f} kB, {move['ws_out']:.0f} B sent) in {move['frames']:.1f} frames"
          f"   target <= {MOVE_KERNEL_MS_TARGET:.0f} ms and <= {MOVE_BYTES_TARGET / 1e3:.0f} kB  {'OK' if ok else 'MISSED'}")


if __name__ == "__main__":
    sys.exit(main())
