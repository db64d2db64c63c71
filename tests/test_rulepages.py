"""The rule files' dashboard notebooks, written into the server's staged folder."""
from __future__ import annotations

import stat

from workbench import serve, systems


def stage_rule_pages(*args):
    """The code under test, imported when a test runs: it imports nbformat (and its
    JSON-schema checker), seconds of every collection otherwise."""
    from workbench.rulepages import stage_rule_pages as stage

    return stage(*args)


def test_one_read_only_notebook_per_rule_file_calling_the_package(tmp_path):
    import nbformat

    pages = stage_rule_pages(tmp_path, tuple(d.notebook for d in serve.DASHBOARDS))
    rule_keys = [k for k in systems.keys() if k not in systems.builtins()]
    assert "kill6" in rule_keys
    assert [d.notebook for d in pages.dashboards] == [f"{k}.ipynb" for k in rule_keys]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{k}.ipynb" for k in rule_keys)
    kill6 = next(d for d in pages.dashboards if d.notebook == "kill6.ipynb")
    assert kill6.path == "/voila/render/kill6.ipynb" and kill6.title == systems.get("kill6").name
    path = tmp_path / "kill6.ipynb"
    assert not path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    # the page calls the package with the key and the file's name only: no folder, no file access
    assert "rule_dashboard('kill6', 'kill6.toml')" in code and "open(" not in code and "/" not in code


def test_a_broken_file_and_a_taken_key_are_listed_not_served(tmp_path, monkeypatch):
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "oops.toml").write_text('[system]\nkey = "oops"\nname = "Oops"\ndie = 1\n', encoding="utf-8")
    (folder / "compare_rules.toml").write_text(
        (systems.get("kill6").path.read_text(encoding="utf-8")).replace('key = "kill6"', 'key = "compare"'),
        encoding="utf-8")
    monkeypatch.setenv(systems.RULES_ENV, str(folder))
    staged = tmp_path / "staged"
    staged.mkdir()
    pages = stage_rule_pages(staged, tuple(d.notebook for d in serve.DASHBOARDS))
    names = dict(pages.broken)
    assert "oops.toml" in names and "compare_rules.toml" in names
    assert str(folder) not in names["oops.toml"]  # the page names the file, not where it lives
    # in a designer's words: the line, the key, what it should be, what the file has
    assert names["oops.toml"] == "Line 4, at system.die: it should be a whole number from 2 to 100, but the file has 1."
    assert "another page" in names["compare_rules.toml"]
    assert not (staged / "oops.ipynb").exists() and not (staged / "compare.ipynb").exists()
    assert (staged / "kill6.ipynb").exists()  # the others are still staged
    items = pages.landing_items()
    assert items.count("<li") == 2 and "href" not in items and "oops.toml" in items
    page = serve.landing_page(serve.DASHBOARDS + pages.dashboards, items)
    assert 'href="voila/render/kill6.ipynb"' in page and "oops.toml" in page


def _break(path, text: str) -> None:
    """Rewrite a rule file as a designer's editor would, and make its change visible at once."""
    import os

    path.write_text(text, encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a new stamp even within one tick


def test_a_file_that_breaks_while_serving_is_listed_broken_and_its_page_shows_the_error(tmp_path, monkeypatch):
    from workbench.rulepages import BROKEN_PAGE, BrokenRulePage, rule_dashboard

    folder = tmp_path / "rules"
    folder.mkdir()
    good = systems.get("kill6").path.read_text(encoding="utf-8").replace('key = "kill6"', 'key = "mine"')
    rule = folder / "mine.toml"
    _break(rule, good)
    monkeypatch.setenv(systems.RULES_ENV, str(folder))
    staged = tmp_path / "staged"
    staged.mkdir()
    pages = stage_rule_pages(staged, tuple(d.notebook for d in serve.DASHBOARDS))
    assert "mine.ipynb" in [d.notebook for d in pages.dashboards] and "mine.toml" not in dict(pages.now().broken)
    assert not isinstance(rule_dashboard("mine", "mine.toml"), BrokenRulePage)

    lines = good.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith("die ="))
    lines[at] = "die = 1"
    _break(rule, "\n".join(lines) + "\n")
    now = pages.now()
    assert "mine.ipynb" not in [d.notebook for d in now.dashboards]
    message = dict(now.broken)["mine.toml"]
    assert message.startswith(f"Line {at + 1}, at system.die: it should be") and message.endswith("the file has 1.")
    items = now.landing_items()
    assert "mine.toml" in items and 'href="voila/render/mine.ipynb"' not in items
    page = rule_dashboard("mine", "mine.toml")
    assert isinstance(page, BrokenRulePage)
    shown = page.html()
    assert BROKEN_PAGE in shown and "mine.toml" in shown and f"Line {at + 1}, at system.die" in shown
    assert str(folder) not in shown and "Traceback" not in shown

    _break(rule, good)  # fixed: served again
    assert "mine.ipynb" in [d.notebook for d in pages.now().dashboards]
    assert "mine.toml" not in dict(pages.now().broken)
