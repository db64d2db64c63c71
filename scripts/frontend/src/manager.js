// The page's widget manager: the Jupyter widget protocol over the page's one
// kernel connection. ManagerBase (@jupyter-widgets/base-manager) holds the
// models and views; this class adds what a page needs from its kernel: the
// comms ("jupyter.widget" and the control comm that hands over the state of
// the widgets the notebook made before the page connected) and the classes of
// the three widget modules a dashboard uses.
import { PageConfig } from "@jupyterlab/coreutils";
import { ManagerBase } from "@jupyter-widgets/base-manager";
import * as base from "@jupyter-widgets/base";
// ipywidgets' controls, only the modules of the classes the dashboards use (the package's index
// brings every control: colour and date pickers, uploads, media, game controllers, tags...).
import * as bool from "@jupyter-widgets/controls/lib/widget_bool";
import * as box from "@jupyter-widgets/controls/lib/widget_box";
import * as button from "@jupyter-widgets/controls/lib/widget_button";
import * as description from "@jupyter-widgets/controls/lib/widget_description";
import * as float from "@jupyter-widgets/controls/lib/widget_float";
import * as int from "@jupyter-widgets/controls/lib/widget_int";
import * as selection from "@jupyter-widgets/controls/lib/widget_selection";
import * as containers from "@jupyter-widgets/controls/lib/widget_selectioncontainer";
import * as string from "@jupyter-widgets/controls/lib/widget_string";
import { Widget } from "@lumino/widgets";
import anywidget from "anywidget";

const { DOMWidgetModel, DOMWidgetView } = base;

/** ipywidgets' tabs, each tab drawn when it is first chosen: a page shows one of its tabs, and
 * drawing the others' widgets at once cost as much as drawing them shown (the diagnostics page
 * held 39 widgets in the tabs not chosen). */
class TabView extends containers.TabView {
  addChildView(model, index) {
    if (index === (this.model.get("selected_index") ?? 0)) {
      return super.addChildView(model, index);
    }
    const tabs = this.luminoWidget;
    const placeholder = new Widget();
    placeholder.title.label = this.model.get("titles")[index] || "";
    tabs.addWidget(placeholder);
    const child = { view: null, remove: () => (child.view ? child.view.remove() : placeholder.dispose()) };
    placeholder.wbDraw = async () => {
      const view = await this.create_child_view(model);
      view.luminoWidget.title.label = placeholder.title.label;
      view.luminoWidget.title.closable = false;
      // after the placeholder, which is the current tab: its removal makes the view current
      tabs.insertWidget(tabs.widgets.indexOf(placeholder) + 1, view.luminoWidget);
      placeholder.dispose();
      child.view = view;
    };
    return Promise.resolve(child);  // the list of views removes it as it removes a view
  }

  _onTabChanged(sender, args) {
    const tab = args.currentTitle && args.currentTitle.owner;  // the tab bar's title of the panel's widget
    if (tab && tab.wbDraw) {
      const draw = tab.wbDraw;
      tab.wbDraw = null;
      draw().catch((err) => console.error("a tab could not be drawn", err));
    }
    super._onTabChanged(sender, args);
  }
}

/** Every widget module a dashboard may name, by its module name. */
export const MODULES = {
  "@jupyter-widgets/base": base,
  "@jupyter-widgets/controls": {
    ...bool, ...box, ...button, ...description, ...float, ...int, ...selection, ...containers, ...string, TabView,
  },
  anywidget: anywidget({ DOMWidgetModel, DOMWidgetView }),
};

// A slider measures whether its readout overflows as it is shown: read right after the page
// changed, each measure lays the whole page out again, one layout per slider. The readouts
// shown in one frame are measured together (one layout) and marked after.
const readouts = new Set();

function measureReadouts() {
  const shown = [...readouts];
  readouts.clear();
  const overflows = shown.map((readout) => readout.scrollWidth > readout.clientWidth);
  shown.forEach((readout, i) => readout.classList.toggle("overflow", overflows[i]));
}

int.BaseIntSliderView.prototype.readout_overflow = function readoutOverflow() {
  if (!readouts.size) { requestAnimationFrame(measureReadouts); }
  readouts.add(this.readout);
  return this.readout.classList.contains("overflow");  // as marked now; the measure marks it again
};

/** A widget module named by its address under the page's base URL (workbench.ui.plotwidget.Module). */
const SERVED_MODULE = /^[\w/.-]+\.mjs(\?v=\w+)?$/;

export class PageManager extends ManagerBase {
  /** @param kernel a KernelConnection (@jupyterlab/services) that handles comms */
  constructor(kernel) {
    super();
    this.kernel = kernel;
    kernel.registerCommTarget(this.comm_target_name, (comm, msg) => {
      this.handle_comm_open(new base.shims.services.Comm(comm), msg).catch((err) => console.error(err));
    });
  }

  async loadClass(className, moduleName, moduleVersion) {
    const module = MODULES[moduleName];
    if (!module) {
      throw new Error(`widget module: expected one of ${Object.keys(MODULES).join(", ")}, found ${moduleName} ${moduleVersion}`);
    }
    const cls = module[className];
    if (!cls) {
      throw new Error(`widget class of ${moduleName}: expected one it exports, found ${className}`);
    }
    return cls;
  }

  /** anywidget imports a module at an http(s) address as it is, once for every widget of its class;
   * a module's address under the page's base URL becomes one. */
  async _make_model(options, serializedState = {}) {
    const esm = serializedState._esm;
    if (typeof esm === "string" && SERVED_MODULE.test(esm)) {
      const base = new URL(PageConfig.getBaseUrl(), window.location.href);
      serializedState = { ...serializedState, _esm: new URL(esm, base).href };
    }
    return super._make_model(options, serializedState);
  }

  async _create_comm(targetName, modelId, data, metadata, buffers) {
    const comm = this.kernel.createComm(targetName, modelId);
    if (data || metadata) {
      comm.open(data, metadata, buffers);
    }
    return new base.shims.services.Comm(comm);
  }

  async _get_comm_info() {
    const reply = await this.kernel.requestCommInfo({ target_name: this.comm_target_name });
    if (reply.content.status !== "ok") {
      throw new Error(`comm_info_reply status: expected ok, found ${reply.content.status}`);
    }
    return reply.content.comms;
  }

  /** Every widget the kernel holds now, as models of this page. */
  restore() {
    return this._loadFromKernel();
  }

  /** The view of `modelId`, drawn into `node`. */
  async show(modelId, node) {
    const model = await this.get_model(modelId);
    const view = await this.create_view(model, {});
    Widget.attach(view.luminoWidget, node);
    return view;
  }
}
