#!/usr/bin/env bash
# Browser tests of conclab's JupyterLab: `scripts/jupyterlab.sh` (JupyterLab
# 3.6 built by scripts/setup.d/50-jupyterlab.sh, on Debian's jupyter-server
# and jupyterlab-server) on a free loopback port with a token, on a copy of
# notebooks/, the conclab kernel in quick mode (CONCLAB_QUICK=1 in the
# server's, hence the kernels', environment); then jupyterlab/test/lab.mjs
# drives Debian's chromium through playwright-core (every request outside
# loopback refused): Run All from the Run menu on two representative lab
# notebooks — the quickstart, and 000-print (a source notebook with the most
# chart kinds: source vs measured, latency, waterfall, lanes, model vs real
# CPython) — charts drawn, no cell or console error, saved sizes under 2 MB;
# and on the quickstart the re-run, reload, second-tab, interrupt, restart and
# save/close/reopen flows. (Every notebook is run through the kernel by
# 55-replay and headless by 50-notebook, whose browser check draws every
# chart and which holds every executed notebook under 2 MB.) Screenshots in
# .cache/jupyterlab/shots (gitignored). Every process it starts is stopped at
# the end. JUPYTERLAB_NOTEBOOKS="a.ipynb b.ipynb" picks the notebooks
# (JUPYTERLAB_NOTEBOOKS=all: every notebook in notebooks/).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
out=$root/.cache/jupyterlab
rm -rf "$out/shots" "$out/server.log"
mkdir -p "$out/shots"
if [ ! -f jupyterlab/build/bundle.js ]; then
  echo "45-jupyterlab: jupyterlab/build is missing: run scripts/setup.sh" >&2
  exit 1
fi
tmp=$(mktemp -d)
spid=""
cleanup() {
  if [ -n "$spid" ] && kill -0 "$spid" 2>/dev/null; then
    kill -TERM "$spid" 2>/dev/null || true # jupyter-server shuts its kernels down on SIGTERM
    for _ in $(seq 100); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$spid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/notebooks"
cp notebooks/*.ipynb "$tmp/notebooks/"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
token=$(/usr/bin/python3 -c 'import secrets; print(secrets.token_hex(24))')
t0=$(date +%s)
CONCLAB_LAB_HOME=$tmp/lab JUPYTER_TOKEN=$token CONCLAB_QUICK=1 \
  bash scripts/jupyterlab.sh --port "$port" --notebook-dir "$tmp/notebooks" >"$out/server.log" 2>&1 &
spid=$!
url=""
for _ in $(seq 300); do
  url=$(grep -o 'is at http://127.0.0.1:[0-9]*/lab' "$out/server.log" | head -1 | sed 's/^is at //') || true
  [ -n "$url" ] && break
  kill -0 "$spid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "45-jupyterlab: scripts/jupyterlab.sh did not start; its log:" >&2
  tail -30 "$out/server.log" >&2
  exit 1
fi
base=${url%/lab}
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/kernelspecs?token=$token" || true)
[ "$code" = 200 ] || { echo "45-jupyterlab: /api/kernelspecs answered $code" >&2; exit 1; }
curl -s "$base/api/kernelspecs?token=$token" | grep -q '"display_name": "Go (conclab)"' \
  || { echo "45-jupyterlab: the server does not list the Go (conclab) kernel" >&2; exit 1; }
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/kernelspecs" || true)
[ "$code" = 403 ] || { echo "45-jupyterlab: the API answered $code without the token (want 403)" >&2; exit 1; }
echo "-- jupyterlab: up at $url in $(( $(date +%s) - t0 )) s"

nbs=()
if [ "${JUPYTERLAB_NOTEBOOKS:-}" = all ]; then
  for f in "$tmp"/notebooks/*.ipynb; do nbs+=("$(basename "$f")"); done
else
  read -r -a nbs <<<"${JUPYTERLAB_NOTEBOOKS:-00-quickstart.ipynb 000-print.ipynb}"
fi
for nb in "${nbs[@]}"; do
  [ -f "$tmp/notebooks/$nb" ] || { echo "45-jupyterlab: no notebook notebooks/$nb" >&2; exit 1; }
done
t1=$(date +%s)
node jupyterlab/test/lab.mjs --url "$base" --token "$token" --dir "$tmp/notebooks" --shots "$out/shots" \
  --flows 00-quickstart.ipynb "${nbs[@]}"
echo "-- jupyterlab: browser tests passed in $(( $(date +%s) - t1 )) s; screenshots in $out/shots"

# Stopping the server stops every kernel it started (their connection files
# are in $tmp/lab/runtime): none may outlive it.
kill -TERM "$spid"
for _ in $(seq 100); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$spid" 2>/dev/null; then
  echo "45-jupyterlab: the server did not stop within 10 s of SIGTERM" >&2
  exit 1 # cleanup kills it
fi
spid=""
sleep 0.5
command -v pgrep >/dev/null || { echo "45-jupyterlab: pgrep (procps) missing: cannot check for leftover kernels" >&2; exit 1; }
if left=$(pgrep -f -- "$tmp/lab/runtime/kernel-"); then
  echo "45-jupyterlab: kernels left running after the server stopped: $left" >&2
  exit 1
fi
echo "-- jupyterlab: server stopped, no kernel left"
