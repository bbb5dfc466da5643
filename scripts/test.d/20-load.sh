#!/usr/bin/env bash
# Integration check of `conclab load` as a user runs it: the installed binary
# (bin/conclab on PATH) against the comparison script's test server, then
# the bad-input paths. Short and bounded; the timing comparison with wrk and
# hey is scripts/compare-load.sh (not run in CI: it needs a quiet machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v conclab >/dev/null || { echo "20-load: conclab not on PATH" >&2; exit 1; }
WORK=$(mktemp -d)
SRV=""
cleanup() { [ -n "$SRV" ] && kill "$SRV" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

go build -o "$WORK/testserver" ./bench/load/internal/testserver
"$WORK/testserver" -delay 5ms -max 60s >"$WORK/addr" &
SRV=$!
for _ in $(seq 50); do ADDR=$(head -1 "$WORK/addr" 2>/dev/null || true); [ -n "$ADDR" ] && break; sleep 0.1; done
[ -n "$ADDR" ] || { echo "20-load: test server did not start" >&2; exit 1; }

col() { # col FILE COLUMN: a summary column of `conclab load --json` output
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["summary"]; n=[c["name"] for c in d["columns"]]; v=d["rows"][0][n.index(sys.argv[2])] if sys.argv[2] in n else None; print("null" if v is None else (int(v) if float(v).is_integer() else v))' "$1" "$2"
}

# Closed: 200 requests over 4 VUs, all answered, p50 ≈ 5 ms.
conclab load "http://$ADDR/" -c 4 -n 200 --json >"$WORK/closed.json"
[ "$(col "$WORK/closed.json" count)" = 200 ] || { echo "20-load: closed count != 200" >&2; cat "$WORK/closed.json" >&2; exit 1; }
[ "$(col "$WORK/closed.json" errors)" = 0 ] || { echo "20-load: closed run had errors" >&2; exit 1; }
awk -v m="$(col "$WORK/closed.json" med_ms)" 'BEGIN{ exit !(m >= 5 && m < 15) }' || { echo "20-load: p50 $(col "$WORK/closed.json" med_ms) ms not ≈ 5 ms" >&2; exit 1; }

# Open: 100/s for 1 s, corrected and uncorrected columns present.
conclab load "http://$ADDR/" --rate 100 -d 1s --json >"$WORK/open.json"
[ "$(col "$WORK/open.json" count)" = 100 ] || { echo "20-load: open count != 100" >&2; exit 1; }
[ "$(col "$WORK/open.json" uncorrected_p99_ms)" != null ] || { echo "20-load: no uncorrected_p99_ms" >&2; exit 1; }

# Text summary.
conclab load "http://$ADDR/" -n 20 | grep -q "http_req_duration" || { echo "20-load: no summary" >&2; exit 1; }

# Bad input: clear errors and exit codes, never a hang.
expect() { # code, pattern, args...
	local code=$1 pat=$2; shift 2
	set +e; out=$(timeout 20 conclab load "$@" 2>&1); got=$?; set -e
	if [ "$got" != "$code" ] || ! grep -q -- "$pat" <<<"$out"; then
		echo "20-load: conclab load $* -> exit $got, want $code and '$pat':" >&2; echo "$out" >&2; exit 1
	fi
}
expect 2 "malformed target URL" "http://[::1" -n 1
expect 2 "flag provided but not defined" "http://$ADDR/" --nope
expect 2 "-c must be positive" "http://$ADDR/" -c 0
expect 2 "--rate must be a positive" "http://$ADDR/" --rate -1
expect 2 "no such file" "http://$ADDR/" --file img=/no/such.jpg
expect 2 "not loopback" "http://192.0.2.1/" -n 1
kill "$SRV"; wait "$SRV" 2>/dev/null || true; SRV=""
expect 1 "connection refused" "http://$ADDR/" -n 3
echo "20-load: ok"
