"""What a slider move costs the page's websocket, and what a refused combination looks like.

* On a slider move the browser sends the kernel the control's new value and
  nothing else: the plots never write back (no plot layout or trace
  messages), and the kernel answers with the new numbers only (no echo of the
  value, no plot styles, no plotly.js), all in one message (the page's
  feed, which every plot, the headline, the Numbers table and the link
  read their numbers from). On the wire (counted by a relay
  between the browser and the server: the websocket is compressed, and
  Playwright sees its messages decompressed) the move is a few hundred
  bytes, under the 4 kB a move may cost.
* A combination the rules refuse (Changes: an aimed shot at an EVADING
  target) leaves no result that looks current: the headline, the plots and
  the numbers are greyed, the message is in a playtester's words, and the
  address bar keeps the values of the result on show, not the refused ones.
"""
from __future__ import annotations

import json

import pytest

from browserkit import SLIDER_BS, drawn, move_slider, read_v1, redrawn
from wirecount import WireCounter

pytestmark = [pytest.mark.browser, pytest.mark.server]


def _record(page):
    """Every websocket message the page sends and receives, decoded."""
    sent, got = [], []

    def on_socket(ws):
        ws.on("framesent", lambda payload: sent.append(payload))
        ws.on("framereceived", lambda payload: got.append(payload))
    page.on("websocket", on_socket)
    return sent, got


def _decoded(frames) -> list[dict]:
    out = []
    for f in frames:
        msg = read_v1(f) if isinstance(f, (bytes, bytearray)) else json.loads(f)
        out.append(msg)
    return out


#: what one slider move may cost on the wire, both directions (the target for a phone)
MOVE_WIRE_BYTES = 4096


def test_a_slider_move_sends_only_the_new_value(page, server):
    sent, got = _record(page)
    with WireCounter(server.url) as wire:
        page.goto(f"{wire.url}voila/render/changes.ipynb", timeout=240_000)
        before = drawn(page, 120_000)
        page.wait_for_timeout(1500)  # the first view's own messages are over
        sent.clear()
        got.clear()
        wire.reset()
        move_slider(page, SLIDER_BS)
        redrawn(page, before, 30_000)
        page.wait_for_timeout(1000)
        on_wire = wire.ws()
    messages = _decoded(sent)
    assert messages, "the move sent nothing"
    for msg in messages:
        assert msg.get("msg_type") == "comm_msg", msg.get("msg_type")
        data = msg["content"]["data"]
        assert data["method"] == "update" and set(data["state"]) == {"value"}, data
    assert len(messages) == 1, [m["content"]["data"] for m in messages]
    replies = _decoded(got)
    states = [m["content"]["data"] for m in replies if m.get("msg_type") == "comm_msg"]
    assert not [s for s in states if s.get("method") == "echo_update"]  # the value is not echoed back
    keys = {k for s in states for k in s.get("state", {})}
    assert not keys & {"base", "_esm", "code", "library", "config"}, keys  # numbers only, no figure or library
    assert keys == {"frame"}, keys  # the page's numbers (plots, headline, table, link) in its feed's one message
    assert len([s for s in states if s.get("method") == "update"]) == 1, states
    decoded = sum(len(f) for f in got) + sum(len(f) for f in sent)
    assert decoded < 12_000, decoded  # the plots, the numbers, the link: not the 57 kB of a plotly FigureWidget
    assert 0 < on_wire <= MOVE_WIRE_BYTES, (on_wire, decoded)  # compressed, what a phone's connection carries
    assert on_wire < decoded / 2, (on_wire, decoded)


def test_a_drag_sends_one_value_when_the_handle_is_let_go(page, server):
    """Dragging a slider across several steps sends nothing while it moves and
    one value when it is let go (the kernel computes one result, not one per step)."""
    sent, _ = _record(page)
    page.goto(f"{server.url}voila/render/changes.ipynb", timeout=240_000)
    before = drawn(page, 120_000)
    page.wait_for_timeout(1500)
    readout = page.inner_text(f"{SLIDER_BS} .widget-readout").strip()
    box = page.locator(f"{SLIDER_BS} .noUi-handle").bounding_box()
    track = page.locator(f"{SLIDER_BS} .noUi-target, {SLIDER_BS} .noUi-base").first.bounding_box()
    sent.clear()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    for i in range(1, 7):  # towards the right end of the track, in steps, as a finger would
        page.mouse.move(box["x"] + (track["x"] + track["width"] - box["x"]) * i / 6, box["y"] + box["height"] / 2)
        page.wait_for_timeout(150)
    assert _decoded(sent) == [], "values were sent while the handle was still held"
    page.mouse.up()
    redrawn(page, before, 30_000)
    page.wait_for_timeout(1000)
    assert page.inner_text(f"{SLIDER_BS} .widget-readout").strip() != readout
    messages = _decoded(sent)
    assert len(messages) == 1, [m.get("content", {}).get("data") for m in messages]
    assert set(messages[0]["content"]["data"]["state"]) == {"value"}


def test_a_forbidden_combination_leaves_no_result_that_looks_current(page, server):
    page.goto(f"{server.url}voila/render/changes.ipynb", timeout=240_000)
    drawn(page, 120_000)
    page.wait_for_selector(".wb-headline b")
    page.click(".wb-toggle-evading input")  # the action stays "aimed": refused at an EVADING target
    page.wait_for_selector(".wb-error-message")
    message = page.inner_text(".wb-error-message")
    assert "EVADING" in message and "=" not in message and "True" not in message, message
    for sel in (".wb-headline", ".wb-row-first", ".wb-plot-dist", ".wb-effects"):
        page.wait_for_function("sel => { const e = document.querySelector(sel);"
                               " return e && Number(getComputedStyle(e.closest('.wb-stale') || e).opacity) < 0.5; }",
                               arg=sel, timeout=120_000)
    assert "evading=true" not in page.evaluate("window.location.search")
    # a valid value again: everything is current, and the address bar follows
    page.select_option(".wb-dropdown-action select", label="snap")
    page.wait_for_function("() => !document.querySelector('.wb-error-message')", timeout=120_000)
    page.wait_for_function("() => !document.querySelector('.wb-stale')", timeout=120_000)
    page.wait_for_function("() => window.location.search.includes('evading=true')", timeout=120_000)


#: the steps of Gunfire's rule file (rules/gunfire.toml), each a chart of the "Stage by stage" section
GUNFIRE_STEPS = ["to hit", "to penetrate"]
#: the stage charts as drawn: each chart's title (its first line) and bars (x and y)
STAGE_SIG_JS = ("() => { const el = document.querySelector('.wb-plot-stage .js-plotly-plot');"
                " if (!el || !el._fullLayout) { return '[]'; }"
                " const titles = (el._fullLayout.annotations || []).map(a => String(a.text).split('<br>')[0]"
                ".replace(/<[^>]*>/g, ''));"
                " return JSON.stringify((el._fullData || []).map((t, i) =>"
                " [titles[i], Array.from(t.x || []), Array.from(t.y || [])])); }")


def test_the_stage_section_draws_a_chart_per_step_when_opened_and_follows_a_move(page, server):
    """Gunfire's page: the "Stage by stage" section is folded (no chart on the
    page); opened, it shows one chart per step of the rule file, titled by the
    step; a slider move redraws them, and costs the wire no more than a move
    may; on a phone the charts keep inside the screen's width."""
    from workbench.ui.stagecharts import SECTION_TITLE

    with WireCounter(server.url) as wire:
        page.goto(f"{wire.url}voila/render/gunfire.ipynb", timeout=240_000)
        before = drawn(page, 120_000)
        assert page.locator(".wb-plot-stage").count() == 0  # folded: nothing drawn, nothing sent
        page.get_by_text(SECTION_TITLE).click()
        page.wait_for_function(f"() => {{ const s = JSON.parse(({STAGE_SIG_JS})());"
                               f" return s.length === {len(GUNFIRE_STEPS)} && s.every(c => c[2].length); }}",
                               timeout=180_000)
        charts = json.loads(page.evaluate(STAGE_SIG_JS))
        assert [title for title, _x, _y in charts] == GUNFIRE_STEPS
        for _title, x, y in charts:
            assert x == list(range(len(y))) and abs(sum(y) - 1) < 1e-6
        page.wait_for_timeout(1000)
        wire.reset()
        move_slider(page, SLIDER_BS)
        redrawn(page, before, 30_000)
        page.wait_for_function(f"before => ({STAGE_SIG_JS})() !== before", arg=json.dumps(charts), timeout=120_000)
        page.wait_for_timeout(1000)
        on_wire = wire.ws()
    after = json.loads(page.evaluate(STAGE_SIG_JS))
    assert [title for title, _x, _y in after] == GUNFIRE_STEPS
    assert after[0][2] != charts[0][2]  # BS moved: the hits are another distribution
    assert 0 < on_wire <= MOVE_WIRE_BYTES, on_wire
    # on a phone the charts take the screen's width, no more (the plot redraws to its new box)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_function("() => { const svg = document.querySelector('.wb-plot-stage .main-svg');"
                           " return svg && svg.getBoundingClientRect().width <= 390; }", timeout=120_000)
    box = page.locator(".wb-plot-stage").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390 + 1, box
