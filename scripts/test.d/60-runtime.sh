#!/usr/bin/env bash
# Integration check of `conclab serve` as a user runs it: the installed binary
# (bin/conclab on PATH) serving strategies — including prefork workers and a
# process pool, which re-execute the binary in worker mode — driven by
# `conclab load`; then the bad-input paths. Short and bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=$(pwd)/.venv/bin/python # the pinned environment (scripts/setup.d/20-python.sh)
command -v conclab >/dev/null || { echo "60-runtime: conclab not on PATH" >&2; exit 1; }
WORK=$(mktemp -d)
SRV=""
cleanup() { [ -n "$SRV" ] && kill "$SRV" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

col() { # col FILE COLUMN: a summary column of `conclab load --json` output
	"$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["summary"]; n=[c["name"] for c in d["columns"]]; v=d["rows"][0][n.index(sys.argv[2])] if sys.argv[2] in n else None; print("null" if v is None else v)' "$1" "$2"
}

# serve NAME SPEC: start a server in the background, set URL and SRV.
serve() {
	conclab serve --strategy "$1" --workload "$2" >"$WORK/serve.out" 2>&1 &
	SRV=$!
	URL=""
	for _ in $(seq 100); do URL=$(grep -o 'http://[0-9.:]*' "$WORK/serve.out" 2>/dev/null | head -1 || true); [ -n "$URL" ] && break; sleep 0.1; done
	[ -n "$URL" ] || { echo "60-runtime: serve $1 did not start" >&2; cat "$WORK/serve.out" >&2; exit 1; }
}
stop() {
	kill -INT "$SRV"; wait "$SRV" || true; SRV=""
}
# expect NAME SPEC N LO HI: a burst of N takes between LO and HI seconds.
expect() {
	serve "$1" "$2"
	conclab load "$URL/work" --burst -n "$3" --json >"$WORK/run.json"
	local e; e=$(col "$WORK/run.json" elapsed_s)
	[ "$(col "$WORK/run.json" errors)" = 0 ] || { echo "60-runtime: $1 had errors" >&2; cat "$WORK/run.json" >&2; exit 1; }
	awk -v e="$e" -v lo="$4" -v hi="$5" 'BEGIN{ exit !(e >= lo && e <= hi) }' || { echo "60-runtime: $1 burst $3 took ${e}s, want $4..$5" >&2; exit 1; }
	echo "60-runtime: $1 ($2) burst $3: ${e}s"
	stop
}

# Source 001 at 200 ms a wait: the loop blocked serialises, threads overlap.
expect "/async-block" "sleep=200ms" 5 0.9 1.2
expect "/sync-sleep" "sleep=200ms" 5 0.18 0.38
# Prefork: 2 worker processes x 5 threads, re-executed from this binary.
expect "gunicorn 2w x 5t" "sleep=200ms" 4 0.18 0.38
# Process pool offload: the step is piped to worker processes.
expect "ProcessPool" "sleep=200ms:process_executor" 2 0.18 0.5

# Bad input: a clear error and exit code 2, nothing left running.
for args in "--strategy nope --workload sleep=1s" "--strategy sync --workload sleep=-1s" "--strategy sync --workload nap=1s" "--strategy sync"; do
	if conclab serve $args >"$WORK/bad.out" 2>&1; then echo "60-runtime: serve $args succeeded" >&2; exit 1; fi
	grep -q "conclab serve" "$WORK/bad.out" || { echo "60-runtime: serve $args: no error message" >&2; cat "$WORK/bad.out" >&2; exit 1; }
done
echo "60-runtime: ok"
