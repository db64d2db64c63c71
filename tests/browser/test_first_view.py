"""What a dashboard's first view costs a playtester's phone, on the wire.

A fresh browser (empty cache) opens the Changes, compare and diagnostics
pages of the session's server through a relay that counts every byte both
ways (:class:`wirecount.WireCounter`: HTTP with its headers, and the kernel
websocket as compressed on the wire), until the page's plot is drawn and its
network is idle; then the same browser opens Changes again.

The target is 1.2 MB; with the workbench's own front end in place of Voila's
(docs/dashboards.md, "What a page loads") a first view is about 0.65 MB, so
the budget here is today's figure with room: a page that starts fetching
something heavy again (Voila's front end, plotly's whole bundle, MathJax, a
font) fails it. A page also fails if it fetches any of Voila's front end (its
scripts, its styles, a lab extension), a font or nbconvert's notebook
stylesheet, or is sent a compressible answer uncompressed.

A first view also draws only the plots it shows: on the diagnostics page the
tabs not shown are drawn (their widgets and plots) only once chosen, and
their plots then with the kernel's numbers and title.
"""
from __future__ import annotations

import pytest

from browserkit import VIEWPORT
from wirecount import WireCounter

pytestmark = [pytest.mark.browser, pytest.mark.server]

#: a first view, HTTP and websocket, both ways (measured: 0.65 MB for Changes; 1.64 MB with Voila's front end)
FIRST_VIEW_BUDGET = 1.0e6
#: the same viewer opening a page again: the page itself, its kernel's model and the websocket
#: (measured: 14 kB HTTP + 22 kB websocket; 55 kB when the lab extensions' files were revalidated)
SECOND_VIEW_BUDGET = 50e3
#: each page and the element its plot is drawn in
PAGES = {"changes": ".wb-plot-dist", "compare": ".wb-plot-compare", "diagnostics": ".wb-plot-heatmap"}
#: what Voila's own front end fetches (its scripts and chunks, its styles, the lab extensions): no page needs it
VOILA_FRONT_END = ("/voila/static/", "/voila/labextensions/", "voila-style.js")
#: answers worth compressing (fonts and images are compressed already)
COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")


def _open(page, wire, url: str, plot: str) -> tuple[int, list]:
    """Bytes on the wire (both ways) and the answers of opening ``url`` until its plot is drawn and the network idle."""
    answers: list = []

    def recorder(answer) -> None:
        answers.append(answer)

    page.on("response", recorder)
    wire.reset()
    page.goto(url, timeout=180_000)
    page.wait_for_selector(f"{plot} .main-svg", timeout=180_000)
    page.wait_for_load_state("networkidle", timeout=60_000)
    page.remove_listener("response", recorder)
    return wire.http() + wire.ws(), answers


def test_first_view_stays_within_its_budget_and_loads_nothing_it_does_not_use(browser, server):
    problems = []
    with WireCounter(server.url) as wire:
        for name, plot in PAGES.items():
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            url = wire.url.rstrip("/") + f"/voila/render/{name}.ipynb"
            total, answers = _open(page, wire, url, plot)
            if total > FIRST_VIEW_BUDGET:
                problems.append(f"{name}: first view {total / 1e6:.2f} MB > {FIRST_VIEW_BUDGET / 1e6:.1f} MB")
            for answer in answers:
                if not answer.url.startswith("http"):
                    continue  # blob: and data: addresses are made in the page (the plot widget's module)
                if any(part in answer.url for part in VOILA_FRONT_END):
                    problems.append(f"{name}: fetched a file of Voila's front end: {answer.url}")
                kind = answer.request.resource_type
                headers = answer.headers
                if kind == "font":
                    problems.append(f"{name}: fetched a font the page does not need: {answer.url}")
                if answer.url.split("?")[0].endswith("/static/index.css"):
                    problems.append(f"{name}: fetched nbconvert's notebook stylesheet: {answer.url}")
                size = int(headers.get("content-length") or 0)
                if (answer.status == 200 and headers.get("content-type", "").startswith(COMPRESSIBLE)
                        and size > 1024 and headers.get("content-encoding") != "gzip"):
                    problems.append(f"{name}: {answer.url} ({size} B) was sent uncompressed")
            if name == "changes":  # the same viewer again: what the browser kept is not fetched
                server.wait_quiet(timeout=300)
                again, _ = _open(page, wire, url, plot)
                if again > SECOND_VIEW_BUDGET:
                    problems.append(f"changes opened again: {again / 1e3:.0f} kB > {SECOND_VIEW_BUDGET / 1e3:.0f} kB")
            context.close()
            server.wait_quiet(timeout=300)  # its kernel's replacement has started before the next page
    assert not problems, "\n".join(problems)


#: every plot of the page: whether its box has a width (it is shown) and whether plotly.js drew it
PLOTS_JS = """() => Array.from(document.querySelectorAll('.wb-diagnostics .wb-plot')).map((el, i) => {
  el.dataset.wbPlot = String(i);
  const gd = el.querySelector('.js-plotly-plot');
  return {i, shown: el.getBoundingClientRect().width > 0, drawn: !!(gd && gd._fullData && el.querySelector('.main-svg')),
          first: el.dataset.wbFirst === "1"};
})"""
#: marks the plots shown now, the first tab's (a tab not chosen yet holds none drawn, or none at all: its
#: widgets are made when it is first chosen)
MARK_JS = """() => document.querySelectorAll('.wb-diagnostics .wb-plot').forEach((el) => {
  if (el.getBoundingClientRect().width > 0) { el.dataset.wbFirst = "1"; } })"""
#: a drawn plot's title (the lines it was wrapped into joined by spaces) and traces
DRAWN_JS = """i => { const gd = document.querySelector(`[data-wb-plot="${i}"] .js-plotly-plot`);
  const title = gd._fullLayout.title.text.replace(/<br\\s*\\/?>/gi, ' ');
  return {title, traces: gd._fullData.map(t => [Array.from(t.x), Array.from(t.y)])}; }"""


def test_a_hidden_tab_s_plots_are_drawn_only_once_the_tab_is_shown(page, server):
    """A plot in a tab not shown costs the first view nothing: it is drawn when its tab is
    chosen, with the numbers and title of the kernel's figure."""
    from workbench.ui.diagnostics import DiagnosticsDashboard

    expected = DiagnosticsDashboard().p1_view.figure  # the page's defaults, as its kernel builds them
    page.goto(f"{server.url}voila/render/diagnostics.ipynb", timeout=240_000)
    for plot in (".wb-plot-heatmap", ".wb-plot-lines"):  # the first tab's plots
        page.wait_for_selector(f"{plot} .main-svg", timeout=180_000)
    page.wait_for_timeout(1500)  # time enough for any other plot to have been drawn
    plots = page.evaluate(PLOTS_JS)
    assert sum(p["shown"] for p in plots) == 2, plots  # the first tab's two plots; the other tabs' are not shown
    assert all(p["drawn"] for p in plots if p["shown"]), plots
    assert not any(p["drawn"] for p in plots if not p["shown"]), f"a hidden plot was drawn: {plots}"
    page.evaluate(MARK_JS)

    page.click(".wb-diagnostics .lm-TabBar-tab:has-text('Value of +1')")
    page.wait_for_function(f"() => ({PLOTS_JS})().some(p => !p.first && p.shown && p.drawn)", timeout=120_000)
    now = page.evaluate(PLOTS_JS)
    shown = [p["i"] for p in now if p["shown"]]
    assert len(shown) == 1, now  # the tab's one plot; the first tab's are hidden now
    assert not any(p["drawn"] for p in now if not p["shown"] and not p["first"]), f"a plot never shown was drawn: {now}"
    drawn = page.evaluate(DRAWN_JS, shown[0])
    assert drawn["title"] == expected["layout"]["title"]["text"]
    assert len(drawn["traces"]) == len(expected["data"])
    for (x, y), trace in zip(drawn["traces"], expected["data"]):
        assert x == list(trace["x"])
        assert y == pytest.approx(list(trace["y"]), abs=1e-12)
