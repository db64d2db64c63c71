"""A link's values reach the dashboard on any address the server listens on.

A preheated kernel reads its viewer's link over the server's link channel
(``voila/query/<kernel id>``), dialling the server itself: on a host other
than 127.0.0.1 (a LAN address; 127.0.0.2 stands for one, being loopback on
Linux), under a prefix, with and without an access token, the page must show
the link's values, never silently its starting ones. One live server per
combination (only the Changes page, one preheated kernel), in Debian's Chromium.
"""
from __future__ import annotations

import pytest

from workbench.serve import DASHBOARDS
from workbench.ui.query import LINK_UNREAD
from serverkit import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.server, pytest.mark.slow]

ONE = tuple(d for d in DASHBOARDS if d.notebook == "changes.ipynb")
TOKEN = "lan-Playtest-42c9e1"


@pytest.fixture(scope="module", params=[(None, TOKEN), (None, None), ("/dice/", TOKEN), ("/dice/", None)],
                ids=["token", "plain", "prefix-token", "prefix-plain"])
def lan_server(request):
    base_url, token = request.param
    with ServerProcess(port=0, host="127.0.0.2", base_url=base_url, token=token, dashboards=ONE,
                       pool_size=1, timeout=120) as srv:
        srv.wait_pools(timeout=300)  # the first viewer takes the preheated kernel
        yield srv


def readout(page, name: str) -> str:
    return page.inner_text(f".wb-slider-{name} .widget-readout").strip()


def test_a_link_with_values_restores_them(browser, lan_server):
    assert lan_server.url.startswith("http://127.0.0.2:")
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        token = f"&token={lan_server.token}" if lan_server.token else ""
        page.goto(lan_server.url + f"voila/render/changes.ipynb?bs=8&shots=6{token}")
        page.wait_for_selector(".wb-slider-bs .widget-readout")
        page.wait_for_selector(".wb-link .wb-link-href")
        assert (readout(page, "bs"), readout(page, "shots")) == ("8", "6"), \
            page.inner_text("body")[:600] + "\n" + "\n".join(lan_server.log[-20:])
        assert LINK_UNREAD not in page.inner_text("body")
        if lan_server.token:
            assert lan_server.token not in page.url
    finally:
        context.close()
