// The workbench dashboards' own front end (workbench/voila/share/voila/templates/workbench/):
// it connects to the kernel Voila started for the page (the page config's
// kernelId, through @jupyterlab/services with the page's base URL; the access
// cookie goes with every request), speaks the Jupyter widget protocol
// (manager.js) and draws the outputs of the page's cells (outputs.js). It
// stands in for Voila's own `lab` front end, a whole JupyterLab shell of which
// a dashboard used only the widgets. Built by scripts/build-frontend.sh.
import "@lumino/widgets/style/index.css";
import "@jupyter-widgets/base/css/index.css";
import "@jupyter-widgets/controls/css/widgets.css";
import "./theme.css";
import "./page.css";
import { PageConfig } from "@jupyterlab/coreutils";
import { ServerConnection } from "@jupyterlab/services/lib/serverconnection";
import { KernelConnection } from "@jupyterlab/services/lib/kernel/default";
import { CommsOverSubshells } from "@jupyterlab/services/lib/kernel/comm";
import { PageManager } from "./manager";
import { renderOutputs } from "./outputs";

function showCells() {
  // Voila's helpers (voila_setup_helper_functions) show the cells once a theme
  // has loaded; this page has no theme to load.
  window.themeLoaded = true;
  if (typeof window.display_cells === "function") { window.display_cells(); }
}

function shutdownOnLeave(baseUrl, kernel) {
  // Voila's shutdown beacon: the server ends the viewer's kernel when the page goes.
  window.addEventListener("beforeunload", () => {
    const data = new FormData();
    const match = document.cookie.match("\\b_xsrf=([^;]*)\\b");
    data.append("_xsrf", (match && match[1]) || "");
    navigator.sendBeacon(`${baseUrl}voila/api/shutdown/${kernel.id}`, data);
    kernel.dispose();
  });
}

async function main() {
  showCells();
  const kernelId = PageConfig.getOption("kernelId");
  if (!kernelId) { return; }  // a page without a kernel (an error page)
  const baseUrl = PageConfig.getBaseUrl();
  const serverSettings = ServerConnection.makeSettings({ baseUrl });
  // Comms on the kernel's main shell, as Voila's front end had them: with a subshell per
  // comm target (the services' default now) the kernel would handle a move on another thread.
  const kernel = new KernelConnection({
    model: { id: kernelId, name: "" }, serverSettings, commsOverSubshells: CommsOverSubshells.Disabled,
  });
  shutdownOnLeave(baseUrl, kernel);
  const manager = new PageManager(kernel);
  window.workbenchWidgets = manager;  // a page that never drew is told apart by it (benchmarks/bench_viewers.py)
  try {
    await manager.restore();
  } catch (err) {  // each widget view then says it could not be shown: the rest of the page still is
    console.error("the widgets' state could not be read from the kernel", err);
  }
  await renderOutputs(manager);
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => { main().catch((err) => console.error(err)); });
} else {
  main().catch((err) => console.error(err));
}
