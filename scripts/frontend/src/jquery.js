// Stands in for jQuery (build.mjs points every `jquery` import here). The widgets' views handle
// their events, attributes and removal with the DOM itself (@jupyter-widgets/base's NativeView);
// of jQuery they keep only a view's `$el`: `$(node)` wrapping its node, read back as `$el[0]`,
// and anywidget's `$el.empty()` before it draws. jQuery itself, run at every first view, cost
// the page's renderer about 0.1 CPU-s (its start-up and feature tests), a tenth of the page.
// CommonJS, as jQuery is: Backbone `require`s it, the widgets `import` its default.
class Nodes {
  constructor(nodes) {
    this.length = nodes.length;
    nodes.forEach((node, i) => { this[i] = node; });
  }

  empty() {
    for (let i = 0; i < this.length; i++) { this[i].replaceChildren(); }
    return this;
  }

  find(selector) {
    const found = [];
    for (let i = 0; i < this.length; i++) { found.push(...this[i].querySelectorAll(selector)); }
    return new Nodes(found);
  }
}

function $(target) {
  if (target instanceof Nodes) { return target; }
  return new Nodes(target ? [target] : []);
}
$.prototype = Nodes.prototype;  // `view.$el instanceof $`, as @jupyter-widgets/base asks

module.exports = $;
