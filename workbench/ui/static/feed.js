// What a fed widget's module uses (workbench/ui/plotwidget.py, Feed): modelOf(model, trait), the model a
// widget trait names, or null; feedModel(model), the page's Feed model or null; and fedValue(model, feed, trait),
// its own entry of the feed's frame when fed, else its trait.
async function modelOf(model, trait) {
  const ref = model.get(trait);
  if (!ref) { return null; }
  const id = String(ref).replace(/^IPY_MODEL_/, "");
  // the named model may be registered after this one's (a plot's library, the page's largest message, can
  // come many seconds later on a busy machine or a slow phone network)
  for (let i = 0; ; i++) {
    try { return await model.widget_manager.get_model(id); } catch (err) {
      if (i > 6000) { throw err; }  // 300 s, as long as the template lets anywidget wait for a module
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
function feedModel(model) {
  return modelOf(model, "feed");
}
function fedValue(model, feed, trait) {
  if (!feed) { return model.get(trait); }
  return (feed.get("frame") || {})[model.get("key")];
}
