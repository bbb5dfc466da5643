#!/usr/bin/env bash
# Browser test of the charts on static pages, offline: Debian's headless
# chromium (driven by node + playwright-core, no browser download, every
# request outside file:// and loopback refused; charts/browser/check.mjs)
# opens
#   (a) nbconvert 7's HTML export (the pinned .venv's, lab template) of a
#       notebook whose outputs are every view's bundle, in its light and its
#       dark theme — require.js on the page (the venv's own copy: nbconvert's
#       pages load it), so the library's AMD guard is exercised;
#   (b) a standalone report written by charts.NewReport(...).WriteHTML, and
#       the report of a real `conclab load --html` run against `conclab serve`;
#   (c) the JupyterLab test's chart notebook (jupyterlab/test/charts.ipynb:
#       14 charts, a Live chart, a problem box) exported by `conclab run
#       --html` and by `nbconvert --execute --to html` through the conclab
#       kernel;
# and checks every chart container was drawn by ECharts with data at a size
# (dark page: in the dark theme, readable), the page logged no errors and
# asked for nothing outside; then, with JavaScript off, that every chart
# shows its static SVG. Screenshots in .cache/charts/shots (gitignored).
# The live front ends — JupyterLab 4, Notebook 7, Voilà — are tested by
# scripts/test.d/45-jupyterlab.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
out=$root/.cache/charts
rm -rf "$out"
mkdir -p "$out/shots"
CONCLAB=${CONCLAB:-$root/bin/conclab}
py=$root/.venv/bin/python # the pinned environment (scripts/setup.d/20-python.sh)
[ -x "$py" ] || { echo "40-charts: $py missing: run scripts/setup.sh" >&2; exit 1; }
tmp=$(mktemp -d)
serve_pid=""
cleanup() {
  if [ -n "$serve_pid" ]; then kill -INT "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
# Only this tree's kernelspec and no user configuration.
"$CONCLAB" install --prefix "$tmp/prefix" >/dev/null
export JUPYTER_PATH=$tmp/prefix/share/jupyter
export JUPYTER_CONFIG_DIR=$tmp/config JUPYTER_DATA_DIR=$tmp/data JUPYTER_RUNTIME_DIR=$tmp/runtime IPYTHONDIR=$tmp/ipython

echo "-- charts: writing fixtures"
CONCLAB_CHARTS_FIXTURES=$out go test -count=1 -run '^TestWriteBrowserFixtures$' ./charts/ >/dev/null

# nbconvert's pages load require.js and MathJax from cdnjs: offline, require.js
# comes from the venv (Voilà's copy, the one its pages load) and MathJax is an
# empty stand-in (no chart needs it; the notebooks' math is not under test).
requirejs=$(find "$root/.venv/share/jupyter" -name require.min.js | head -1)
[ -n "$requirejs" ] || { echo "40-charts: no require.min.js in .venv/share/jupyter (Voilà ships one)" >&2; exit 1; }
: >"$out/mathjax-offline.js"
nbconvert() {
  "$py" -m jupyter nbconvert --to html --log-level=ERROR \
    --HTMLExporter.require_js_url="file://$requirejs" --HTMLExporter.mathjax_url="file://$out/mathjax-offline.js" "$@"
}
echo "-- charts: (a) nbconvert $("$py" -c 'import nbconvert; print(nbconvert.__version__)') export, light and dark"
nbconvert --output-dir "$out" "$out/notebook.ipynb"
nbconvert --theme dark --output notebook-dark --output-dir "$out" "$out/notebook.ipynb"

echo "-- charts: (b) conclab load --html against conclab serve (loopback, 1 s)"
"$CONCLAB" serve --strategy goroutines --workload sleep=5ms >"$out/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 50); do grep -q 'http://127.0.0.1:' "$out/serve.log" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$out/serve.log" | head -1)
[ -n "$url" ] || { echo "conclab serve did not start: $(cat "$out/serve.log")" >&2; exit 1; }
"$CONCLAB" load "$url/work" -c 4 -d 1s --html "$out/load.html" >/dev/null
kill -INT "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
serve_pid=""

echo "-- charts: (c) jupyterlab/test/charts.ipynb by conclab run --html and by nbconvert --execute through the kernel"
"$CONCLAB" run --out "$out/run" --html "$out/run" jupyterlab/test/charts.ipynb 2>"$out/run.log" \
  || { cat "$out/run.log" >&2; exit 1; }
"$py" -m jupyter nbconvert --execute --to notebook --log-level=ERROR \
  --ExecutePreprocessor.kernel_name=conclab --ExecutePreprocessor.timeout=120 \
  --output-dir "$out/nbc" jupyterlab/test/charts.ipynb
nbconvert --output-dir "$out/nbc" "$out/nbc/charts.ipynb"
for f in "$out/run/charts.ipynb" "$out/nbc/charts.ipynb"; do
  "$py" - "$f" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
mime = "application/vnd.conclab.echarts.v1+json"
n = sum(len(o["data"][mime]["charts"]) for c in nb["cells"] for o in c.get("outputs", []) if mime in o.get("data", {}))
err = [o["evalue"] for c in nb["cells"] for o in c.get("outputs", []) if o["output_type"] == "error"]
assert n == 14 and not err, "%s: %d charts in %s outputs (want 14), errors %s" % (sys.argv[1], n, mime, err)
print("40-charts: %s: 14 charts carry %s" % (sys.argv[1], mime))
PY
done

echo "-- charts: the pages in the browser"
node charts/browser/check.mjs --shots "$out/shots" --min-charts 12 \
  "nbconvert=file://$out/notebook.html" "report=file://$out/report.html"
node charts/browser/check.mjs --shots "$out/shots" --min-charts 12 --theme dark "nbconvert-dark=file://$out/notebook-dark.html"
node charts/browser/check.mjs --shots "$out/shots" --min-charts 3 "load-report=file://$out/load.html"
# Exactly 14: the Live chart updated in place shows once, its last update.
node charts/browser/check.mjs --shots "$out/shots" --charts 14 --subtext "update 3" \
  "conclab-run=file://$out/run/charts.html" "nbconvert-executed=file://$out/nbc/charts.html"
echo "-- charts: browser tests passed; screenshots in $out/shots"
