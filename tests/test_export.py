"""Figure export (the forum panel itself: tests/test_forum.py).

PNG and SVG are rendered by kaleido with Debian's Chromium (/usr/bin/chromium,
installed by `make browser`, which `make test` runs first); the files are
checked as images: PNG signature and IHDR width/height, SVG root width/height.
"""
from __future__ import annotations

import base64
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from html.parser import HTMLParser

import numpy as np
import pytest

from workbench import compare, export
from workbench.errors import InputError
from workbench.systems import changes
from workbench.ui.forum import data_link


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    return struct.unpack(">II", data[16:24])


def svg_size(text: str) -> tuple[float, float]:
    root = ET.fromstring(text)
    assert root.tag.endswith("svg")
    return float(root.get("width")), float(root.get("height"))


class Scripts(HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs, self.inline = [], 0

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            a = dict(attrs)
            if a.get("src"):
                self.srcs.append(a["src"])
            else:
                self.inline += 1
        if tag in ("link", "img", "iframe") and any(k in ("href", "src") and v and "//" in v for k, v in attrs):
            self.srcs.append(dict(attrs).get("href") or dict(attrs).get("src"))


@pytest.fixture(scope="module")
def outcome():
    return changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=10)


def test_png_file_is_a_png_of_the_requested_size(tmp_path, outcome):
    path = export.save_figure(outcome, tmp_path / "marine.png", width=640, height=360)
    assert path == tmp_path / "marine.png"
    assert png_size(path.read_bytes()) == (640, 360)


def test_svg_file_of_a_sweep_heatmap_has_the_requested_size(tmp_path):
    df = compare.sweep("antares", "shooting", acc=[3, 5, 7], res=[4, 5, 6], sv=1, shots=5, progress=False)
    fig = compare.heatmap(df, "acc", "res")
    path = export.save_figure(fig, tmp_path / "sub" / "heat.SVG", width=500, height=420)
    assert svg_size(path.read_text()) == (500, 420)


def test_html_is_standalone_and_offline(tmp_path, outcome):
    path = export.save_figure(outcome, tmp_path / "marine.html")
    text = path.read_text()
    parser = Scripts()
    parser.feed(text)
    assert parser.srcs == []  # no script, stylesheet or image fetched from anywhere
    assert parser.inline >= 2  # plotly.js itself and the figure
    assert "Plotly.newPlot" in text and len(text) > 1_000_000  # the library is inlined
    assert "40k Changes: shooting (exact)" in text  # the outcome's figure


def test_outcome_figure_bars_and_at_least_line(outcome):
    fig = export.outcome_figure(outcome)
    bars, line = fig.data
    assert np.allclose(bars.y, outcome.pmf)
    assert np.allclose(line.y, [outcome.at_least(k) for k in range(outcome.pmf.size)])
    assert list(bars.x) == list(range(outcome.pmf.size))


def test_unknown_suffix_and_bad_objects(tmp_path, outcome, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a short name: the message shortens a long path (a worker's tmp_path is long)
    with pytest.raises(InputError, match=r"^path: expected a file name ending in \.png, \.svg or \.html, "
                                         r"got 'marine\.jpg'"):
        export.save_figure(outcome, Path("marine.jpg"))
    with pytest.raises(InputError, match=r"^path: expected a file name ending in"):
        export.save_figure(outcome, tmp_path / "marine")
    with pytest.raises(InputError, match=r"^outcome_or_figure: expected a workbench Outcome or a plotly "
                                         r"Figure, got 'list'"):
        export.save_figure([1, 2], tmp_path / "x.html")
    with pytest.raises(InputError, match=r"^width: expected a whole number from 10 to 10000, got 0"):
        export.save_figure(outcome, tmp_path / "x.png", width=0)
    assert not list(tmp_path.iterdir())


def test_missing_browser_is_a_clear_error(tmp_path, outcome, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CHROMIUM", str(tmp_path / "no-chromium"))
    with pytest.raises(export.ExportError, match=r"PNG/SVG export: WORKBENCH_CHROMIUM is '.*no-chromium', "
                                                 r"which is not an executable browser"):
        export.save_figure(outcome, tmp_path / "x.png")
    # HTML does not need a browser
    assert export.save_figure(outcome, tmp_path / "x.html").stat().st_size > 0


def test_data_link_round_trips():
    link = data_link(b"\x89PNG...", "a b.png", "PNG")
    m = re.fullmatch(r'<a download="a b.png" href="data:image/png;base64,([^"]+)" .*>PNG</a>', link)
    assert m and base64.b64decode(m.group(1)) == b"\x89PNG..."
