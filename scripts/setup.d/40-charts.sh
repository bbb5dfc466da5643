#!/usr/bin/env bash
# Copies the ECharts bundle from the npm package (installed by setup.sh's
# `npm ci` from package.json) into charts/assets, where `go:embed` builds it
# into the binary. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=node_modules/echarts/dist/echarts.min.js
if [ ! -f "$src" ]; then
  # The binary still builds; charts then look for the file at run time and
  # otherwise show their static SVG with a message naming this fix.
  echo "setup.d/40-charts: WARNING: $src missing (did npm ci run? package.json declares echarts); charts will not be interactive" >&2
  exit 0
fi
version=$(node -p 'require("./node_modules/echarts/package.json").version')
case "$version" in
  5.*) ;;
  *) echo "setup.d/40-charts: echarts $version installed, go-echarts v2.7.2 expects major 5" >&2; exit 1 ;;
esac
dst=charts/assets/echarts.min.js
if ! cmp -s "$src" "$dst"; then
  cp "$src" "$dst"
  echo "setup.d/40-charts: embedded echarts $version into charts/assets"
fi
printf '%s\n' "$version" > charts/assets/echarts.version.tmp
cmp -s charts/assets/echarts.version.tmp charts/assets/echarts.version 2>/dev/null \
  && rm charts/assets/echarts.version.tmp \
  || mv charts/assets/echarts.version.tmp charts/assets/echarts.version
