#!/usr/bin/env bash
# Session replay: the real conclab kernel (a fresh build of this tree, its
# kernelspec installed with `conclab install --prefix` into a temp
# JUPYTER_PATH) driven through jupyter_client (the pinned .venv) the
# way people use a notebook, over every notebook in notebooks/: run all
# cells; run all again, interrupting the first long cell mid-run and running
# it again on the way; restart, run a later cell first ("undefined: x"), then
# run all; shut down with no process left behind. The driver is scripts/replay/replay.py;
# it prints each phase's time per notebook.
#
# Quick mode, as `conclab run --quick`: each notebook replayed is a copy with
# its metadata's quick parameters injected (scripts/quick-params.py) and the
# kernels get CONCLAB_QUICK=1. The English editions only: a Korean edition's
# code cells are the English ones byte for byte (scripts/check-editions.py),
# and 50-notebook runs it headless. The real-CPython
# sections are skipped (CONCLAB_PYTHON points nowhere; 50-notebook's
# `conclab run` and nbconvert passes and 45-jupyterlab run them), and the
# lessons whose metadata says conclab.python = "required" are left to those,
# unless REPLAY_PYTHON=1 (then every notebook, with Python). REPLAY_NOTEBOOKS="a.ipynb
# b.ipynb" replays only those; REPLAY_SKIP=1 skips the suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=$(pwd)/.venv/bin/python # the pinned environment (scripts/setup.d/20-python.sh)
[ "${REPLAY_SKIP:-}" = 1 ] && { echo "55-replay: skipped (REPLAY_SKIP=1)"; exit 0; }
tmp=$(mktemp -d)
serve_pid=
cleanup() {
  if [ -n "$serve_pid" ]; then kill -INT "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "55-replay: $*" >&2; exit 1; }

mkdir -p "$tmp/bin"
go build -o "$tmp/bin/conclab" ./cmd/conclab || fail "building conclab failed"
"$tmp/bin/conclab" install --prefix "$tmp/prefix" >/dev/null || fail "conclab install --prefix failed"
# Only this kernelspec and no user configuration: Jupyter's directories in the temp dir.
export JUPYTER_PATH=$tmp/prefix/share/jupyter JUPYTER_RUNTIME_DIR=$tmp/runtime
export JUPYTER_CONFIG_DIR=$tmp/config JUPYTER_DATA_DIR=$tmp/data IPYTHONDIR=$tmp/ipython
specs=$("$py" -m jupyter kernelspec list 2>/dev/null) || fail "jupyter kernelspec list failed"
grep -qF "$tmp/prefix/share/jupyter/kernels/conclab" <<<"$specs" \
  || fail "jupyter does not find the conclab kernelspec in $tmp/prefix: $specs"

if [ "${REPLAY_PYTHON:-}" != 1 ]; then
  export CONCLAB_PYTHON=/nonexistent/python3
fi
# byo-server measures "your own server" when CONCLAB_BYO_URL is set: a
# `conclab serve` stands in for it.
"$tmp/bin/conclab" serve --strategy goroutines --workload sleep=50ms >"$tmp/serve.log" 2>&1 &
serve_pid=$!
for _ in $(seq 50); do grep -q 'http://127.0.0.1:' "$tmp/serve.log" && break; sleep 0.1; done
byo=$(grep -o 'http://127.0.0.1:[0-9]*' "$tmp/serve.log" | head -1) || fail "conclab serve did not start: $(cat "$tmp/serve.log")"
export CONCLAB_BYO_URL=$byo/work

if [ -n "${REPLAY_NOTEBOOKS:-}" ]; then
  read -r -a nbs <<<"$REPLAY_NOTEBOOKS"
elif [ "${REPLAY_PYTHON:-}" = 1 ]; then
  nbs=(notebooks/*.ipynb)
else
  # Without Python, the lessons that run without it: a lesson whose model
  # needs this machine's CPython costs says so in its metadata
  # (conclab.python = "required"; 50-notebook runs it, with Python).
  mapfile -t nbs < <("$py" - notebooks/*.ipynb <<'PY'
import json, sys
for p in sys.argv[1:]:
    if json.load(open(p, encoding="utf-8"))["metadata"].get("conclab", {}).get("python") != "required":
        print(p)
PY
)
fi
[ -e "${nbs[0]}" ] || { echo "55-replay: no notebooks"; exit 0; }
"$py" scripts/quick-params.py "$tmp/quick" "${nbs[@]}" || fail "injecting the quick parameters failed"
quick=()
for nb in "${nbs[@]}"; do quick+=("$tmp/quick/$(basename "$nb")"); done
"$py" scripts/replay/replay.py --quick "${quick[@]}" || fail "session replay failed"
echo "55-replay: ok"
