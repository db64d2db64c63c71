#!/bin/sh
# Rebuild the dashboards' own front end (workbench/voila/share/voila/templates/workbench/static/):
# workbench.js and workbench.css from scripts/frontend/ (its sources, and the npm packages pinned
# by package.json and package-lock.json), with LICENSES.txt: the licence of every package
# the bundle holds. Run by hand after changing scripts/frontend/, and commit what it writes;
# make, the install and CI never run it (they need no npm).
# Usage: scripts/build-frontend.sh      (needs node >= 18, npm and access to the npm registry)
set -eu
HERE="$(cd "$(dirname "$0")/.." && pwd)"
SRC="$HERE/scripts/frontend"
DEST="$HERE/workbench/voila/share/voila/templates/workbench/static"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cp -r "$SRC/package.json" "$SRC/package-lock.json" "$SRC/build.mjs" "$SRC/licences.mjs" "$SRC/src" "$TMP/"
cd "$TMP"
npm ci --no-audit --no-fund --silent
mkdir -p "$DEST"
node build.mjs "$DEST"
node licences.mjs "$DEST/workbench.meta.json" > "$DEST/LICENSES.txt"
rm "$DEST/workbench.meta.json"
echo "built the dashboards' front end into $DEST"
