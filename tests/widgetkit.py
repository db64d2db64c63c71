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
