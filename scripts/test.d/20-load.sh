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
# Sent + dropped is exactly the 100 arrivals (one the loaded machine could
# not start before the planned end is dropped, never sent late).
osent=$(col "$WORK/open.json" count); odropped=$(col "$WORK/open.json" dropped)
[ "$osent" -gt 0 ] && [ $((osent + odropped)) = 100 ] || { echo "20-load: open sent $osent + dropped $odropped != 100" >&2; exit 1; }
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
expect 2 "port 99999 is not in 1..65535" "http://127.0.0.1:99999/" -n 3
expect 2 "port 0 is not in" "http://127.0.0.1:0/" -n 3
expect 2 "above the longest run allowed, --max-duration 10m0s" "http://$ADDR/" -d 100000h
expect 2 "--max-duration must be in" "http://$ADDR/" --max-duration 48h
expect 2 "above the cap of 1e+07 requests/s" "http://$ADDR/" --rate 1e12 -d 1s
expect 2 "plans 600000000 requests" "http://$ADDR/" --rate 1e6 -d 10m
expect 2 "--timeout 2h0m0s is above" "http://$ADDR/" --timeout 2h
expect 2 "--segment" "http://$ADDR/" --segment 3/3
expect 2 "--start-at" "http://$ADDR/" --start-at yesterday
expect 2 "--hlog" "http://$ADDR/" --hlog /no/such/dir/run.hlog

# An open-model rate the target cannot reach ends at its planned end plus
# the in-flight requests (200 ms each): 1000 connections x 5/s is 5000 of
# the 10,000,000 arrivals; every other arrival is dropped, never sent after
# the end, and the late figure is a share of the sends.
"$WORK/testserver" -delay 200ms -max 60s >"$WORK/slowaddr" &
SLOW=$!
for _ in $(seq 50); do SADDR=$(head -1 "$WORK/slowaddr" 2>/dev/null || true); [ -n "$SADDR" ] && break; sleep 0.1; done
t0=$(date +%s.%N)
conclab load "http://$SADDR/" --rate 1e7 -d 1s --grace 2s --json >"$WORK/overrun.json" 2>"$WORK/overrun.err" || true
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{ printf "%.2f", b - a }')
kill "$SLOW"; wait "$SLOW" 2>/dev/null || true
awk -v w="$wall" 'BEGIN{ exit !(w < 1 + 2 + 1) }' || { echo "20-load: --rate 1e7 -d 1s --grace 2s took ${wall}s; want under 1 s + grace + 1 s" >&2; exit 1; }
grep -q "note: --rate 1e+07/s" "$WORK/overrun.err" || { echo "20-load: no up-front note for --rate 1e7" >&2; cat "$WORK/overrun.err" >&2; exit 1; }
sent=$(col "$WORK/overrun.json" count); dropped=$(col "$WORK/overrun.json" dropped)
late=$(col "$WORK/overrun.json" late); cut=$(col "$WORK/overrun.json" interrupted)
[ $((sent + dropped + cut)) = 10000000 ] || { echo "20-load: sent $sent + dropped $dropped + cut $cut != 10000000 arrivals" >&2; exit 1; }
[ "$late" -le "$sent" ] && [ "$sent" -le 20000 ] || { echo "20-load: late $late of $sent sends" >&2; exit 1; }
echo "20-load: --rate 1e7 -d 1s against a 200 ms server: ${wall}s, $sent sent ($late late), $dropped dropped"

# conclab serve stays on loopback unless --allow-remote.
serve_expect() { # pattern, args...
	local pat=$1; shift
	set +e; out=$(timeout 20 conclab serve --strategy /async-ok --workload none "$@" 2>&1); got=$?; set -e
	if [ "$got" != 2 ] || ! grep -q -- "$pat" <<<"$out"; then
		echo "20-load: conclab serve $* -> exit $got, want 2 and '$pat':" >&2; echo "$out" >&2; exit 1
	fi
}
serve_expect "listens on every interface" --addr 0.0.0.0:8000
serve_expect "listens on every interface" --addr :8000
serve_expect "listens on every interface" --addr "[::]:8000"
serve_expect "not a loopback address" --addr 192.0.2.1:8000

kill "$SRV"; wait "$SRV" 2>/dev/null || true; SRV=""
expect 1 "connection refused" "http://$ADDR/" -n 3
echo "20-load: ok"
