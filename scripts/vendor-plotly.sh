#!/bin/sh
# Build the dashboards' plotly.js bundles into workbench/ui/static/: partial bundles made with esbuild from
# the npm `plotly.js` package (its lib/ entry points, as plotly's own custom-bundle task does), holding only
# the traces the pages draw and the components their figures use. The version is pinned to the plotly.js
# that the plotly Python package ships (kaleido's exports draw with that one), so a dashboard's plot and its
# PNG/SVG export come from the same plotly.js.
#   basic:     core (scatter) + bar + pie
#   cartesian: basic + heatmap (only a page with a heatmap loads it)
# Left out of core: annotations3d, images, updatemenus, sliders, rangeslider, rangeselector (no figure uses
# them; plotly asks the registry for them and skips what is not registered) and the world calendars.
# Like plotly's own dist bundles, each sets window.Plotly as a classic script and module.exports when run as
# CommonJS (plot.js runs a widget's gzip-compressed copy that way).
# Usage: scripts/vendor-plotly.sh [VERSION]      (needs npm and access to the npm registry)
set -eu
VERSION="${1:-4.1.1}"
ESBUILD=0.28.2
HERE="$(cd "$(dirname "$0")/.." && pwd)"
DEST="$HERE/workbench/ui/static"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
echo '{"private": true}' > package.json
npm install --silent --ignore-scripts --no-audit --no-fund "plotly.js@$VERSION" "esbuild@$ESBUILD"
# core.js without the components no figure uses, its requires pointed at the package
sed -e "/components\/\(annotations3d\|images\|updatemenus\|sliders\|rangeslider\|rangeselector\)'/d" \
    -e "s#require('\./#require('plotly.js/src/#g" -e "s#require('\.\./build/#require('plotly.js/build/#" \
    node_modules/plotly.js/src/core.js > core.js
traces_basic="require('plotly.js/lib/bar'), require('plotly.js/lib/pie')"
traces_cartesian="$traces_basic, require('plotly.js/lib/heatmap')"
for kind in basic cartesian; do
  eval "traces=\$traces_$kind"
  printf "var Plotly = require('./core.js');\nPlotly.register([%s]);\nmodule.exports = Plotly;\n" "$traces" > "$kind.js"
  node_modules/.bin/esbuild "$kind.js" --bundle --minify --format=iife --global-name=Plotly --target=es2016 \
    --define:global=window --define:define.amd=false --alias:stream=stream-browserify --log-level=warning \
    --banner:js="$(printf '/**\n* plotly.js (%s, partial - minified) v%s\n* Copyright 2012-2026, Plotly, Inc.\n* All rights reserved.\n* Licensed under the MIT license\n*/' "$kind" "$VERSION")" \
    --footer:js='if (typeof module === "object" && module.exports) { module.exports = Plotly; }' \
    --outfile="$DEST/plotly-$kind.min.js"
  rm -f "$DEST/plotly-$kind.min.css"  # maplibre's stylesheet (a map trace's), not in these bundles
done
cp node_modules/plotly.js/LICENSE "$DEST/plotly.js-LICENSE.txt"
cat > "$DEST/VENDORED.md" <<NOTE
# Vendored JavaScript

| file | from | version | licence |
|---|---|---|---|
| plotly-basic.min.js | partial build of npm \`plotly.js\` (https://www.npmjs.com/package/plotly.js): core (scatter), bar, pie | $VERSION | MIT, plotly.js-LICENSE.txt |
| plotly-cartesian.min.js | partial build of npm \`plotly.js\`: core (scatter), bar, pie, heatmap | $VERSION | MIT, plotly.js-LICENSE.txt |

Both files are built by \`scripts/vendor-plotly.sh $VERSION\` (esbuild $ESBUILD, from plotly.js's own
\`lib/\` entry points; core without annotations3d, images, updatemenus, sliders, rangeslider,
rangeselector and the world calendars, which no figure uses). The basic bundle draws every plot; the
cartesian one (adds heatmap) only a page with a heatmap. Their version is the plotly.js the plotly
Python package ships (\`plotly/package_data/plotly.min.js\`), which draws the exports.
NOTE
echo "built plotly.js $VERSION partial bundles into $DEST"
