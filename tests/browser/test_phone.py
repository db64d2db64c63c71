"""Every dashboard on a 390 px wide phone screen (Debian's Chromium, mobile viewport).

Nothing needs sideways scrolling (:func:`check_phone_page`, run on every
dashboard by test_serving.py, which opens every page once on a phone): neither the document nor any scrolling box
inside it is wider than the screen, every plot fits the screen and is wide
enough to read, every control label is shown whole, dropdowns are wide
enough to read their choice, and no tooltip reads "null". On a desktop
screen the long control labels of the forgotten close-combat and the changes
volley pages are shown whole too.
"""
from __future__ import annotations

import pytest

from browserkit import screenshot_path

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.xdist_group("full-server")]

PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True)
DASHBOARDS = ["changes", "forgotten", "gunfire", "antares", "compare", "diagnostics", "changes_turn"]

#: what overflows the screen: the document, boxes that scroll sideways, visible elements past the right edge
OVERFLOW_JS = """() => {
  const w = window.innerWidth;
  const name = e => e.tagName + '.' + (typeof e.className === 'string' ? e.className.split(' ').slice(-2).join('.') : '');
  const visible = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const scrollers = Array.from(document.querySelectorAll('*')).filter(e =>
      ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1)
      .map(e => name(e) + ' ' + e.scrollWidth + '>' + e.clientWidth);
  const past = Array.from(document.querySelectorAll('.wb-dashboard *, .wb-diagnostics *')).filter(e =>
      visible(e) && !e.closest('svg') && e.getBoundingClientRect().right > w + 1)
      .map(e => name(e) + ' right ' + Math.round(e.getBoundingClientRect().right));
  return {document: [document.scrollingElement.scrollWidth, w], scrollers, past: past.slice(0, 10)};
}"""

#: control labels whose text does not fit their box (cut off, or an ellipsis)
CUT_LABELS_JS = """() => Array.from(document.querySelectorAll(
    '.widget-label, .widget-label-basic span, .widget-toggle-button, .wb-link-label'))
  .filter(e => e.getBoundingClientRect().width > 0 && e.textContent.trim())
  .filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
  .map(e => e.textContent.trim())"""

#: dropdowns too narrow to read their choice
NARROW_SELECTS_JS = """() => Array.from(document.querySelectorAll('select'))
  .filter(s => s.getBoundingClientRect().width > 0 && s.getBoundingClientRect().width < 120)
  .map(s => (s.closest('.widget-dropdown') || s).innerText.slice(0, 40) + ' ' + Math.round(s.getBoundingClientRect().width))"""

PLOTS_JS = """() => Array.from(document.querySelectorAll('.wb-plot .main-svg:first-of-type'))
  .filter(s => s.getBoundingClientRect().width > 0).map(s => Math.round(s.getBoundingClientRect().width))"""


def wait_drawn(page) -> None:
    """Until a plot of the page has drawn its traces, and the plots have settled to the page's width."""
    page.wait_for_selector(".wb-plot .main-svg")
    page.wait_for_function("() => Array.from(document.querySelectorAll('.wb-plot')).some(el =>"
                           " (el.querySelector('.js-plotly-plot') || el)._fullData &&"
                           " (el.querySelector('.js-plotly-plot') || el)._fullData.length)")
    page.wait_for_timeout(800)


#: plot titles that do not fit their plot (cut at an edge), and modebars drawn over a plot
CUT_TITLES_JS = """() => Array.from(document.querySelectorAll('.wb-plot')).filter(p => p.getBoundingClientRect().width > 0)
  .flatMap(p => { const box = p.getBoundingClientRect();
    return Array.from(p.querySelectorAll('.gtitle')).filter(t => { const r = t.getBoundingClientRect();
      return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1); })
    .map(t => t.textContent); })"""


#: the pages whose first screen shows a headline over a distribution plot
FIRST_SCREEN = ("changes", "forgotten", "gunfire", "antares")


def assert_first_screen(page, name: str) -> None:
    """On a 390 x 844 phone, before any scrolling: the average removed, the
    chance of at least one and the whole first plot; no plot title is cut and
    no modebar sits over one."""
    assert page.evaluate("window.scrollY") == 0
    height = page.evaluate("window.innerHeight")
    headline = page.locator(".wb-headline").bounding_box()
    text = page.inner_text(".wb-headline")
    assert "On average" in text and "chance of at least one" in text, text
    assert headline and headline["y"] >= 0 and headline["y"] + headline["height"] <= height, \
        f"the headline is not on the first screen: {headline}"
    plot = page.locator(".wb-plot-dist .main-svg").first.bounding_box()
    assert plot and plot["y"] + plot["height"] <= height, f"the first plot is not whole on the first screen: {plot}"
    title = page.eval_on_selector(".wb-plot-dist .gtitle", "e => Array.from(e.querySelectorAll('tspan.line'))"
                                  ".map(t => t.textContent).join(' ') || e.textContent")
    assert title.replace("\n", " ").startswith("How many") and "on average" in title, title
    assert page.evaluate(CUT_TITLES_JS) == []
    assert page.query_selector_all(".wb-plot .modebar-btn") == []
    link = page.locator(".wb-link").bounding_box()
    assert link and link["height"] < 0.25 * height, f"the share link fills the screen: {link}"
    page.screenshot(path=str(screenshot_path(f"{name}-phone-first-screen")))


def assert_every_diagnostics_tab_fits(page) -> None:
    """Plots of a tab drawn while it was hidden fit the screen once the tab is chosen."""
    for tab in ("Value of +1", "Granularity", "Equivalence", "Sweep"):
        page.click(f".wb-diagnostics .lm-TabBar-tab:has-text('{tab}')")
        page.wait_for_function(
            "() => { const w = Array.from(document.querySelectorAll('.wb-plot .main-svg:first-of-type'))"
            ".map(s => s.getBoundingClientRect().width).filter(x => x > 0);"
            " return w.length > 0 && w.every(x => x <= window.innerWidth); }", timeout=120_000)
        overflow = page.evaluate(OVERFLOW_JS)
        assert overflow["document"][0] <= 390 and overflow["scrollers"] == [] and overflow["past"] == [], \
            (tab, overflow)
        assert all(250 <= p <= 390 for p in page.evaluate(PLOTS_JS)), tab


def check_phone_page(page, name: str) -> None:
    """A dashboard just opened and drawn on a phone (:data:`PHONE`): its first screen
    (:func:`assert_first_screen`, the pages of :data:`FIRST_SCREEN`), then the whole page for
    anything wider than the screen, and on the diagnostics page every tab
    (:func:`assert_every_diagnostics_tab_fits`). test_serving.py opens every page once on a
    phone, through the session server's host and prefix, and runs this on each of
    :data:`DASHBOARDS` (``test_a_phone_needs_no_sideways_scrolling_and_shows_the_headline_first``)."""
    if name in FIRST_SCREEN:
        assert_first_screen(page, name)
    width = page.evaluate("window.innerWidth")
    assert width == 390
    overflow = page.evaluate(OVERFLOW_JS)
    assert overflow["document"][0] <= width, overflow
    assert overflow["scrollers"] == [], overflow
    assert overflow["past"] == [], overflow
    plots = page.evaluate(PLOTS_JS)
    assert plots and all(250 <= p <= width for p in plots), plots
    assert page.evaluate(CUT_LABELS_JS) == []
    assert page.evaluate(NARROW_SELECTS_JS) == []
    assert page.query_selector_all('[title="null"]') == []
    page.screenshot(path=str(screenshot_path(f"{name}-phone")), full_page=True)
    if name == "diagnostics":
        assert_every_diagnostics_tab_fits(page)


@pytest.mark.parametrize("name, query", [("forgotten", "?mode=close_combat"), ("changes", "?mode=volley")])
def test_long_control_labels_are_shown_whole(page, server, name, query):
    page.goto(f"{server.url}voila/render/{name}.ipynb{query}")
    page.wait_for_selector(".wb-plot-dist .main-svg")
    mode = query.split("=", 1)[1]
    page.wait_for_selector(f".wb-controls-{mode}")
    assert page.evaluate(CUT_LABELS_JS) == []
    labels = page.eval_on_selector_all(f".wb-controls-{mode} .widget-label, .wb-controls-{mode} .widget-label-basic span",
                                       "els => els.map(e => e.textContent.trim()).filter(t => t)")
    assert len(labels) >= 20  # the check saw the mode's controls
    assert page.query_selector_all('[title="null"]') == []


def test_plots_follow_the_window_when_it_narrows(page, server):
    page.goto(f"{server.url}voila/render/changes.ipynb")
    page.wait_for_selector(".wb-plot-dist .main-svg")
    wide = page.evaluate(PLOTS_JS)
    assert wide and max(wide) > 500, wide  # two plots to a row on a desktop, each wider than a phone
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function("() => Array.from(document.querySelectorAll('.wb-plot .main-svg:first-of-type'))"
                           ".filter(s => s.getBoundingClientRect().width > 0)"
                           ".every(s => s.getBoundingClientRect().width <= window.innerWidth)", timeout=120_000)
    narrow = page.evaluate(PLOTS_JS)
    assert all(250 <= p <= 390 for p in narrow), narrow
