"""The compare page's table at a laptop's width: its headers wrap between words, never inside one.

The table and the dashboards' stylesheet are drawn by Chromium as the page
draws them (no server: the table's HTML is the dashboard's own), at 1366 px
wide, inside the dashboard's box.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

#: every word of every header and cell: how many lines its letters fall on
_LINES_PER_WORD = r"""
() => {
  const out = [];
  for (const cell of document.querySelectorAll(".wb-compare th, .wb-compare td")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /[^\s\-–]+/g;  // a line may break after a hyphen, as in any text
      let m;
      while ((m = re.exec(node.data)) !== null) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        out.push([m[0], tops.size]);
      }
    }
  }
  return out;
}
"""


@pytest.mark.parametrize("width", [1366, 1024])
def test_compare_headers_wrap_between_words(browser, width):
    from workbench.ui import CompareDashboard
    from workbench.ui.looks import STYLE

    dash = CompareDashboard()
    page = browser.new_page(viewport={"width": width, "height": 900})
    try:
        page.set_content(f"<html><head><style>{STYLE}</style></head><body style='margin:0'>"
                         f"<div class='wb-dashboard' style='width:{width - 40}px;margin:0 20px;font:13px sans-serif'>"
                         f"{dash.table.value}</div></body></html>")
        words = page.evaluate(_LINES_PER_WORD)
        assert {"accuracy", "shots", "removed"} <= {w for w, _ in words}
        broken = [w for w, lines in words if lines > 1]
        assert not broken, broken
        # and the table never makes the page scroll sideways: a wide one scrolls in its own box
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        page.close()
