"""benchmarks/bench_dashboard.py names the page it was waiting for when a wait times out
(a run of the eight dashboards once stopped with Playwright's bare "Timeout exceeded")."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

# loaded from its file, as tests/test_benchmarks.py loads the benchmarks (they are scripts, not a package)
_spec = importlib.util.spec_from_file_location(
    "bench_dashboard", Path(__file__).resolve().parents[2] / "benchmarks" / "bench_dashboard.py")
bench_dashboard = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_dashboard)

pytestmark = pytest.mark.browser


def test_a_plot_that_never_draws_names_its_page_the_plot_and_the_console_errors(browser):
    context = browser.new_context()
    page = context.new_page()
    html = "data:text/html,<p>no plot here</p><script>console.error('the widgets could not load')</script>"
    try:
        with pytest.raises(bench_dashboard.WaitTimedOut) as err:
            bench_dashboard.open_drawn(page, html, ".wb-plot-heatmap", "first view of diagnostics.ipynb (round 2)",
                                       timeout_ms=300)
    finally:
        context.close()
    message = str(err.value)
    assert message.startswith("first view of diagnostics.ipynb (round 2): timed out waiting 0.3 s for ")
    assert ".wb-plot-heatmap .main-svg" in message
    assert "the widgets could not load" in message


def test_a_drawn_plot_is_waited_for_without_error(browser):
    context = browser.new_context()
    page = context.new_page()
    html = "data:text/html,<div class='wb-plot-dist'><svg class='main-svg' width='9' height='9'></svg></div>"
    try:
        bench_dashboard.open_drawn(page, html, ".wb-plot-dist", "first view of changes.ipynb", timeout_ms=30_000)
        assert page.locator(".wb-plot-dist .main-svg").count() == 1
    finally:
        context.close()
