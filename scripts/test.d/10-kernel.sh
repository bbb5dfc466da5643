#!/usr/bin/env bash
# The conclab kernel's integration suite: generated symbols up to date; bad
# input to `conclab kernel`; the kernelspec install; Jupyter's conformance
# suite (jupyter_kernel_test 0.7, IOPub welcome included); interactive
# sessions through jupyter_client (test_session_rerun.py), an interrupt
# leaving no process, port or goroutine (test_interrupt_cleanup.py), the cell
# idioms (test_cell_idioms.py) and bench.Run's live progress on a burst of the
# quickstart's endpoints (test_progress_seed.py; helpers in kernel_client.py);
# notebook parameters under papermill and conclab run -p (test_parameters.py);
# a notebook run by nbconvert through the kernel; the same notebooks through
# the kernel and `conclab run` give the same outputs (compare_outputs.py); the
# go run corpus through the kernel (test_gorun_corpus.py); on Go 1.27
# (GOTOOLCHAIN=go1.27.3) the kernel packages (the go run corpus against Go
# 1.27's go run among them) and the quickstart notebook (conclab run --quick:
# its metadata's quick parameters).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
py=$root/.venv/bin/python
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A fresh build of this tree (a conclab on PATH may be stale); the kernelspec
# points at it.
go build -o "$tmp/conclab" ./cmd/conclab
conclab="$tmp/conclab"

echo "-- generated interpreter symbols are up to date"
bash scripts/check-generated.sh

echo "-- conclab version"
"$conclab" version

echo "-- bad input: clear message, non-zero exit, no stack trace"
expect_fail() { # expect_fail WANT ARGS...
  local want=$1; shift
  local out code=0
  out=$("$conclab" "$@" 2>&1) || code=$?
  if [ "$code" -eq 0 ] || ! grep -q -- "$want" <<<"$out" || grep -q 'goroutine [0-9]' <<<"$out"; then
    echo "FAIL: conclab $* -> exit $code, output: $out (want non-zero exit mentioning '$want', no stack trace)" >&2
    exit 1
  fi
  echo "ok: conclab $* -> exit $code: $(head -1 <<<"$out")"
}
expect_fail "does not exist" kernel "$tmp/missing.json"
echo '{not json' >"$tmp/bad.json"
expect_fail "not valid JSON" kernel "$tmp/bad.json"
good='{"transport":"tcp","ip":"127.0.0.1","shell_port":PORT,"iopub_port":0,"stdin_port":0,"control_port":0,"hb_port":0,"signature_scheme":"hmac-sha256","key":"k"}'
ports=$($py -c 'import socket
ss=[socket.socket() for _ in range(5)]
[s.bind(("127.0.0.1",0)) for s in ss]
print(" ".join(str(s.getsockname()[1]) for s in ss))')
read -r p1 p2 p3 p4 p5 <<<"$ports"
conn() { # conn SCHEME SHELLPORT
  printf '{"transport":"tcp","ip":"127.0.0.1","shell_port":%s,"iopub_port":%s,"stdin_port":%s,"control_port":%s,"hb_port":%s,"signature_scheme":"%s","key":"k"}' "$2" "$p2" "$p3" "$p4" "$p5" "$1"
}
conn hmac-md5 "$p1" >"$tmp/scheme.json"
expect_fail "unsupported signature_scheme" kernel "$tmp/scheme.json"
if [ "$(id -u)" -ne 0 ]; then
  conn hmac-sha256 "$p1" >"$tmp/unreadable.json"; chmod 000 "$tmp/unreadable.json"
  expect_fail "not readable" kernel "$tmp/unreadable.json"
fi
conn hmac-sha256 "$p1" >"$tmp/inuse.json"
$py -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
time.sleep(30)' "$p1" &
holder=$!
sleep 0.5
expect_fail "shell port $p1" kernel "$tmp/inuse.json"
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true

echo "-- conclab install --prefix"
"$conclab" install --prefix "$tmp/prefix"
export JUPYTER_PATH="$tmp/prefix/share/jupyter"
export JUPYTER_RUNTIME_DIR="$tmp/runtime"
for f in kernel.json logo-32x32.png logo-64x64.png; do
  test -s "$tmp/prefix/share/jupyter/kernels/conclab/$f" || { echo "FAIL: kernelspec lacks $f" >&2; exit 1; }
done
specs=$("$py" -m jupyter kernelspec list 2>/dev/null)
grep -q "conclab" <<<"$specs" || { echo "FAIL: jupyter kernelspec list does not show conclab: $specs" >&2; exit 1; }
echo "ok: jupyter kernelspec list shows conclab"

echo "-- jupyter_kernel_test conformance suite"
(cd kernel/testdata && $py -m unittest -v test_conclab_kernel 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules' ) | tee "$tmp/jkt.log"
grep -q '^OK$' "$tmp/jkt.log" || { echo "FAIL: jupyter_kernel_test" >&2; exit 1; }
if grep -q 'skipped' "$tmp/jkt.log"; then echo "FAIL: a conformance test was skipped" >&2; exit 1; fi

echo "-- interrupt (message and SIGINT), streaming, stdin, restart through jupyter_client"
(cd kernel/testdata && $py -m unittest -v test_kernel_behaviour 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules' ) | tee "$tmp/beh.log"
grep -q '^OK$' "$tmp/beh.log" || { echo "FAIL: kernel behaviour tests" >&2; exit 1; }

echo "-- interactive sessions through jupyter_client: re-runs, go statements, comma-ok, output flood (RSS < 300 MB), \$ cmd with no orphan, fatal errors"
(cd kernel/testdata && $py -m unittest -v test_session_rerun 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules' ) | tee "$tmp/rerun.log"
grep -q '^OK$' "$tmp/rerun.log" || { echo "FAIL: interactive session tests" >&2; exit 1; }
if grep -q 'skipped' "$tmp/rerun.log"; then echo "FAIL: a session test was skipped" >&2; exit 1; fi

echo "-- an interrupt leaves nothing behind: \$ sleep, exec.Command, bench.Run(context.Background()), servers with no context, goroutine loops, prefork x20 (processes, ports, goroutines)"
(cd kernel/testdata && $py -m unittest -v test_interrupt_cleanup 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules' ) | tee "$tmp/cleanup.log"
grep -q '^OK$' "$tmp/cleanup.log" || { echo "FAIL: interrupt cleanup tests" >&2; exit 1; }
if grep -q 'skipped' "$tmp/cleanup.log"; then echo "FAIL: an interrupt cleanup test was skipped" >&2; exit 1; fi

echo "-- the go run corpus (kernel/eval/testdata/gorun) through the kernel: each entry's outputs match go run's line for line"
(cd kernel/testdata && $py -m unittest -v test_gorun_corpus 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules' ) | tee "$tmp/corpus.log"
grep -q '^OK$' "$tmp/corpus.log" || { echo "FAIL: the go run corpus through the kernel" >&2; exit 1; }

echo "-- cell idioms through jupyter_client: the error idiom (twice, out of order), live display updates"
(cd kernel/testdata && $py -m unittest -v test_cell_idioms 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules' ) | tee "$tmp/idioms.log"
grep -q '^OK$' "$tmp/idioms.log" || { echo "FAIL: cell idiom tests" >&2; exit 1; }
if grep -q 'skipped' "$tmp/idioms.log"; then echo "FAIL: a cell idiom test was skipped" >&2; exit 1; fi

echo "-- bench.Run's live progress in a kernel: a burst on the quickstart's endpoints, display_data then update_display_data"
(cd kernel/testdata && $py -m unittest -v test_progress_seed 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules' ) | tee "$tmp/progress.log"
grep -q '^OK$' "$tmp/progress.log" || { echo "FAIL: live progress test" >&2; exit 1; }
if grep -q 'skipped' "$tmp/progress.log"; then echo "FAIL: a live progress test was skipped" >&2; exit 1; fi

echo "-- parameters: papermill (the Go translator, python/conclab-papermill) and conclab run -p change a burst's count; typed values; errors name the parameter"
(cd kernel/testdata && CONCLAB_BIN="$conclab" $py -m unittest -v test_parameters 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules' ) | tee "$tmp/params.log"
grep -q '^OK$' "$tmp/params.log" || { echo "FAIL: parameter tests" >&2; exit 1; }
if grep -q 'skipped' "$tmp/params.log"; then echo "FAIL: a parameter test was skipped" >&2; exit 1; fi

echo "-- notebook through nbconvert"
mkdir -p "$tmp/nb"
"$py" -m jupyter nbconvert --execute --allow-errors --to notebook --ExecutePreprocessor.timeout=120 \
  --output-dir "$tmp/nb" kernel/testdata/kernel_outputs.ipynb 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules' || true
$py kernel/testdata/check_notebook.py "$tmp/nb/kernel_outputs.ipynb"

echo "-- one cell -> output model: the kernel (through nbclient) and conclab run give the same outputs"
for nb in kernel/testdata/same_outputs.ipynb kernel/testdata/kernel_outputs.ipynb; do
  $py kernel/testdata/compare_outputs.py "$conclab" "$nb" 2>&1 | grep -v -e 'frozen modules' -e 'Debugger warning' -e 'Debugging will proceed' -e 'Xfrozen_modules'
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "FAIL: the kernel and conclab run differ on $nb" >&2; exit 1; }
done

echo "-- on Go 1.27: the kernel packages' tests (its standard library, the go run corpus against Go 1.27's go run); the quickstart notebook"
GOTOOLCHAIN=go1.27.3 go test -count=1 ./display ./kernel/... ./internal/symbols/...
GOTOOLCHAIN=go1.27.3 go build -o "$tmp/conclab127" ./cmd/conclab
"$tmp/conclab127" version
"$tmp/conclab127" run --quick notebooks/00-quickstart.ipynb 2>&1 | tail -1
echo "== kernel suite passed"
