"""Figures anywhere: kaleido's browser is found as choreographer finds it on
each OS, Debian's /usr/bin/chromium is only the last resort on Linux, and with
no browser at all the error says what to install."""
from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import pytest

from workbench import export
from workbench.systems import antares


@pytest.fixture
def bare_machine(tmp_path, monkeypatch):
    """A computer with no browser anywhere discovery looks: an empty PATH, no
    usual install folder, no browser fetched by kaleido_get_chrome, no
    /usr/bin/chromium fallback and no override variable."""
    import choreographer.browsers.chromium as choreo_chromium  # kaleido 1.x starts its browser through it

    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    for var in ("WORKBENCH_CHROMIUM", "BROWSER_PATH"):
        monkeypatch.delenv(var, raising=False)
    no_usual_folders = {name: dataclasses.replace(data, typical_paths=())
                        for name, data in choreo_chromium.chromium_based_browsers.items()}
    monkeypatch.setattr(choreo_chromium, "chromium_based_browsers", no_usual_folders)
    monkeypatch.setattr(choreo_chromium, "get_chrome_download_path", lambda *a, **k: None)
    monkeypatch.setattr(choreo_chromium, "get_old_chrome_download_path", lambda *a, **k: None)
    monkeypatch.setattr(export, "CHROMIUM", str(tmp_path / "no-debian-chromium"))
    return empty


def fake_browser(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\nexit 1\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def test_no_browser_says_what_to_install(bare_machine, tmp_path):
    with pytest.raises(export.ExportError) as info:
        export.browser_path()
    message = str(info.value)
    assert "found none" in message
    for hint in ("Chrome or Chromium", "plotly_get_chrome", "kaleido.get_chrome_sync()", "WORKBENCH_CHROMIUM"):
        assert hint in message
    # the same message reaches whoever saves a picture; HTML still works
    outcome = antares.shooting(acc=5, res=5, sv=1, shots=3)
    with pytest.raises(export.ExportError, match="plotly_get_chrome"):
        export.save_figure(outcome, tmp_path / "x.png")
    assert export.save_figure(outcome, tmp_path / "x.html").stat().st_size > 0


def test_a_browser_on_the_path_is_found_as_choreographer_finds_it(bare_machine):
    chrome = fake_browser(bare_machine, "google-chrome")
    assert export.browser_path() == str(chrome)


def test_debian_chromium_only_when_discovery_finds_nothing(bare_machine, tmp_path, monkeypatch):
    debian = fake_browser(tmp_path, "debian-chromium")
    monkeypatch.setattr(export, "CHROMIUM", str(debian))
    monkeypatch.setattr(export.sys, "platform", "linux")
    assert export.browser_path() == str(debian)
    chrome = fake_browser(bare_machine, "chromium")
    assert export.browser_path() == str(chrome)
    monkeypatch.setattr(export.sys, "platform", "darwin")  # never a Linux path on another OS
    os.remove(chrome)
    with pytest.raises(export.ExportError, match="found none"):
        export.browser_path()


def test_explicit_choice_wins_over_discovery(bare_machine, tmp_path, monkeypatch):
    fake_browser(bare_machine, "google-chrome")
    mine = fake_browser(tmp_path, "my-chrome")
    monkeypatch.setenv("BROWSER_PATH", str(mine))
    assert export.browser_path() == str(mine)
    other = fake_browser(tmp_path, "other-chrome")
    monkeypatch.setenv("WORKBENCH_CHROMIUM", str(other))
    assert export.browser_path() == str(other)
    monkeypatch.setenv("WORKBENCH_CHROMIUM", str(tmp_path / "nothing-here"))
    with pytest.raises(export.ExportError, match=r"WORKBENCH_CHROMIUM is '.*nothing-here', which is not an "
                                                 r"executable browser"):
        export.browser_path()
