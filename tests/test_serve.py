"""workbench.serve without a browser: port choice, staging only the dashboards,
the landing page, the committed Voila config and the offline template.

The live server (routes, read-only checks, kernels) is tested in tests/browser/.
"""
from __future__ import annotations

import json
import re

import pytest

from workbench import serve
from workbench.errors import InputError

NAMES = ["changes.ipynb", "forgotten.ipynb", "gunfire.ipynb", "antares.ipynb", "compare.ipynb", "diagnostics.ipynb"]


def test_the_five_dashboards_are_served_by_name():
    assert [d.notebook for d in serve.DASHBOARDS] == NAMES
    assert [d.path for d in serve.DASHBOARDS] == [f"/voila/render/{n}" for n in NAMES]


def test_port_comes_from_argument_then_env_then_default(monkeypatch):
    monkeypatch.delenv("PORT", raising=False)
    assert serve.resolve_port(None) == 8866
    monkeypatch.setenv("PORT", "9123")
    assert serve.resolve_port(None) == 9123
    assert serve.resolve_port("0") == 0
    assert serve.resolve_port(4242) == 4242


@pytest.mark.parametrize("value", ["abc", "-1", "65536", "8866.5"])
def test_bad_port_in_env_is_an_input_error_naming_it(monkeypatch, value):
    monkeypatch.setenv("PORT", value)
    with pytest.raises(InputError, match=rf"PORT: expected an integer from 0 to 65535, got '?{re.escape(value)}'?"):
        serve.resolve_port(None)


def test_main_reports_a_bad_port_and_exits_2(monkeypatch, capsys):
    monkeypatch.setenv("PORT", "nope")
    assert serve.main([]) == 2
    assert "PORT: expected an integer from 0 to 65535" in capsys.readouterr().err


def _notebook(path, marker):
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": marker, "metadata": {},
                                            "outputs": [], "execution_count": None}],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_staging_copies_only_the_dashboards(tmp_path):
    src = tmp_path / "notebooks"
    src.mkdir()
    for n in NAMES + ["scratch.ipynb", "teach.ipynb"]:
        _notebook(src / n, n)
    (src / "notes.md").write_text("private")
    dest = tmp_path / "served"
    staged = serve.stage_notebooks(src, dest)
    assert sorted(p.name for p in dest.iterdir()) == sorted(NAMES)
    assert [p.name for p in staged] == NAMES
    assert (dest / "gunfire.ipynb").read_text() == (src / "gunfire.ipynb").read_text()


def test_staging_names_the_missing_notebooks(tmp_path):
    src = tmp_path / "notebooks"
    src.mkdir()
    _notebook(src / "changes.ipynb", "x")
    with pytest.raises(InputError, match=r"notebooks: expected a folder holding changes\.ipynb, .*got .*"
                                         r"\(missing: forgotten\.ipynb, gunfire\.ipynb, antares\.ipynb, compare\.ipynb, diagnostics\.ipynb\)"):
        serve.stage_notebooks(src, tmp_path / "served")


def test_landing_page_links_each_dashboard_and_nothing_external():
    page = serve.landing_page()
    hrefs = re.findall(r'href="([^"]+)"', page)
    assert [h for h in hrefs if h.startswith("/voila/")] == [d.path for d in serve.DASHBOARDS]
    assert not re.search(r'(src|href)="(https?:)?//', page)
    for d in serve.DASHBOARDS:
        assert d.title in page


def test_dashboard_url_carries_stat_level_names():
    d = serve.DASHBOARDS[0]
    assert serve.dashboard_url("http://127.0.0.1:8866/", d, bs=4, ap=6, shots=10) == \
        "http://127.0.0.1:8866/voila/render/changes.ipynb?bs=4&ap=6&shots=10"


def test_committed_voila_config_is_read_only_and_preheated():
    conf = json.loads((serve.VOILA_DIR / "voila.json").read_text())
    vc = conf["VoilaConfiguration"]
    assert vc["strip_sources"] is True and vc["show_tracebacks"] is False
    assert vc["preheat_kernel"] is True and vc["default_pool_size"] == 1
    assert vc["allow_template_override"] == "NO" and vc["allow_theme_override"] == "NO"
    assert vc["file_allowlist"] == [] and vc["template"] == "workbench"
    assert conf["Voila"]["ip"] == "127.0.0.1"
    # a taken kernel's replacement starts after a typical first render (~2.3 s), not during it
    assert conf["VoilaKernelManager"]["fill_delay"] >= 2.5


def test_template_drops_every_cdn_link_of_the_stock_lab_template():
    """Our template removes the stock `lab` template's CDN stylesheet links by
    exact string; each removed string must still occur in the installed stock
    template, and together they must cover every https link of its CSS block.
    (tests/browser checks end to end that no request leaves 127.0.0.1.)"""
    from voila.paths import collect_template_paths

    ours = (serve.TEMPLATE_ROOT / "voila" / "templates" / "workbench" / "index.html.j2").read_text()
    assert "{%- extends 'lab/index.html.j2' -%}" in ours
    removed = re.findall(r"replace\('([^']+)', ''\)", ours)
    assert len(removed) == 2
    stock_path = next(p for p in (f"{d}/lab/index.html.j2" for d in collect_template_paths(["voila"], "lab"))
                      if __import__("os").path.exists(p))
    stock = open(stock_path).read()
    css_block = stock[stock.index("{%- block notebook_css -%}"):stock.index("{%- endblock notebook_css -%}")]
    links = re.findall(r'<link [^>]*href="https://[^"]*"[^>]*/>', css_block)
    assert links, "the stock lab template no longer links a CDN: simplify our template"
    assert sorted(links) == sorted(removed)
    for r in removed:
        assert r in css_block
