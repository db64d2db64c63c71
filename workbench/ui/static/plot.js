// The workbench's plot widget (workbench/ui/plotwidget.py): draws one plotly
// figure with plotly.js. The figure is the model's `base` (sent once) with its
// `delta` merged in (only what changed since: numbers and titles). plotly.js
// itself comes, gzip-compressed, in the `code` of the page's one library
// widget, decompressed and run once per page however many plots share it.
// The view never writes to its model: nothing goes back to the kernel.

const KEY = "__workbenchPlotly";

function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

// `base` with `delta` merged in: a null removes a key; an object merged into a
// list changes the items it names by index ({"0": {...}}); anything else replaces.
function merge(base, delta) {
  if (delta === undefined) { return base; }
  if (Array.isArray(base) && isObject(delta)) {
    const out = base.slice();
    for (const [k, v] of Object.entries(delta)) { out[Number(k)] = merge(base[Number(k)], v); }
    return out;
  }
  if (isObject(base) && isObject(delta)) {
    const out = { ...base };
    for (const [k, v] of Object.entries(delta)) {
      if (v === null) { delete out[k]; } else { out[k] = merge(base[k], v); }
    }
    return out;
  }
  return delta;
}

function bytesOf(value) {
  if (value instanceof DataView) { return new Uint8Array(value.buffer, value.byteOffset, value.byteLength); }
  if (value instanceof ArrayBuffer) { return new Uint8Array(value); }
  if (ArrayBuffer.isView(value)) { return new Uint8Array(value.buffer, value.byteOffset, value.byteLength); }
  throw new Error("the plot library widget holds no code");
}

async function libraryModel(model) {
  const id = String(model.get("library")).replace(/^IPY_MODEL_/, "");
  // the library's model may be registered after this plot's (its message is the page's
  // largest: on a busy machine or a slow phone network it can come many seconds later)
  for (let i = 0; ; i++) {
    try { return await model.widget_manager.get_model(id); } catch (err) {
      if (i > 6000) { throw err; }  // 300 s, as long as the template lets anywidget wait for a module
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function plotly(model) {
  const lib = await libraryModel(model);
  if (!lib[KEY]) {
    lib[KEY] = (async () => {
      const stream = new Blob([bytesOf(lib.get("code"))]).stream().pipeThrough(new DecompressionStream("gzip"));
      const source = await new Response(stream).text();
      const module = { exports: {} };
      new Function("module", "exports", source)(module, module.exports);  // the bundle's CommonJS branch
      return module.exports;
    })();
  }
  return lib[KEY];
}

// A title that fits the plot's width: plotly never wraps one, so long titles
// are broken at spaces into lines, and the top margin grows to hold them.
function wrapped(layout, width) {
  const title = isObject(layout.title) ? layout.title : { text: layout.title };
  const text = title.text;
  if (!text || !width) { return layout; }
  const size = (title.font && title.font.size) || 17;
  const perLine = Math.max(12, Math.floor((width - 24) / (size * 0.68)));  // DejaVu Sans is wide
  const lines = [];
  for (const part of String(text).split(/<br\s*\/?>/i)) {
    const plain = part.replace(/<[^>]*>/g, "");
    if (plain.length <= perLine || plain !== part) { lines.push(part); continue; }
    let line = "";
    for (const word of part.split(" ")) {
      if (line && (line + " " + word).length > perLine) { lines.push(line); line = word; } else { line = line ? line + " " + word : word; }
    }
    if (line) { lines.push(line); }
  }
  const margin = { l: 50, r: 12, t: 45, b: 45, ...(layout.margin || {}) };
  const extra = Math.ceil((lines.length - 1) * size * 1.25);
  return {
    ...layout,
    title: { ...title, text: lines.join("<br>"), x: 0.02, xanchor: "left" },
    margin: { ...margin, t: Math.max(margin.t, 16 + lines.length * size * 1.25) },
    height: layout.height ? layout.height + extra : layout.height,
  };
}

function render({ model, el }) {
  const div = document.createElement("div");
  div.className = "wb-plot-area";
  el.appendChild(div);
  let Plotly = null;
  let queued = false;
  let gone = false;
  let drawnWidth = 0;
  const draw = () => {
    queued = false;
    if (!Plotly || gone) { return; }
    const fig = merge(model.get("base") || {}, model.get("delta") || {});
    const width = Math.round(el.getBoundingClientRect().width);
    const layout = wrapped({ ...(fig.layout || {}) }, width);
    Plotly.react(div, fig.data || [], layout, model.get("config") || {}).then(() => {
      if (width !== drawnWidth && drawnWidth && !gone) { Plotly.Plots.resize(div); }
      drawnWidth = width;
    });
  };
  const later = () => {
    if (!queued) { queued = true; requestAnimationFrame(draw); }
  };
  model.on("change:base", later);
  model.on("change:delta", later);
  let lastWidth = 0;
  const resized = new ResizeObserver(() => {
    const width = Math.round(el.getBoundingClientRect().width);
    if (width && Math.abs(width - lastWidth) > 1) { lastWidth = width; later(); }
  });
  resized.observe(el);
  plotly(model).then((P) => { Plotly = P; draw(); }).catch((err) => {
    div.textContent = "This plot could not be drawn: reload the page.";
    console.error("[workbench plot]", err);
  });
  return () => {
    gone = true;
    resized.disconnect();
    if (Plotly) { Plotly.purge(div); }
  };
}

export default { render };
