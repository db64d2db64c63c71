// The workbench's plot widget (workbench/ui/plotwidget.py): draws one plotly
// figure with plotly.js. The figure is the model's `base` (sent once) with its
// `delta` merged in (only what changed since: numbers and titles). plotly.js
// is named by the page's one library widget: under the dashboard server its
// `url`, a static file under the page's base URL (gzip-compressed, cached by
// the browser), loaded as a classic script; in a notebook without that server
// its `code`, the bundle gzip-compressed, run in the page. Either is run once
// per page however many plots share it.
// The view never writes to its model: nothing goes back to the kernel.
// A plot of a dashboard gets its `delta` from the page's feed (one model that
// carries all of a page's numbers in one message per move: `feedModel` and
// `fedValue`, prepended by workbench/ui/plotwidget.py); it then redraws only
// when its own entry changed.

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

// The page's base URL (Voila's page config: "/", or a prefix such as "/dice/"), as an absolute URL.
function baseUrl() {
  const config = document.getElementById("jupyter-config-data");
  let base = "/";
  try { base = JSON.parse(config.textContent).baseUrl || "/"; } catch (err) { /* no page config: the root */ }
  return new URL(base.endsWith("/") ? base : base + "/", window.location.href);
}

// plotly.js from its address, as a classic script: the browser streams and compiles it off the
// page's main thread and keeps it (and its compiled code) in its cache. The bundle sets
// `window.Plotly` as it runs, and the script's load event follows at once, so each bundle's
// object is read there (a page may hold both bundles). One script per address and page.
const SCRIPTS = "__workbenchPlotlyScripts";

function loadScript(url) {
  const scripts = window[SCRIPTS] || (window[SCRIPTS] = new Map());
  const href = new URL(url, baseUrl()).href;
  if (!scripts.has(href)) {
    scripts.set(href, new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = href;
      script.async = true;
      script.onload = () => (window.Plotly ? resolve(window.Plotly) : reject(new Error(`plotly.js: ${url} set no Plotly`)));
      script.onerror = () => { scripts.delete(href); reject(new Error(`plotly.js: ${url} could not be loaded`)); };
      document.head.appendChild(script);
    }));
  }
  return scripts.get(href);
}

// plotly.js from the library widget's `code` (the bundle gzip-compressed), run as CommonJS.
async function evaluated(lib) {
  const stream = new Blob([bytesOf(lib.get("code"))]).stream().pipeThrough(new DecompressionStream("gzip"));
  const source = await new Response(stream).text();
  const module = { exports: {} };
  new Function("module", "exports", source)(module, module.exports);  // the bundle's CommonJS branch
  return module.exports;
}

async function plotly(model) {
  const lib = await modelOf(model, "library");
  if (!lib) { throw new Error("the plot has no plotly.js library"); }
  if (!lib[KEY]) {
    const url = lib.get("url");
    lib[KEY] = url ? loadScript(url) : evaluated(lib);
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

const CELL_WIDTH = 38;   // px a heatmap cell needs across for its number ("0.0868" at 10 px)
const CELL_HEIGHT = 24;  // px down
const SIDES = 64;        // px beside a heatmap's grid: the tick labels down its left, the margins

function transposed(grid) {
  if (!Array.isArray(grid) || !Array.isArray(grid[0])) { return grid; }
  return grid[0].map((_, j) => grid.map((row) => row[j]));
}

// A heatmap that keeps readable cells on a narrow screen (a phone): when its
// columns do not fit at CELL_WIDTH each, the grid is turned (its rows across,
// its columns down) if that makes it fit better, the colour bar goes under
// the grid, and the plot grows taller so that each row keeps CELL_HEIGHT; the
// hover still names each axis. Cells too narrow even so drop their number
// (a tap shows it). A wide screen draws the figure as it is.
function readable(data, layout, width) {
  const at = data.findIndex((t) => t && t.type === "heatmap" && Array.isArray(t.z));
  if (at < 0 || !width) { return [data, layout]; }
  const trace = data[at];
  const cols = Array.isArray(trace.z[0]) ? trace.z[0].length : 0;
  const rows = trace.z.length;
  const room = width - SIDES;
  if (!cols || cols * CELL_WIDTH + 80 <= room) { return [data, layout]; }  // fits, colour bar beside it
  let heat = { ...trace };
  let out = { ...layout };
  let across = cols;
  let down = rows;
  if (rows < cols) {
    const swap = (text) => String(text).replace(/%\{x\}/g, "\u0000").replace(/%\{y\}/g, "%{x}").replace(/\u0000/g, "%{y}");
    heat = { ...heat, z: transposed(trace.z), text: transposed(trace.text), x: trace.y, y: trace.x,
             hovertemplate: trace.hovertemplate ? swap(trace.hovertemplate) : trace.hovertemplate };
    out = { ...out, xaxis: layout.yaxis, yaxis: layout.xaxis };
    across = rows;
    down = cols;
  }
  const bar = trace.colorbar || {};
  heat.colorbar = { ...bar, orientation: "h", y: -66 / (down * CELL_HEIGHT), yanchor: "top", thickness: 12,
                    title: { ...(bar.title || {}), side: "top" } };  // under the axis's numbers and title
  if (across * 26 > room) { heat = { ...heat, texttemplate: "" }; }  // too narrow for a number even so
  else { heat = { ...heat, textfont: { ...(heat.textfont || {}), size: 10 } }; }
  const margin = { l: 50, r: 12, t: 45, b: 45, ...(layout.margin || {}) };
  out.margin = { ...margin, l: Math.max(margin.l, 56), r: 8, b: Math.max(margin.b, 140) };
  const title = isObject(layout.title) ? layout.title : { text: layout.title };
  // hung from the top (a wrapped title grows downwards, into the margin made for it, not over the grid)
  out.title = { ...title, yref: "container", y: 1, yanchor: "top", pad: { ...(title.pad || {}), t: 16 } };
  out.height = Math.max(layout.height || 0, down * CELL_HEIGHT + out.margin.t + out.margin.b);
  const traces = data.slice();
  traces[at] = heat;
  return [traces, out];
}

function render({ model, el }) {
  const div = document.createElement("div");
  div.className = "wb-plot-area";
  el.appendChild(div);
  let Plotly = null;
  let queued = false;
  let gone = false;
  let drawnWidth = 0;
  let waiting = false;  // a draw was put off while the plot had no width: draw when it has one
  let feed;  // undefined until known: null (no feed) or the page's feed model
  const draw = () => {
    queued = false;
    if (!Plotly || gone || feed === undefined) { return; }
    const width = Math.round(el.getBoundingClientRect().width);
    // no width: the plot is hidden (a tab not shown, a folded section) or not on the page yet.
    // Drawing it now would cost as much as a visible plot and be redrawn at its real width anyway.
    if (!width) { waiting = true; return; }
    waiting = false;
    const fig = merge(model.get("base") || {}, fedValue(model, feed, "delta") || {});
    const [traces, fitted] = readable(fig.data || [], { ...(fig.layout || {}) }, width);
    const layout = wrapped(fitted, width);
    Plotly.react(div, traces, layout, model.get("config") || {}).then(() => {
      if (width !== drawnWidth && drawnWidth && !gone) { Plotly.Plots.resize(div); }
      drawnWidth = width;
    });
  };
  const later = () => {
    if (!queued) { queued = true; requestAnimationFrame(draw); }
  };
  model.on("change:base", later);
  model.on("change:delta", later);
  let fedSeen = null;
  const fedChanged = () => {
    const entry = JSON.stringify(fedValue(model, feed, "delta") || {});
    if (entry !== fedSeen) { fedSeen = entry; later(); }
  };
  feedModel(model).then((f) => {
    feed = f;
    if (f && !gone) { f.on("change:frame", fedChanged); }
    fedChanged();
  });
  let lastWidth = 0;
  const resized = new ResizeObserver(() => {  // also when a hidden plot is shown (its width was 0)
    const width = Math.round(el.getBoundingClientRect().width);
    if (width && (waiting || Math.abs(width - lastWidth) > 1)) { lastWidth = width; later(); }
  });
  resized.observe(el);
  plotly(model).then((P) => { Plotly = P; draw(); }).catch((err) => {
    div.textContent = "This plot could not be drawn: reload the page.";
    console.error("[workbench plot]", err);
  });
  return () => {
    gone = true;
    resized.disconnect();
    if (feed) { feed.off("change:frame", fedChanged); }
    if (Plotly) { Plotly.purge(div); }
  };
}

export default { render };
