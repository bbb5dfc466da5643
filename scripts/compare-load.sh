#!/usr/bin/env bash
# compare-load.sh — measure `conclab load` against wrk and hey on loopback,
# side by side in one run.
#
# Starts a trivial keep-alive Go server (bench/load/internal/testserver) and
# runs wrk (Debian package), hey (built from its module in a scratch module
# outside the repository) and `conclab load` against it, at each connection
# count of -c (default 50 and 1000), -d seconds each; then the three against
# a server that answers after 20 ms, at 50 connections. Each measurement is
# ROUNDS interleaved rounds (the tools' order rotating each round) and the
# medians are compared: on a shared machine one run per tool is at the mercy
# of whatever else runs during its seconds.
#
# Targets (issue 27): conclab ≥ 1.0x wrk's and ≥ 1.4x hey's req/s on the
# trivial server at every connection count; p50 and p99 within 2 % of
# wrk's on the 20 ms server.
#
# Usage: scripts/compare-load.sh [-c "50 1000"] [-d SECONDS] [-r ROUNDS] [--strict]
#   -c        connection counts for the trivial server (default "50 1000")
#   -d        seconds per tool and round (default 5)
#   -r        rounds (default 5)
#   --strict  exit 1 when a target is missed (default: report only; the
#             figures are noisy on a shared machine).
# Environment: HEY_VERSION (default v0.1.4), CONCLAB_PEERS (default
# $HOME/.cache/conclab-peers), CONCLAB (a conclab binary; default: built).
set -euo pipefail

CONNS_LIST="50 1000"
SECS=5
ROUNDS=5
STRICT=0
while [ $# -gt 0 ]; do
	case "$1" in
	-c) CONNS_LIST="$2"; shift 2 ;;
	-d) SECS="$2"; shift 2 ;;
	-r) ROUNDS="$2"; shift 2 ;;
	--strict) STRICT=1; shift ;;
	-h|--help) sed -n '2,28p' "$0"; exit 0 ;;
	*) echo "compare-load: unknown argument $1" >&2; exit 2 ;;
	esac
done
for v in $CONNS_LIST $SECS $ROUNDS; do
	case "$v" in *[!0-9]*|"") echo "compare-load: -c, -d and -r take whole numbers" >&2; exit 2 ;; esac
	[ "$v" -gt 0 ] || { echo "compare-load: -c, -d and -r must be positive" >&2; exit 2; }
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HEY_VERSION=${HEY_VERSION:-v0.1.4}
PEERS=${CONCLAB_PEERS:-$HOME/.cache/conclab-peers}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT

need() { command -v "$1" >/dev/null || { echo "compare-load: $1 not found ($2)" >&2; exit 1; }; }
need wrk "apt-get install wrk"
need go "Go toolchain"
py=$ROOT/.venv/bin/python # the pinned environment (scripts/setup.d/20-python.sh)
[ -x "$py" ] || { echo "compare-load: $py missing: run bash scripts/setup.sh" >&2; exit 1; }
# 1,000 connections each side of loopback, and the tools' own files.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# hey, built from its module outside the repository (never vendored here).
HEY_DIR="$PEERS/hey-$HEY_VERSION"
HEY="$HEY_DIR/hey"
if [ ! -x "$HEY" ]; then
	echo "building hey $HEY_VERSION in $HEY_DIR" >&2
	mkdir -p "$HEY_DIR"
	(cd "$HEY_DIR" && { [ -f go.mod ] || go mod init x >/dev/null 2>&1; } &&
		GOFLAGS=-mod=mod go get "github.com/rakyll/hey@$HEY_VERSION" >/dev/null 2>&1 &&
		go build -o hey github.com/rakyll/hey)
fi

CONCLAB=${CONCLAB:-}
if [ -z "$CONCLAB" ]; then
	CONCLAB="$WORK/conclab"
	(cd "$ROOT" && go build -o "$CONCLAB" ./cmd/conclab)
fi
(cd "$ROOT" && go build -o "$WORK/testserver" ./bench/load/internal/testserver)

start_server() { # $1 = delay; sets ADDR
	local f="$WORK/addr-$1"
	rm -f "$f"
	"$WORK/testserver" -delay "$1" -max $((SECS * ROUNDS * 8 + 300))s >"$f" &
	PIDS+=($!)
	for _ in $(seq 50); do
		ADDR=$(head -1 "$f" 2>/dev/null || true)
		[ -n "$ADDR" ] && return
		sleep 0.1
	done
	echo "compare-load: test server did not start" >&2
	exit 1
}
stop_server() { kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true; unset 'PIDS[-1]'; }

# to_ms "1.23ms" | "850.00us" | "1.02s" -> milliseconds
to_ms() { awk -v v="$1" 'BEGIN{ if (v ~ /us$/) printf "%.4f", v/1000; else if (v ~ /ms$/) printf "%.4f", v+0; else if (v ~ /s$/) printf "%.4f", v*1000; else printf "nan" }'; }

run_wrk() { # appends "rps p50 p99" to $WORK/wrk.res
	wrk -t2 -c"$CONNS" -d"${SECS}s" --latency "http://$ADDR/" >"$WORK/wrk.txt"
	echo "$(awk '/^Requests\/sec:/{print $2}' "$WORK/wrk.txt")" \
		"$(to_ms "$(awk '$1=="50%"{print $2}' "$WORK/wrk.txt")")" \
		"$(to_ms "$(awk '$1=="99%"{print $2}' "$WORK/wrk.txt")")" >>"$WORK/wrk.res"
}
run_hey() { # appends "rps" to $WORK/hey.res
	"$HEY" -c "$CONNS" -z "${SECS}s" "http://$ADDR/" >"$WORK/hey.txt"
	awk -F'\t' '/Requests\/sec:/{gsub(/ /,"",$2); print $2}' "$WORK/hey.txt" >>"$WORK/hey.res"
}
col() { # col FILE COLUMN: a summary column of `conclab load --json` output
	"$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["summary"]; n=[c["name"] for c in d["columns"]]; v=d["rows"][0][n.index(sys.argv[2])] if sys.argv[2] in n else None; print("null" if v is None else (int(v) if float(v).is_integer() else v))' "$1" "$2"
}
run_conclab() { # appends "rps p50 p99" to $WORK/conclab.res
	"$CONCLAB" load "http://$ADDR/" -c "$CONNS" -d "${SECS}s" --json -q >"$WORK/cl.json"
	echo "$(col "$WORK/cl.json" rps) $(col "$WORK/cl.json" med_ms) $(col "$WORK/cl.json" p99_ms)" >>"$WORK/conclab.res"
	"$py" -c 'import json,sys; [print("  conclab warning:", w) for w in json.load(open(sys.argv[1]))["warnings"]]' "$WORK/cl.json" >&2
}
median() { # $1 file, $2 field -> median of that field
	awk -v f="$2" '{print $f}' "$1" | sort -g | awk '{v[NR]=$1} END{ if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2 }'
}
all() { awk -v f="$2" '{printf "%s%.0f", (NR>1?" ":""), $f}' "$1"; }
all2() { awk -v f="$2" '{printf "%s%.2f", (NR>1?" ":""), $f}' "$1"; }
measure() { # $1 = server delay: ROUNDS interleaved rounds of the three tools
	rm -f "$WORK"/*.res
	start_server "$1"
	local order=(wrk hey conclab)
	for r in $(seq "$ROUNDS"); do
		for k in 0 1 2; do "run_${order[$(((k + r) % 3))]}"; done
	done
	stop_server
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b>0) printf "%.2f", a/b; else print "nan" }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b>0) printf "%+.1f", 100*(a-b)/b; else print "nan" }'; }
MISSED=0
check() { # $1 label, $2 ok-expression result (1/0)
	if [ "$2" = 1 ]; then echo "  PASS $1"; else echo "  MISS $1"; MISSED=1; fi
}

echo "machine: $(nproc) CPUs ($(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo)), $(uname -r); $(go version | cut -d' ' -f3); wrk $(wrk -v 2>&1 | awk 'NR==1{print $2}'), hey $HEY_VERSION"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "each tool: ${SECS}s a round, http://127.0.0.1 (keep-alive); $ROUNDS interleaved rounds, medians"
echo

for CONNS in $CONNS_LIST; do
	measure 0
	WRK_RPS=$(median "$WORK/wrk.res" 1); HEY_RPS=$(median "$WORK/hey.res" 1); CL_RPS=$(median "$WORK/conclab.res" 1)
	echo "trivial server, $CONNS connections   median req/s   (each round)"
	printf "  wrk      %12.0f   (%s)\n" "$WRK_RPS" "$(all "$WORK/wrk.res" 1)"
	printf "  hey      %12.0f   (%s)\n" "$HEY_RPS" "$(all "$WORK/hey.res" 1)"
	printf "  conclab  %12.0f   (%s)\n" "$CL_RPS" "$(all "$WORK/conclab.res" 1)"
	R_WRK=$(ratio "$CL_RPS" "$WRK_RPS"); R_HEY=$(ratio "$CL_RPS" "$HEY_RPS")
	echo "  conclab/wrk = ${R_WRK}x   conclab/hey = ${R_HEY}x"
	check "conclab ≥ 1.0x wrk at $CONNS connections (${R_WRK}x)" "$(awk -v r="$R_WRK" 'BEGIN{print (r>=1.0)?1:0}')"
	check "conclab ≥ 1.4x hey at $CONNS connections (${R_HEY}x)" "$(awk -v r="$R_HEY" 'BEGIN{print (r>=1.4)?1:0}')"
	echo
done

CONNS=50
measure 20ms
WRK_RPS=$(median "$WORK/wrk.res" 1); HEY_RPS=$(median "$WORK/hey.res" 1); CL_RPS=$(median "$WORK/conclab.res" 1)
WRK_P50=$(median "$WORK/wrk.res" 2); WRK_P99=$(median "$WORK/wrk.res" 3)
CL_P50=$(median "$WORK/conclab.res" 2); CL_P99=$(median "$WORK/conclab.res" 3)
echo "20 ms server, 50 connections   median req/s   p50 ms     p99 ms     (p99 each round)"
printf "  wrk      %12.0f %10.2f %10.2f     (%s)\n" "$WRK_RPS" "$WRK_P50" "$WRK_P99" "$(all2 "$WORK/wrk.res" 3)"
printf "  hey      %12.0f\n" "$HEY_RPS"
printf "  conclab  %12.0f %10.2f %10.2f     (%s)\n" "$CL_RPS" "$CL_P50" "$CL_P99" "$(all2 "$WORK/conclab.res" 3)"
D50=$(pct "$CL_P50" "$WRK_P50"); D99=$(pct "$CL_P99" "$WRK_P99")
echo "  conclab vs wrk: p50 ${D50}%  p99 ${D99}%  req/s $(ratio "$CL_RPS" "$WRK_RPS")x"
check "p50 within 2% of wrk (${D50}%)" "$(awk -v d="$D50" 'BEGIN{print (d<=2 && d>=-2)?1:0}')"
check "p99 within 2% of wrk (${D99}%)" "$(awk -v d="$D99" 'BEGIN{print (d<=2 && d>=-2)?1:0}')"
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$STRICT" = 1 ] && [ "$MISSED" = 1 ]; then exit 1; fi
exit 0
