"""A rule file that breaks while the server runs (a live server, plain HTTP).

The designer edits a served rule file and makes a mistake: the landing page
lists it as broken with the mistake in plain words (line, field, what it
should be, what the file has), and its page shows the same instead of a
dashboard or Voila's "error when executing cell"; fixed, it is served again.
"""
from __future__ import annotations

import html
import http.client
import os
from urllib.parse import urlsplit

import pytest

from workbench import systems
from serverkit import ServerProcess

pytestmark = [pytest.mark.server, pytest.mark.slow]


def get(url: str) -> tuple[int, str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)
    try:
        conn.request("GET", parts.path)
        resp = conn.getresponse()
        return resp.status, html.unescape(resp.read().decode("utf-8", "replace"))
    finally:
        conn.close()


def write(path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_a_rule_file_broken_while_serving_is_listed_broken_and_shows_its_error(tmp_path):
    # imported here: workbench.rulepages imports nbformat, whose schema checks take seconds to
    # import, and every pytest-xdist worker collects this module
    from workbench.rulepages import BROKEN_PAGE

    folder = tmp_path / "rules"
    folder.mkdir()
    good = systems.get("kill6").path.read_text(encoding="utf-8").replace('key = "kill6"', 'key = "mine"')
    rule = folder / "mine.toml"
    write(rule, good)
    with ServerProcess(port=0, pool_size=0, env={systems.RULES_ENV: str(folder)}, timeout=120) as srv:
        status, landing = get(srv.url)
        assert status == 200 and 'href="voila/render/mine.ipynb"' in landing

        lines = good.splitlines()
        at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("die ="))
        lines[at] = "die = 1"
        write(rule, "\n".join(lines) + "\n")
        words = f"Line {at + 1}, at system.die: it should be"

        status, landing = get(srv.url)
        assert status == 200 and 'href="voila/render/mine.ipynb"' not in landing
        assert "mine.toml" in landing and words in landing and "has a mistake" in landing
        status, page = get(srv.url + "voila/render/mine.ipynb")
        assert status == 200
        assert BROKEN_PAGE in page and words in page and "the file has 1." in page, page[-3000:]
        assert "error when executing" not in page.lower() and "Traceback" not in page and str(folder) not in page

        write(rule, good)  # fixed: linked and served again
        status, landing = get(srv.url)
        assert 'href="voila/render/mine.ipynb"' in landing and "has a mistake" not in landing
