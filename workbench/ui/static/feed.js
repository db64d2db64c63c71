// What a fed widget's module uses (workbench/ui/plotwidget.py, Feed): feedModel(model), the page's
// Feed model or null, and fedValue(model, feed, trait), its own entry of the feed's frame when fed, else its trait.
async function feedModel(model) {
  const ref = model.get("feed");
  if (!ref) { return null; }
  const id = String(ref).replace(/^IPY_MODEL_/, "");
  for (let i = 0; ; i++) {  // the feed's model may be registered after this one's
    try { return await model.widget_manager.get_model(id); } catch (err) {
      if (i > 6000) { throw err; }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
function fedValue(model, feed, trait) {
  if (!feed) { return model.get(trait); }
  return (feed.get("frame") || {})[model.get("key")];
}
