"""What a dashboard's widgets send the page, recorded in the test's own process (no kernel, no browser)."""
from __future__ import annotations


def sent_messages(monkeypatch) -> list[tuple[object, dict]]:
    """Record every message a widget sends the page from now on: (widget, message), in order."""
    import ipywidgets as W
    sent = []
    real = W.Widget._send

    def send(self, msg, buffers=None):
        sent.append((self, msg))
        return real(self, msg, buffers)
    monkeypatch.setattr(W.Widget, "_send", send)
    return sent


def received(sent: list[tuple[object, dict]], widget, before: dict | None = None) -> list[dict]:
    """What ``widget`` was sent, message by message, as state dicts: its own
    state updates, and (a widget fed by a page's ``Feed``) each new value of
    its entry in the feed's frames as ``{fed trait: value}``. ``before``: the
    feed's frame when the recording started (an entry equal to it is no change)."""
    feed = getattr(widget, "feed", None)
    last = (before or {}).get(widget.key) if feed is not None else None
    out = []
    for w, m in sent:
        if w is widget and m.get("method") == "update":
            out.append(m["state"])
        elif feed is not None and w is feed and "frame" in m.get("state", {}):
            entry = m["state"]["frame"].get(widget.key)
            if entry != last:
                out.append({widget._fed: entry})
                last = entry
    return out
