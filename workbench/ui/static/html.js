// FedHTML (workbench/ui/plotwidget.py): HTML on the page, as ipywidgets' HTML, whose value comes through the feed.
function render({ model, el }) {
  el.classList.add("widget-html", "widget-inline-hbox");
  const box = document.createElement("div");
  box.className = "widget-html-content";
  el.appendChild(box);
  let feed = null;
  let shown = null;
  const update = () => {
    const value = String(fedValue(model, feed, "value") || "");
    if (value !== shown) { shown = value; box.innerHTML = value; }
  };
  // its CSS classes follow the model's (the results are greyed while the settings give none)
  let classes = [];
  const restyle = () => {
    const now = model.get("_dom_classes") || [];
    for (const c of classes) { if (!now.includes(c)) { el.classList.remove(c); } }
    for (const c of now) { el.classList.add(c); }
    classes = now.slice();
  };
  restyle();
  model.on("change:value", update);
  model.on("change:_dom_classes", restyle);
  let gone = false;
  feedModel(model).then((f) => { if (gone) { return; } feed = f; if (f) { f.on("change:frame", update); } update(); });
  return () => {
    gone = true;
    model.off("change:value", update);
    model.off("change:_dom_classes", restyle);
    if (feed) { feed.off("change:frame", update); }
  };
}
export default { render };
