"""Helpers shared by the browser tests (kept out of conftest so that test modules can import them)."""
from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from workbench.serve import PROJECT_ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOTS = PROJECT_ROOT / "output" / "screenshots"
VIEWPORT = {"width": 1360, "height": 1800}  # tall enough for a whole dashboard in a screenshot


def chromium_or_skip() -> str:
    """The browser's path; skip without it, but fail under CI."""
    if os.path.exists(CHROMIUM):
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing under CI: scripts/install-chromium.sh must install Debian's chromium")
    pytest.skip(f"{CHROMIUM} is missing (run scripts/install-chromium.sh as root); browser tests skipped")



def off_machine(urls: list[str]) -> list[str]:
    """The URLs whose host is not 127.0.0.1 (data: and blob: URLs stay in the page)."""
    out = []
    for u in urls:
        parts = urlsplit(u)
        if parts.scheme in ("data", "blob", "about"):
            continue
        if parts.hostname != "127.0.0.1":
            out.append(u)
    return out


def screenshot_path(name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"
