#!/usr/bin/env bash
# Browser tests of conclab in today's Jupyter front ends, from the pinned
# environment: JupyterLab 4.6 (scripts/jupyterlab.sh) and Notebook 7.6
# (scripts/notebook.sh), each on a free loopback port with a token, on a copy
# of notebooks/ and jupyterlab/test/charts.ipynb, the conclab kernel in quick
# mode (copies with each notebook's quick parameters injected, and
# CONCLAB_QUICK=1 in the servers', hence the kernels', environment), and
# Voilà 0.5 on the JupyterLab server. Checks the API lists the Go (conclab)
# kernel, refuses requests without the token and that both pages load
# conclab's chart extension; then drives Debian's chromium through
# playwright-core (every request outside loopback refused):
#   jupyterlab/test/charts.mjs — charts.ipynb's 14 charts in JupyterLab and
#     Notebook 7: Run All, scrolled out of view and back (windowing, three
#     modes in JupyterLab), panel and window resized, reload, second tab, a
#     copy opened from disk (untrusted), dark and light themes, Go's tabs;
#     and in Voilà;
#   jupyterlab/test/lab.mjs — Run All on two representative lab notebooks,
#     the quickstart and 000-print (a source notebook with the most chart
#     kinds), charts drawn, no cell or console error, saved sizes under 2 MB;
#     and on the quickstart the re-run, reload, second-tab, completion,
#     tooltip, interrupt, restart and save/close/reopen flows.
# (Every notebook is run through the kernel by 55-replay and headless by
# 50-notebook, whose browser check draws every chart.) Screenshots in
# .cache/jupyterlab/shots (gitignored), the servers' logs beside them. Every
# process it starts is stopped at the end, and no kernel may outlive its
# server. JUPYTERLAB_NOTEBOOKS="a.ipynb b.ipynb" picks lab.mjs's notebooks
# (JUPYTERLAB_NOTEBOOKS=all: every notebook in notebooks/); CHARTS_ONLY
# (lab,windowing,notebook,voila) picks charts.mjs's parts.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
out=$root/.cache/jupyterlab
rm -rf "$out"
mkdir -p "$out/shots"
py=$root/.venv/bin/python
[ -x "$py" ] && [ -x bin/conclab ] || { echo "45-jupyterlab: .venv or bin/conclab missing: run scripts/setup.sh" >&2; exit 1; }
tmp=$(mktemp -d)
pids=()
stop() { # stop PID: SIGTERM (jupyter-server shuts its kernels down), then SIGKILL after 10 s
  local pid=$1
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  return 1
}
cleanup() {
  for pid in "${pids[@]}"; do stop "$pid" || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/notebooks"
# The lessons with their quick parameters injected (scripts/quick-params.py),
# as `conclab run --quick` runs them; CONCLAB_QUICK=1 below as it sets it.
"$py" scripts/quick-params.py "$tmp/notebooks" notebooks/*.ipynb >/dev/null
cp jupyterlab/test/charts.ipynb "$tmp/notebooks/"
free_port() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
token=$("$py" -c 'import secrets; print(secrets.token_hex(24))')
# start NAME SCRIPT PORT: a server from SCRIPT with its own Jupyter dirs
# ($tmp/NAME), the application exposed to the tests (window.jupyterapp).
start() {
  local name=$1 script=$2 port=$3
  CONCLAB_LAB_HOME=$tmp/$name JUPYTER_TOKEN=$token CONCLAB_QUICK=1 \
    bash "$script" --port "$port" --notebook-dir "$tmp/notebooks" \
    --LabApp.expose_app_in_browser=True --JupyterNotebookApp.expose_app_in_browser=True \
    >"$out/$name-server.log" 2>&1 &
  pids+=($!)
}
wait_up() { # wait_up NAME PORT PID
  for _ in $(seq 600); do
    curl -sf "http://127.0.0.1:$2/api/status?token=$token" >/dev/null 2>&1 && return 0
    kill -0 "$3" 2>/dev/null || break
    sleep 0.2
  done
  echo "45-jupyterlab: $1 did not start; its log:" >&2
  tail -30 "$out/$1-server.log" >&2
  exit 1
}
t0=$(date +%s)
lab_port=$(free_port)
start lab scripts/jupyterlab.sh "$lab_port"
wait_up lab "$lab_port" "${pids[0]}"
nb_port=$(free_port)
start notebook scripts/notebook.sh "$nb_port"
wait_up notebook "$nb_port" "${pids[1]}"
echo "-- jupyterlab: JupyterLab on $lab_port and Notebook 7 on $nb_port up in $(( $(date +%s) - t0 )) s"
grep -h 'is at http://127.0.0.1' "$out"/lab-server.log "$out"/notebook-server.log | sed "s/$token/TOKEN/"

for port in "$lab_port" "$nb_port"; do
  base=http://127.0.0.1:$port
  curl -s "$base/api/kernelspecs?token=$token" | grep -q '"display_name": "Go (conclab)"' \
    || { echo "45-jupyterlab: the server on $port does not list the Go (conclab) kernel" >&2; exit 1; }
  code=$(curl -s -o /dev/null -w '%{http_code}' "$base/api/kernelspecs" || true)
  [ "$code" = 403 ] || { echo "45-jupyterlab: the API on $port answered $code without the token (want 403)" >&2; exit 1; }
done
# Both pages load the prebuilt extension (their page config lists it).
for page in "http://127.0.0.1:$lab_port/lab" "http://127.0.0.1:$nb_port/tree"; do
  curl -s "$page?token=$token" | grep -q '@conclab/jupyterlab-charts' \
    || { echo "45-jupyterlab: $page does not load @conclab/jupyterlab-charts" >&2; exit 1; }
done
echo "-- jupyterlab: both list the Go (conclab) kernel, refuse requests without the token, load @conclab/jupyterlab-charts"

t1=$(date +%s)
node jupyterlab/test/charts.mjs --lab "http://127.0.0.1:$lab_port" --notebook "http://127.0.0.1:$nb_port" \
  --token "$token" --dir "$tmp/notebooks" --shots "$out/shots/charts"
echo "-- jupyterlab: charts in JupyterLab, Notebook 7 and Voilà passed in $(( $(date +%s) - t1 )) s"

nbs=()
if [ "${JUPYTERLAB_NOTEBOOKS:-}" = all ]; then
  for f in notebooks/*.ipynb; do nbs+=("$(basename "$f")"); done
else
  read -r -a nbs <<<"${JUPYTERLAB_NOTEBOOKS:-00-quickstart.ipynb 000-print.ipynb}"
fi
for nb in "${nbs[@]}"; do
  [ -f "$tmp/notebooks/$nb" ] || { echo "45-jupyterlab: no notebook notebooks/$nb" >&2; exit 1; }
done
t1=$(date +%s)
node jupyterlab/test/lab.mjs --url "http://127.0.0.1:$lab_port" --token "$token" --dir "$tmp/notebooks" \
  --shots "$out/shots/lab" --flows 00-quickstart.ipynb "${nbs[@]}"
echo "-- jupyterlab: notebook flows in JupyterLab passed in $(( $(date +%s) - t1 )) s; screenshots in $out/shots"

# Stopping a server stops every kernel it started (their connection files
# are in its runtime dir): none may outlive it.
for i in "${!pids[@]}"; do
  stop "${pids[$i]}" || { echo "45-jupyterlab: a server did not stop within 10 s of SIGTERM" >&2; exit 1; }
done
pids=()
sleep 0.5
command -v pgrep >/dev/null || { echo "45-jupyterlab: pgrep (procps) missing: cannot check for leftover kernels" >&2; exit 1; }
if left=$(pgrep -f -- "$tmp/(lab|notebook)/runtime/kernel-"); then
  echo "45-jupyterlab: kernels left running after the servers stopped: $left" >&2
  exit 1
fi
echo "-- jupyterlab: servers stopped, no kernel left"
