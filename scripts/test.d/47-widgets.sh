#!/usr/bin/env bash
# Widgets and comms (docs/widgets.md): the packages' Go tests (widgets,
# kernel/comm, display's capture); the kernel through jupyter_client from
# .venv (kernel/testdata/test_widgets.py: comm_info, a forged comm_msg, a bad
# widget state, 1,000 rapid value changes, a change mid-run, a Stop button
# on the comm queue and on a subshell, request_states, a custom comm target
# with binary buffers, subshells); then in Debian's chromium through
# playwright-core (widgets/browser/widgets.mjs) on the pinned JupyterLab 4.6
# and Notebook 7.6, each started from .venv with a private JUPYTER_* tree,
# a token, on 127.0.0.1 and a free port, with the kernelspec of a fresh
# build installed by `conclab install --prefix`: drag a slider and see the
# Interact cell re-run and its waterfall change, click Stop during a 30 s
# bench.Run (stopped within 1 s, its servers gone), a live chart updated in
# place and saved as one chart equal to the static one, save and reload (the
# widgets back with their values), restart the kernel (the page shows it, no
# dialog left); then Voilà 0.5.13 started by scripts/voila.sh on its default
# try-it notebook (widgets/browser/voila.mjs: drag, Stop, the values in the
# page's address, reload → the values back and the run redrawn for them, a
# killed kernel → the page says so, the address reopened in a new tab with
# bad values → ignored with notes, its kernel shut down → the page says so). Screenshots in .cache/widgets/shots (gitignored). Every server and
# kernel it starts is stopped at the end, and checked gone. 2–4 minutes
# on the shared 2-core machine under load.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
py=$root/.venv/bin/python
shots=$root/.cache/widgets/shots
rm -rf "$shots"
mkdir -p "$shots"
tmp=$(mktemp -d)
spid=""
stop_server() {
  if [ -n "$spid" ] && kill -0 "$spid" 2>/dev/null; then
    kill -TERM "$spid" 2>/dev/null || true # jupyter-server shuts its kernels down on SIGTERM
    for _ in $(seq 100); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$spid" 2>/dev/null || true
  fi
  spid=""
}
leftover_kernels() { # pids of conclab kernels started with a connection file under $tmp
  pgrep -f "conclab kernel $tmp/" || true
}
cleanup() {
  stop_server
  for p in $(leftover_kernels); do kill -9 "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/conclab" ./cmd/conclab
"$tmp/conclab" install --prefix "$tmp/prefix" >/dev/null
export JUPYTER_PATH="$tmp/prefix/share/jupyter"
export JUPYTER_RUNTIME_DIR="$tmp/runtime"

echo "-- Go: widgets, kernel/comm, display's capture"
go test -count=1 ./widgets/ ./kernel/comm/ ./display/

echo "-- through jupyter_client: comm_info, a forged comm_msg, a bad state, 1,000 changes, Stop on the comm queue and a subshell, request_states, binary buffers, subshells"
(cd kernel/testdata && $py -m unittest -v test_widgets 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules') | tee "$tmp/widgets.log"
grep -q '^OK$' "$tmp/widgets.log" || { echo "FAIL: widget tests through jupyter_client" >&2; exit 1; }
if grep -q 'skipped' "$tmp/widgets.log"; then echo "FAIL: a widget test was skipped" >&2; exit 1; fi

# browser UI: starts the pinned front end UI (lab | notebook) from .venv on
# a copy of the test notebook and runs widgets/browser/widgets.mjs on it.
browser() {
  local ui=$1 home=$tmp/$1
  mkdir -p "$home/notebooks" "$home/config/lab/user-settings/@jupyterlab/apputils-extension" "$home/data"
  cp widgets/testdata/widgets-browser.ipynb "$home/notebooks/"
  # No news or update checks: nothing leaves loopback, and no toast covers the page.
  echo '{"fetchNews": "false", "checkForUpdates": false}' \
    >"$home/config/lab/user-settings/@jupyterlab/apputils-extension/notification.jupyterlab-settings"
  local port token
  port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  token=$($py -c 'import secrets; print(secrets.token_hex(24))')
  local root_flag=()
  [ "$(id -u)" -ne 0 ] || root_flag=(--allow-root)
  JUPYTER_CONFIG_DIR=$home/config JUPYTER_DATA_DIR=$home/data \
    "$root/.venv/bin/jupyter" "$ui" --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port="$port" \
    --IdentityProvider.token="$token" --ServerApp.root_dir="$home/notebooks" --expose-app-in-browser \
    "${root_flag[@]}" >"$home/server.log" 2>&1 &
  spid=$!
  local up=""
  for _ in $(seq 300); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/kernelspecs?token=$token")" = 200 ]; then up=1; break; fi
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$up" ]; then
    echo "47-widgets: jupyter $ui did not start; its log:" >&2
    tail -30 "$home/server.log" >&2
    exit 1
  fi
  curl -s "http://127.0.0.1:$port/api/kernelspecs?token=$token" | grep -q '"display_name": "Go (conclab)"' \
    || { echo "47-widgets: jupyter $ui does not list the Go (conclab) kernel" >&2; exit 1; }
  echo "-- $ui ($("$root/.venv/bin/jupyter" "$ui" --version 2>/dev/null | tail -1)) on 127.0.0.1:$port"
  local rc=0
  node widgets/browser/widgets.mjs --ui "$ui" --url "http://127.0.0.1:$port" --token "$token" --shots "$shots" || rc=$?
  stop_server
  local left
  left=$(leftover_kernels)
  if [ -n "$left" ]; then
    echo "FAIL: conclab kernel(s) $left outlived the $ui server" >&2
    exit 1
  fi
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: widgets in $ui (server log: $(grep -c . "$home/server.log") lines; last:)" >&2
    tail -15 "$home/server.log" >&2
    exit 1
  fi
}
browser lab
browser notebook

# Voilà: scripts/voila.sh serves the try-it notebook (its default) on
# 127.0.0.1 and a free port with a token, its Jupyter dirs under $tmp;
# widgets/browser/voila.mjs drives the page (drag, Stop, reload with the
# values kept in the address, a killed kernel, bad values, a shut-down
# kernel). Kernels whose page is gone are culled after 6 s here (voila.sh's
# CONCLAB_VOILA_CULL; Voilà's own unload shutdown is refused, voila#1458).
voila() {
  local home=$tmp/voila port token
  port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  token=$($py -c 'import secrets; print(secrets.token_hex(24))')
  CONCLAB_VOILA_HOME=$home CONCLAB_VOILA_CULL=6 JUPYTER_TOKEN=$token bash scripts/voila.sh --port "$port" >"$tmp/voila.log" 2>&1 &
  spid=$!
  local up=""
  for _ in $(seq 1200); do # 2 minutes: a loaded machine's first start is slow
    if grep -q 'Voilà is running at' "$tmp/voila.log"; then up=1; break; fi
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$up" ]; then
    echo "47-widgets: scripts/voila.sh did not start; its log:" >&2
    tail -30 "$tmp/voila.log" >&2
    exit 1
  fi
  echo "-- voila ($($py -c 'import voila; print(voila.__version__)')) on 127.0.0.1:$port: widgets/testdata/tryit.ipynb"
  local rc=0
  node widgets/browser/voila.mjs --url "http://127.0.0.1:$port" --token "$token" --runtime "$home/runtime" --shots "$shots" --cull 6 || rc=$?
  stop_server
  local left
  left=$(leftover_kernels)
  if [ -n "$left" ]; then
    echo "FAIL: conclab kernel(s) $left outlived the Voilà server" >&2
    exit 1
  fi
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: widgets in Voilà (server log, last lines:)" >&2
    tail -15 "$tmp/voila.log" >&2
    exit 1
  fi
}
voila
echo "== widgets suite passed (screenshots in .cache/widgets/shots)"
