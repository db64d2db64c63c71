"""The before-and-after dashboard without a browser: what it draws is compare.diff of its two
variants, a slider move redraws the heatmaps in place, the link carries both variants and the
grid, a bad link is a message on a working page and never reads a file, and its forum post is
stock phpBB with the library's numbers."""
from __future__ import annotations

import re
import urllib.parse

import numpy as np
import pytest

from workbench import compare, systems, variants
from workbench.variants import Variant
from workbench.ui.before_after import DEFAULT_A, DEFAULT_B, BeforeAfterDashboard

from test_teach import STOCK_PHPBB, bbcode_tags_balanced


@pytest.fixture(scope="module")
def page():
    return BeforeAfterDashboard()


def heatmap_z(dash, i=0):
    return np.asarray(dash.fig.data[i].z, dtype=float)


def test_draws_the_diff_of_its_two_variants(page):
    want = compare.diff(DEFAULT_A, DEFAULT_B, grid=dict(bs=range(1, 13), t=range(-2, 5)),
                        matchup=page.matchup())
    assert page.matchup()["shots"] == 10 and page.matchup()["sv"] == 3  # the seed matchup's
    z = heatmap_z(page)
    assert z.shape == (7, 12)
    np.testing.assert_allclose(z.T.ravel(), want["mean_diff"], atol=1e-12)
    np.testing.assert_allclose(heatmap_z(page, 1).T.ravel(), 100 * want["p_at_least_1_diff"], atol=1e-9)
    assert page.verdict.value.startswith("<p><b>heavy weapon in a SHOT action: flat 4 helps most at BS 9+")
    assert "Space Marine (Heavy Bolter) at Space Marine" in page.movers.value
    assert "_" not in re.sub(r"<[^>]+>", "", page.verdict.value + page.movers.value + page.names.value)


def test_a_slider_move_redraws_the_heatmaps_in_place(page):
    before, base, n = heatmap_z(page), page.fig.base, page.recomputes
    page.sliders["shots"].value = 5
    assert page.recomputes == n + 1
    # the figure on show stays; only the cells' new values (and titles) travel as a delta
    assert page.fig.base == base and page.fig.delta.get("data")
    want = compare.diff(DEFAULT_A, DEFAULT_B, grid=dict(bs=range(1, 13), t=range(-2, 5)), matchup=page.matchup())
    np.testing.assert_allclose(heatmap_z(page).T.ravel(), want["mean_diff"], atol=1e-12)
    assert not np.allclose(heatmap_z(page), before)
    assert "at 5 shots" in page.verdict.value
    assert "shots=5" in page.link.query


def test_the_link_carries_both_variants_and_the_grid():
    qs = "?a=kill6&b=kill6:stationary=true&x=sv:2..7&y=bs:2..6&shots=8"
    dash = BeforeAfterDashboard(query=qs)
    assert dash.error.value == ""
    assert dash.grid() == {"sv": [2, 3, 4, 5, 6, 7], "bs": [2, 3, 4, 5, 6]}
    want = variants.diff("kill6", "kill6:stationary=true", grid=dash.grid(), matchup=dash.matchup())
    assert dash.matchup()["shots"] == 8
    np.testing.assert_allclose(heatmap_z(dash).T.ravel(), want["mean_diff"], atol=1e-12)
    again = BeforeAfterDashboard(query=dash.link.query)
    assert again.link.query == dash.link.query
    assert (again.a, again.b, again.grid(), again.matchup()) == (dash.a, dash.b, dash.grid(), dash.matchup())
    values = dict(urllib.parse.parse_qsl(dash.link.query.lstrip("?")))
    assert (values["a"], values["b"], values["x"], values["y"]) == ("kill6", "kill6:stationary=true", "sv:2..7",
                                                                    "bs:2..6")


def test_a_bad_link_is_a_message_and_never_opens_a_file(tmp_path):
    secret = tmp_path / "secret.toml"
    secret.write_text("not = [a rule file")
    dash = BeforeAfterDashboard(query=f"?a={secret}&b=changes:heavy_shot=flat_9&x=zz&shots=400")
    text = dash.error.value
    assert "a page reads no file from a link" in text and "not = [" not in text
    assert "heavy_shot: expected one of bs_plus_4, flat_4" in text
    assert "x: expected one of bs," in text and "shots: expected a whole number from 1 to 40, got 400" in text
    assert (dash.a, dash.b) == (Variant.parse(DEFAULT_A), Variant.parse(DEFAULT_B))  # the page keeps working
    assert dash.frame is not None and dash.verdict.value


def test_the_forum_post_is_stock_phpbb_with_the_librarys_numbers(page):
    out = page.post(images=False)
    bb, md = out["bbcode"], out["markdown"]
    assert set(bbcode_tags_balanced(bb)) <= STOCK_PHPBB
    a, b = page.a, page.b
    assert f"Before: {a.name}." in bb and f"After: {b.name}." in bb
    assert "_" not in re.sub(r"\[/?\w+\]", "", bb)
    # each mover's numbers, by single calls of the library
    shoot = systems.get("changes").shooting
    rows = re.findall(r"^\| (Space Marine[^|]*) \| ([\d.]+) \| ([\d.]+) \| ([+\-][\d.]+) \|", md, re.M)
    assert rows
    for matchup, before, after, change in rows:
        assert matchup.startswith("Space Marine (Heavy Bolter) at Space Marine")
        kw = dict(bs=5, s=4, ap=4, t=2, sv=3, inv=0, wounds=1, weapon="heavy", shots=3, models=5)
        if "gone to ground" in matchup:
            kw["go_to_ground"] = True
        kw["action"] = "shot"
        o_a, o_b = shoot(**kw), shoot(**kw, heavy_shot="flat_4")
        assert (float(before), float(after), float(change)) == (round(o_a.mean, 2), round(o_b.mean, 2),
                                                                 round(o_b.mean - o_a.mean, 2))
    code = re.findall(r"\[code\](.*?)\[/code\]", bb, re.S)
    assert len(code) == 1 and "Space Marine (Heavy Bolter)" in code[0]


def test_the_forum_picture_is_a_png_of_both_heatmaps(page):
    png = variants.figure_png(page.frame, width=800, height=400)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == 800 and int.from_bytes(png[20:24], "big") == 400
