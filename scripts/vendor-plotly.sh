#!/bin/sh
# Re-vendor plotly.js's prebuilt bundles into workbench/ui/static/ (the dashboards' plot widget).
# The version is pinned to the plotly.js that the plotly Python package ships (kaleido's exports
# draw with that one), so a dashboard's plot and its PNG/SVG export come from the same plotly.js.
# Usage: scripts/vendor-plotly.sh [VERSION]      (needs npm and network access to the npm registry)
set -eu
VERSION="${1:-4.1.1}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$HERE/workbench/ui/static"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
for kind in basic cartesian; do
  npm pack --silent "plotly.js-$kind-dist-min@$VERSION" >/dev/null
  mkdir "$kind"
  tar xzf "plotly.js-$kind-dist-min-$VERSION.tgz" -C "$kind"
  cp "$kind/package/plotly-$kind.min.js" "$DEST/plotly-$kind.min.js"
done
cp basic/package/LICENSE "$DEST/plotly.js-LICENSE.txt"
cat > "$DEST/VENDORED.md" <<NOTE
# Vendored JavaScript

| file | from | version | licence |
|---|---|---|---|
| plotly-basic.min.js | npm \`plotly.js-basic-dist-min\` (https://www.npmjs.com/package/plotly.js-basic-dist-min) | $VERSION | MIT, plotly.js-LICENSE.txt |
| plotly-cartesian.min.js | npm \`plotly.js-cartesian-dist-min\` (https://www.npmjs.com/package/plotly.js-cartesian-dist-min) | $VERSION | MIT, plotly.js-LICENSE.txt |

Both files are copied unchanged from the npm packages by \`scripts/vendor-plotly.sh $VERSION\`.
The basic bundle (scatter, bar, pie) draws every plot; the cartesian one (adds heatmap, box,
histogram, contour) only a page with a heatmap. Their version is the plotly.js the plotly
Python package ships (\`plotly/package_data/plotly.min.js\`), which draws the exports.
NOTE
echo "vendored plotly.js $VERSION into $DEST"
