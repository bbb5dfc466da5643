#!/usr/bin/env bash
# Browser test of the charts, offline: Debian's headless chromium (driven by
# node + playwright-core, no browser download, every request outside file://
# and 127.0.0.1 refused) opens
#   (a) an nbconvert HTML export of a notebook whose outputs are chart bundles
#       (nbconvert's own page, with require.js loaded, as Notebook 6 has it),
#   (b) a standalone report written by charts.NewReport(...).WriteHTML, and
#       the report of a real `conclab load --html` run against `conclab serve`,
#   (c) a live classic Notebook 6 server running the conclab kernel on a chart
#       cell (a direct chart, a Live output updated in place, bad input), then
#       re-run, reload, second tab, interrupt, restart, save and reopen (the
#       widgets nbextension Notebook 6 always asks for comes from Debian's
#       python3-widgetsnbextension, installed by scripts/setup.sh),
# and checks every chart container was initialised by ECharts, drew non-blank
# pixels, and the page logged no errors. Screenshots are kept in
# .cache/charts/shots (gitignored). Set CHARTS_SKIP_NOTEBOOK=1 to skip (c).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
out=$root/.cache/charts
rm -rf "$out"
mkdir -p "$out/shots"
CONCLAB=${CONCLAB:-$root/bin/conclab}

echo "-- charts: writing fixtures"
CONCLAB_CHARTS_FIXTURES=$out go test -count=1 -run '^TestWriteBrowserFixtures$' ./charts/ >/dev/null

echo "-- charts: nbconvert export (require.js and MathJax from Debian's packages, not a CDN)"
(cd "$out" && jupyter nbconvert --to html --log-level=ERROR \
  --HTMLExporter.require_js_url=file:///usr/share/javascript/requirejs/require.min.js \
  --HTMLExporter.mathjax_url=file:///usr/share/javascript/mathjax/MathJax.js \
  notebook.ipynb)

echo "-- charts: conclab load --html against conclab serve (loopback, 1 s)"
"$CONCLAB" serve --strategy goroutines --workload sleep=5ms >"$out/serve.log" 2>&1 &
serve_pid=$!
trap 'kill -INT $serve_pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q 'http://127.0.0.1:' "$out/serve.log" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$out/serve.log" | head -1)
[ -n "$url" ] || { echo "conclab serve did not start: $(cat "$out/serve.log")" >&2; exit 1; }
"$CONCLAB" load "$url/work" -c 4 -d 1s --html "$out/load.html" >/dev/null
kill -INT $serve_pid; wait $serve_pid 2>/dev/null || true
trap - EXIT

echo "-- charts: (a) nbconvert export, (b) standalone report and conclab load's report"
node charts/browser/check.mjs --shots "$out/shots" --min-charts 10 \
  "nbconvert=file://$out/notebook.html" "report=file://$out/report.html"
node charts/browser/check.mjs --shots "$out/shots" --min-charts 3 "load-report=file://$out/load.html"

if [ "${CHARTS_SKIP_NOTEBOOK:-}" = 1 ]; then
  echo "-- charts: (c) live Notebook 6 skipped (CHARTS_SKIP_NOTEBOOK=1)"
  exit 0
fi

echo "-- charts: (c) live classic Notebook 6 with the conclab kernel"
if [ "$CONCLAB" = "$root/bin/conclab" ] && [ ! -f internal/symbols/gen_github_com_conclab_conclab_charts.go ]; then
  echo "charts: the charts package is not linked into the interpreter yet: run 'go generate ./internal/symbols' and rebuild bin/conclab" >&2
  exit 1
fi
tmp=$(mktemp -d)
jpid=""
cleanup() {
  if [ -n "$jpid" ] && kill -0 "$jpid" 2>/dev/null; then
    kill "$jpid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$jpid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$jpid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
"$CONCLAB" install --prefix "$tmp/prefix" >/dev/null
export JUPYTER_PATH=$tmp/prefix/share/jupyter
export JUPYTER_CONFIG_DIR=$tmp/config JUPYTER_DATA_DIR=$tmp/data JUPYTER_RUNTIME_DIR=$tmp/runtime
export IPYTHONDIR=$tmp/ipython
mkdir -p "$tmp/nb"
python3 - "$tmp/nb/charts.ipynb" <<'EOF'
import json, sys
cells = [
    'import (\n\t"time"\n\n\t"github.com/conclab/conclab/bench"\n\t"github.com/conclab/conclab/bench/frame"\n'
    '\t"github.com/conclab/conclab/bench/load"\n\t"github.com/conclab/conclab/charts"\n\t"github.com/conclab/conclab/kernel/cell"\n)\n'
    'var _ = time.Second // the flows add a cell that runs a benchmark with these',
    'f := frame.New("live")\n'
    'f.MustAppend(frame.Row{"strategy": "sync", "rps": 9.8, "avg_ms": 5100.0, "med_ms": 5000.0, "p95_ms": 9100.0, "p99_ms": 9900.0})\n'
    'f.MustAppend(frame.Row{"strategy": "goroutines", "rps": 970.0, "avg_ms": 102.0, "med_ms": 101.0, "p95_ms": 180.0, "p99_ms": 199.0})\n'
    'charts.Throughput(f)',
    'live := charts.NewLive()\n'
    'for i := 1; i <= 3; i++ {\n\tlive.Show(charts.Latency(f).LogY().Subtitle(fmt.Sprint("update ", i)))\n}',
    'charts.Throughput(frame.New("empty"))',
]
nb = {"nbformat": 4, "nbformat_minor": 5,
      "metadata": {"kernelspec": {"name": "conclab", "display_name": "Go (conclab)", "language": "go"}},
      "cells": [{"cell_type": "code", "id": "cell-%d" % i, "metadata": {}, "execution_count": None, "outputs": [], "source": c} for i, c in enumerate(cells)]}
json.dump(nb, open(sys.argv[1], "w"))
EOF
root_flag=()
[ "$(id -u)" = 0 ] && root_flag=(--allow-root)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
jupyter notebook --no-browser --ip=127.0.0.1 --port="$port" --port-retries=0 \
  --NotebookApp.token='' --NotebookApp.password='' --NotebookApp.open_browser=False \
  "${root_flag[@]}" --notebook-dir="$tmp/nb" >"$out/notebook-server.log" 2>&1 &
jpid=$!
up=""
for _ in $(seq 150); do
  if curl -sf "http://127.0.0.1:$port/api" >/dev/null 2>&1; then up=1; break; fi
  kill -0 "$jpid" 2>/dev/null || break
  sleep 0.2
done
if [ -z "$up" ]; then
  echo "charts: jupyter notebook did not start; its log:" >&2
  tail -20 "$out/notebook-server.log" >&2
  exit 1
fi
# Exactly two charts: Throughput, and the Live chart updated in place (three
# appended outputs would make four) showing its last update. Then the flows a
# user meets with a kernel that outlives pages (charts/browser/notebook6.mjs):
# re-run, reload, second tab, interrupt, restart, save and reopen.
node charts/browser/notebook6.mjs --shots "$out/shots" --charts 2 --subtext "update 3" --chart-cell 1 --bench \
  "notebook6=http://127.0.0.1:$port/notebooks/charts.ipynb"
saved=$(stat -c %s "$tmp/nb/charts.ipynb")
[ "$saved" -lt 2097152 ] || { echo "charts: the saved notebook is $saved bytes (limit 2 MiB)" >&2; exit 1; }
echo "-- charts: saved notebook with its outputs: $(( saved / 1024 )) KiB"
echo "-- charts: browser tests passed; screenshots in $out/shots"
