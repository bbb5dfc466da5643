#!/usr/bin/env bash
# Integration check of `conclab load` as a user runs it: the installed binary
# (bin/conclab on PATH) against the comparison script's test server —
# closed, open, thresholds (exit 99), stages, HTTP/2 (h2c and h2 over TLS),
# raw results — then the bad-input paths. Short and bounded; the timing
# comparison with wrk and hey is scripts/compare-load.sh (not run in CI: it
# needs a quiet machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
py=$(pwd)/.venv/bin/python # the pinned environment (scripts/setup.d/20-python.sh)
command -v conclab >/dev/null || { echo "20-load: conclab not on PATH" >&2; exit 1; }
WORK=$(mktemp -d)
SRV=""
PIDS=() # other servers, killed on any exit
cleanup() {
	for p in $SRV "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT

go build -o "$WORK/testserver" ./bench/load/internal/testserver
"$WORK/testserver" -delay 5ms -max 60s >"$WORK/addr" &
SRV=$!
for _ in $(seq 50); do ADDR=$(head -1 "$WORK/addr" 2>/dev/null || true); [ -n "$ADDR" ] && break; sleep 0.1; done
[ -n "$ADDR" ] || { echo "20-load: test server did not start" >&2; exit 1; }

col() { # col FILE COLUMN: a summary column of `conclab load --json` output
	"$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["summary"]; n=[c["name"] for c in d["columns"]]; v=d["rows"][0][n.index(sys.argv[2])] if sys.argv[2] in n else None; print("null" if v is None else (int(v) if float(v).is_integer() else v))' "$1" "$2"
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

# Thresholds: the server takes 5 ms, so p95<2ms fails (exit 99, named on
# stderr, marked in the summary) and p95<1s passes (exit 0).
set +e
conclab load "http://$ADDR/" -c 2 -n 40 -q --threshold 'p95<2ms' --threshold 'p95<1s' >"$WORK/th.txt" 2>"$WORK/th.err"; code=$?
set -e
[ "$code" = 99 ] && grep -q "thresholds failed: p95<2ms" "$WORK/th.err" && grep -q "✗ p95<2ms" "$WORK/th.txt" && grep -q "✓ p95<1s" "$WORK/th.txt" ||
	{ echo "20-load: a failing threshold: exit $code" >&2; cat "$WORK/th.err" "$WORK/th.txt" >&2; exit 1; }
conclab load "http://$ADDR/" -c 2 -n 40 -q --threshold 'p95<1s' --threshold 'errors<1%' >"$WORK/th.txt" ||
	{ echo "20-load: passing thresholds did not exit 0" >&2; exit 1; }
# Every 2nd request fails: errors<5 is certain to fail after 5 errors, and
# --abort-on-fail stops the 100,000-request run there.
"$WORK/testserver" -fail-every 2 -max 60s >"$WORK/failaddr" &
FAIL=$!
PIDS+=("$FAIL")
for _ in $(seq 50); do FADDR=$(head -1 "$WORK/failaddr" 2>/dev/null || true); [ -n "$FADDR" ] && break; sleep 0.1; done
set +e
conclab load "http://$FADDR/" -c 2 -n 100000 --threshold 'errors<5' --abort-on-fail --json >"$WORK/abort.json" 2>/dev/null; code=$?
set -e
kill "$FAIL"; wait "$FAIL" 2>/dev/null || true
n=$(col "$WORK/abort.json" count)
[ "$code" = 99 ] && [ "$n" -ge 10 ] && [ "$n" -lt 100000 ] || { echo "20-load: --abort-on-fail: exit $code after $n requests" >&2; exit 1; }

# Stages: an open ramp sends (or drops) exactly its integral, 0→200/s over
# 500 ms then 200/s for 500 ms: 50 + 100 arrivals; the series carries
# target_rps.
conclab load "http://$ADDR/" --rate 0 --stage 500ms:200 --stage 500ms:200 --json -q >"$WORK/ramp.json"
[ $(( $(col "$WORK/ramp.json" count) + $(col "$WORK/ramp.json" dropped) )) = 150 ] || { echo "20-load: the ramp's arrivals != 150" >&2; exit 1; }
grep -q '"name": "target_rps"' "$WORK/ramp.json" || { echo "20-load: no target_rps in the ramp's series" >&2; exit 1; }

# HTTP/2: h2c with prior knowledge, and h2 over TLS (ALPN) with the test
# server's own certificate; every request succeeds and the summary says h2.
"$WORK/testserver" -h2c -max 60s >"$WORK/h2caddr" &
H2C=$!
"$WORK/testserver" -tls -cert "$WORK/cert.pem" -max 60s >"$WORK/tlsaddr" 2>/dev/null &
TLS=$!
PIDS+=("$H2C" "$TLS")
for _ in $(seq 50); do HADDR=$(head -1 "$WORK/h2caddr" 2>/dev/null || true); TADDR=$(head -1 "$WORK/tlsaddr" 2>/dev/null || true); [ -n "$HADDR" ] && [ -n "$TADDR" ] && break; sleep 0.1; done
conclab load "http://$HADDR/" --http2 -c 8 --streams 4 -n 400 -q >"$WORK/h2c.txt"
grep -q "protocol: h2c · 2 connections · 400 streams" "$WORK/h2c.txt" && grep -q "0.00% 0 out of 400" "$WORK/h2c.txt" ||
	{ echo "20-load: h2c:" >&2; cat "$WORK/h2c.txt" >&2; exit 1; }
conclab load "https://$TADDR/" --http2 --cacert "$WORK/cert.pem" -c 4 -n 400 -q >"$WORK/h2.txt"
grep -q "protocol: h2 · 4 connections · 400 streams" "$WORK/h2.txt" && grep -q "0.00% 0 out of 400" "$WORK/h2.txt" ||
	{ echo "20-load: h2 over TLS:" >&2; cat "$WORK/h2.txt" >&2; exit 1; }
conclab load "https://$TADDR/" --cacert "$WORK/cert.pem" -c 2 -n 100 -q | grep -q "protocol: HTTP/1.1+TLS · 2 connections" ||
	{ echo "20-load: HTTPS with HTTP/1.1 failed" >&2; exit 1; }
kill "$H2C" "$TLS"; wait "$H2C" "$TLS" 2>/dev/null || true

# Raw results: a CSV row per request (and an SQLite table with as many).
conclab load "http://$ADDR/" -c 3 -n 300 -q --out "$WORK/requests.csv" --json >"$WORK/raw.json"
[ "$(($(wc -l <"$WORK/requests.csv") - 1))" = 300 ] && head -1 "$WORK/requests.csv" | grep -q "^intended_unix_ns,start_unix_ns,latency_ms" ||
	{ echo "20-load: --out CSV rows != 300" >&2; head -3 "$WORK/requests.csv" >&2; exit 1; }
conclab load "http://$ADDR/" -c 3 -n 300 -q --out "$WORK/requests.db" >/dev/null
"$py" -c 'import sqlite3,sys; n=sqlite3.connect(sys.argv[1]).execute("select count(*), sum(status=200) from requests").fetchone(); sys.exit(0 if n==(300,300) else "sqlite rows %r" % (n,))' "$WORK/requests.db" ||
	{ echo "20-load: --out SQLite rows != 300" >&2; exit 1; }

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
expect 2 "no operator" "http://$ADDR/" --threshold p95
expect 2 "want DURATION:TARGET" "http://$ADDR/" --stage 30s
expect 2 "--stage sets the run's length" "http://$ADDR/" --stage 1s:5 -d 1s
expect 2 "--streams needs --http2" "http://$ADDR/" --streams 4
expect 2 "want a .csv file" "http://$ADDR/" -n 1 --out r.txt

# An open-model rate the target cannot reach ends at its planned end plus
# the in-flight requests (200 ms each): 1000 connections x 5/s is 5000 of
# the 10,000,000 arrivals; every other arrival is dropped, never sent after
# the end, and the late figure is a share of the sends.
"$WORK/testserver" -delay 200ms -max 60s >"$WORK/slowaddr" &
SLOW=$!
PIDS+=("$SLOW")
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
