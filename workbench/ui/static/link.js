// LinkBar (workbench/ui/query.py): the address bar and the link on the page follow the dashboard's values.
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
