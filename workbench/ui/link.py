"""The link to a dashboard's current values, in the address bar and on the page.

:class:`LinkBar` is a small anywidget: whenever the kernel sets its ``query`` (the dashboard's
values), the page replaces the address bar's query with it (``history.replaceState``, a
query-only relative URL: no reload, no new history entry) and shows the full link, built in the
browser from its own address, with a "Copy link" button (docs/dashboards.md, "Shared links").
Keys of the page's address listed in ``keep`` (the server's ``token``) are carried over.
"""
from __future__ import annotations

import anywidget
import traitlets

from .plotwidget import FEED_JS, Fed, Module

__all__ = ["LinkBar", "COPY_JS"]

#: ``copyText(text)``: the clipboard where the browser allows it, else a hidden text area's copy (an
#: address that is not https); resolves to whether it copied (the link bar's and the forum post's buttons)
COPY_JS = r"""
function fallbackCopy(text) {
  const ta = document.createElement("textarea");
  ta.value = text;
  ta.setAttribute("readonly", "");
  ta.style.position = "fixed";
  ta.style.top = "-1000px";
  ta.style.opacity = "0";
  document.body.appendChild(ta);
  ta.select();
  ta.setSelectionRange(0, text.length);
  let ok = false;
  try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
  document.body.removeChild(ta);
  return ok;
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try { await navigator.clipboard.writeText(text); return true; } catch (e) { /* fall back */ }
  }
  return fallbackCopy(text);
}
"""

_ESM = r"""
function relative(model, feed) {
  const here = new URLSearchParams(window.location.search);
  const next = new URLSearchParams(String(fedValue(model, feed, "query") || "").replace(/^\?/, ""));
  for (const key of model.get("keep") || []) {
    if (here.has(key) && !next.has(key)) next.set(key, here.get(key));
  }
  const qs = next.toString();
  return qs ? "?" + qs : window.location.pathname;
}

function render({ model, el }) {
  el.classList.add("wb-link-bar");
  const label = document.createElement("span");
  label.className = "wb-link-label";
  label.textContent = "Link to these values: ";
  const link = document.createElement("a");
  link.className = "wb-link-href";
  link.target = "_self";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "wb-copy jupyter-button";
  button.textContent = "Copy link";
  const status = document.createElement("span");
  status.className = "wb-copy-status";
  status.setAttribute("aria-live", "polite");
  el.append(label, link, " ", button, " ", status);

  let feed = null;
  let shown = null;
  const update = () => {
    const rel = relative(model, feed);
    if (rel === shown) { return; }
    shown = rel;
    link.setAttribute("href", rel);
    link.textContent = new URL(rel, window.location.href).href;
    status.textContent = "";
    if (model.get("follow")) {
      try {
        window.history.replaceState(window.history.state, "", rel + window.location.hash);
      } catch (e) { /* an address the browser refuses: the link below still works */ }
    }
  };
  button.addEventListener("click", async () => {
    const ok = await copyText(link.textContent);
    status.textContent = ok ? "Copied." : "Select the link above and copy it.";
  });
  // plots drawn while hidden (another tab) fit the page once shown: plotly re-measures on resize
  const refit = () => setTimeout(() => window.dispatchEvent(new Event("resize")), 50);
  model.on("change:query", update);
  model.on("change:refit", refit);
  let gone = false;
  feedModel(model).then((f) => { if (gone) { return; } feed = f; if (f) { f.on("change:frame", update); } update(); });
  return () => {
    gone = true;
    model.off("change:query", update);
    model.off("change:refit", refit);
    if (feed) { feed.off("change:frame", update); }
  };
}

export default { render };
"""

_CSS = """
.wb-link-bar { max-width: 100%; line-height: 1.8; }
.wb-link-bar .wb-link-href { word-break: break-all; overflow-wrap: anywhere; }
.wb-link-bar .wb-copy { margin-left: 0.5em; padding: 0 0.8em; height: 28px; }
.wb-link-bar .wb-copy-status { color: #2e7d32; margin-left: 0.5em; }
"""


class LinkBar(Fed, anywidget.AnyWidget):
    """``query``: the dashboard's values as ``?name=value&...``; ``keep``:
    keys of the page's own address to carry over; ``follow``: whether the
    address bar follows ``query``; ``refit``: bump it to make the page's
    plots fit their width again (after a tab with plots is shown); ``feed``:
    the page's :class:`~workbench.ui.plotwidget.Feed`, which then carries
    ``query``."""

    _fed = "query"
    _esm = Module("link", FEED_JS + COPY_JS + _ESM)
    _css = _CSS
    query = traitlets.Unicode("").tag(sync=True)
    keep = traitlets.List(traitlets.Unicode(), default_value=["token"]).tag(sync=True)
    follow = traitlets.Bool(True).tag(sync=True)
    #: bumped by the kernel when hidden plots are shown (a tab is chosen): the page re-measures its plots
    refit = traitlets.Int(0).tag(sync=True)

    def set_state(self, sync_data):
        """The page never changes the link: only the kernel does."""
        return None

    def _handle_msg(self, msg):
        """Only a request for the state is answered; the page sends nothing else."""
        try:
            if msg["content"]["data"].get("method") == "request_state":
                self.send_state()
        except Exception:  # noqa: BLE001 - a malformed message is dropped
            return
