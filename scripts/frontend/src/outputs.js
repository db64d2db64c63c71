// The cells' outputs: Voila's page holds each one as a script tag
// (application/vnd.voila.cell-output+json, a nbformat output) where it is to
// be shown. A widget view is drawn by the manager; the few other kinds a
// notebook may leave (HTML, text, a traceback, an image) are drawn plainly.
const WIDGET = "application/vnd.jupyter.widget-view+json";
const OUTPUT = 'script[type="application/vnd.voila.cell-output+json"]';
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function text(value) {
  return (Array.isArray(value) ? value.join("") : String(value ?? "")).replace(ANSI, "");
}

function pre(content, kind) {
  const node = document.createElement("pre");
  node.className = `wb-output-text ${kind}`;
  node.textContent = content;
  return node;
}

/** The node for an output that is not a widget, or null when it has nothing to show. */
export function plainOutput(output) {
  if (output.output_type === "stream") {
    return pre(text(output.text), output.name === "stderr" ? "wb-output-stderr" : "");
  }
  if (output.output_type === "error") {
    return pre(text(output.traceback || [`${output.ename}: ${output.evalue}`]), "wb-output-stderr");
  }
  const data = output.data || {};
  if (data["text/html"] !== undefined) {
    const node = document.createElement("div");
    node.className = "wb-output-html";
    node.innerHTML = text(data["text/html"]);
    return node;
  }
  for (const mime of ["image/png", "image/jpeg"]) {
    if (data[mime] !== undefined) {
      const img = document.createElement("img");
      img.src = `data:${mime};base64,${text(data[mime]).trim()}`;
      return img;
    }
  }
  if (data["image/svg+xml"] !== undefined) {
    const node = document.createElement("div");
    node.innerHTML = text(data["image/svg+xml"]);
    return node;
  }
  if (data["text/plain"] !== undefined) {
    return pre(text(data["text/plain"]), "");
  }
  return null;
}

/** Draws every output of the page; widget views through `manager`. */
export async function renderOutputs(manager) {
  const pending = [];
  for (const script of Array.from(document.querySelectorAll(OUTPUT))) {
    const container = script.parentElement;
    let output;
    try {
      output = JSON.parse(script.textContent);
    } catch (err) {
      console.error("a cell output that is not JSON", err);
      continue;
    }
    script.remove();
    const node = document.createElement("div");
    node.className = "wb-output jp-OutputArea-output";
    container.appendChild(node);
    const view = output.data && output.data[WIDGET];
    if (view && view.model_id) {
      pending.push(manager.show(view.model_id, node).catch((err) => {
        console.error(err);
        node.appendChild(pre(`A widget could not be shown: ${err.message || err}`, "wb-output-stderr"));
      }));
    } else {
      const plain = plainOutput(output);
      if (plain) { node.appendChild(plain); }
    }
  }
  await Promise.all(pending);
}
