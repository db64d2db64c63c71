// Stands in for sanitize-html (and postcss, htmlparser2 and entities under it, a
// third of the widgets' code), which @jupyter-widgets/base-manager calls only
// for a widget description given as HTML (description_allow_html): no
// dashboard uses one. Such a description is shown as its plain text.
export default function sanitize(source) {
  const node = document.createElement("div");
  node.textContent = String(source);
  return node.innerHTML;
}
