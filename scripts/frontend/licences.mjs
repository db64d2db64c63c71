// Prints the licence of every npm package whose code is in the bundle (read from
// esbuild's metafile, the argument): name, version, licence name and its text.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";

const meta = JSON.parse(readFileSync(process.argv[2], "utf8"));
const packages = new Map();
for (const input of Object.keys(meta.inputs)) {
  const m = input.match(/^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//);
  if (!m) { continue; }
  packages.set(m[1], m[2]);
  // a package's own prebuilt bundle may hold others (anywidget's holds solid-js and @lukeed/uuid):
  // esbuild names each one in a comment, "// node_modules/.pnpm/<name>@<version>/..."
  for (const [, inner] of readFileSync(input, "utf8").matchAll(/^\/\/ node_modules\/\.pnpm\/(.+?@[^@/]+)\//gm)) {
    const at = inner.lastIndexOf("@");
    const name = inner.slice(0, at).replace("+", "/");
    const dir = path.join(m[1].slice(0, m[1].lastIndexOf("node_modules/") + "node_modules/".length), name);
    if (!existsSync(dir)) { throw new Error(`${input}: holds ${name}, which is not installed: its licence is needed`); }
    packages.set(dir, `${name} ${inner.slice(at + 1)}, inside ${m[2]}'s own file; licence of`);
  }
}
const out = ["The packages in workbench.js and workbench.css (scripts/build-frontend.sh), with their licences.",
  "The workbench's own sources of the bundle (scripts/frontend/src) are under the project's MIT licence.", ""];
for (const [dir, name] of [...packages].sort((a, b) => a[1].localeCompare(b[1]))) {
  const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  out.push("=".repeat(78), `${name} ${pkg.version} (${pkg.license || "see below"})`, "=".repeat(78));
  if (file && existsSync(path.join(dir, file))) {
    out.push(readFileSync(path.join(dir, file), "utf8").trim());
  } else {
    out.push(`No licence file in the package; package.json says: ${pkg.license}.`);
  }
  out.push("");
}
console.log(out.join("\n"));
