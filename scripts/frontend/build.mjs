// Builds the dashboards' front end with esbuild: src/index.js and the CSS it
// imports into one script and one stylesheet, minified, for browsers of the
// last few years. Usage: node build.mjs OUTDIR (scripts/build-frontend.sh runs it).
import * as esbuild from "esbuild";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";

const outdir = process.argv[2];
if (!outdir) {
  console.error("usage: node build.mjs OUTDIR");
  process.exit(2);
}

// What the build changes in a package's own file: each a [file ending, text, replacement];
// a text that is no longer there stops the build (the package changed: look again).
const EDITS = [
  // anywidget ships its front end as one AMD module; the factory is what the page needs.
  ["anywidget/dist/index.js", 'define(["@jupyter-widgets/base"], widget_default);', "export default widget_default;"],
  // anywidget gives a model 2 s to load its module, then throws away every later message of
  // the kernel for it (the plot stops following its sliders); a page on a busy machine or a
  // slow phone network may take longer, so the model waits as long as the page does for plotly.js.
  ["anywidget/dist/index.js", "AbortSignal.timeout(2e3).addEventListener", "AbortSignal.timeout(3e5).addEventListener"],
];

// Modules the page gets from the workbench in place of a package's (each file says why).
const HERE = path.dirname(new URL(import.meta.url).pathname);
const SHIMS = {
  // the services' kernel connection reaches its package index for two names
  services: path.join(HERE, "src", "services.js"),
  "sanitize-html": path.join(HERE, "src", "sanitize.js"),
  jquery: path.join(HERE, "src", "jquery.js"),
};

const edits = {
  name: "edits",
  setup(build) {
    build.onResolve({ filter: /^\.\.$/ }, (args) => {
      const from = args.importer.split(path.sep).join("/");
      return /@jupyterlab\/services\/lib\/kernel\/[^/]+\.js$/.test(from) ? { path: SHIMS.services } : undefined;
    });
    build.onResolve({ filter: /^sanitize-html$/ }, () => ({ path: SHIMS["sanitize-html"] }));
    build.onResolve({ filter: /^jquery$/ }, () => ({ path: SHIMS.jquery }));
    build.onLoad({ filter: /anywidget[\\/]dist[\\/]index\.js$/ }, async (args) => {
      let text = await readFile(args.path, "utf8");
      for (const [ending, from, to] of EDITS) {
        if (!args.path.split(path.sep).join("/").endsWith(ending)) { continue; }
        if (!text.includes(from)) { throw new Error(`${ending}: expected the text ${JSON.stringify(from)}, not found`); }
        text = text.replace(from, to);
      }
      return { contents: text, loader: "js" };
    });
  },
};

const result = await esbuild.build({
  entryPoints: { workbench: "src/index.js" },
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  outdir,
  legalComments: "none",
  metafile: true,
  loader: { ".woff": "empty", ".woff2": "empty", ".ttf": "empty", ".svg": "dataurl", ".png": "dataurl" },
  plugins: [edits],
  logLevel: "warning",
});
const outputs = Object.entries(result.metafile.outputs).map(([file, o]) => `${path.basename(file)} ${o.bytes} B`);
console.log(outputs.join("\n"));
// what went into the bundle, for licences.mjs
await writeFile(path.join(outdir, "workbench.meta.json"), JSON.stringify(result.metafile));
if (process.env.ANALYZE) { console.log(await esbuild.analyzeMetafile(result.metafile)); }
