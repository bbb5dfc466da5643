#!/usr/bin/env bash
# 25-segments: the distributed-load proof on one machine. Three agent
# processes (`conclab load --segment k/3`, one shared --start-at) drive a
# test server on loopback and write HdrHistogram interval logs; `conclab
# merge` combines them. Against one process running the whole load:
#   - the iteration (request) counts are equal;
#   - the merged p50/p99 equal the percentiles of one histogram of all the
#     samples, computed independently: the logs decoded and added by the
#     HdrHistogram JavaScript port (hdr-histogram-js, from npm);
#   - that reader decodes each log to its agent's own count;
#   - a staged run (an open ramp, --rate 0 --stage ...) split the same way
#     merges to the whole's arrivals exactly, as one agent running it all,
#     and the merged thresholds judge the whole run (exit 99 on a failure).
# Then the Kubernetes manifests are checked against the Kubernetes API types
# (deploy/k8s/validate, its own Go module).
set -euo pipefail
cd "$(dirname "$0")/../.."
py=$(pwd)/.venv/bin/python # the pinned environment (scripts/setup.d/20-python.sh)
command -v conclab >/dev/null || { echo "25-segments: conclab not on PATH" >&2; exit 1; }
[ -d node_modules/hdr-histogram-js ] || { echo "25-segments: node_modules/hdr-histogram-js missing (run scripts/setup.sh)" >&2; exit 1; }
WORK=$(mktemp -d)
SRV=""
PIDS=()
cleanup() {
	for p in "${PIDS[@]}" $SRV; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "25-segments: $*" >&2; exit 1; }

go build -o "$WORK/testserver" ./bench/load/internal/testserver
"$WORK/testserver" -delay 2ms -max 120s >"$WORK/addr" &
SRV=$!
for _ in $(seq 50); do ADDR=$(head -1 "$WORK/addr" 2>/dev/null || true); [ -n "$ADDR" ] && break; sleep 0.1; done
[ -n "$ADDR" ] || fail "test server did not start"
URL="http://$ADDR/"

# The whole: 7 VUs x 143 iterations = 1001 requests. Split 3 ways: 2, 2, 3 VUs.
LOAD=(-c 7 --iterations 143 -q)
START=$(( $(date +%s) + 4 ))
for k in 0 1 2; do
	conclab load "$URL" "${LOAD[@]}" --segment "$k/3" --start-at "$START" --hlog "$WORK/seg$k.hlog" --json >"$WORK/seg$k.json" 2>"$WORK/seg$k.err" &
	PIDS+=($!)
done
for i in 0 1 2; do wait "${PIDS[$i]}" || { cat "$WORK/seg$i.err" >&2; fail "agent $i failed"; }; done
PIDS=()
conclab load "$URL" "${LOAD[@]}" --json >"$WORK/whole.json"
conclab merge "$WORK"/seg{0,1,2}.hlog --json >"$WORK/merged.json"
conclab merge "$WORK"/seg{0,1,2}.hlog --html "$WORK/merged.html" >"$WORK/merged.txt"
grep -q "http_reqs.*: 1001 " "$WORK/merged.txt" || { cat "$WORK/merged.txt" >&2; fail "merge text summary lacks 1001 requests"; }
grep -q "echarts" "$WORK/merged.html" || fail "merge --html wrote no report"

NODE_PATH="$PWD/node_modules" node - "$WORK" "$START" <<'JS'
const fs = require("fs");
const path = require("path");
const hdr = require("hdr-histogram-js");
const [work, start] = process.argv.slice(2);
const fail = (msg) => { console.error("25-segments: " + msg); process.exit(1); };
const summary = (file) => {
	const s = JSON.parse(fs.readFileSync(path.join(work, file))).summary;
	const names = s.columns.map((c) => c.name);
	return (col) => s.rows[0][names.indexOf(col)];
};
const whole = summary("whole.json"), merged = summary("merged.json");
if (whole("count") !== 1001 || merged("count") !== 1001) fail(`counts: whole ${whole("count")}, merged ${merged("count")}; want 1001 each`);
if (whole("errors") !== 0 || merged("errors") !== 0) fail("errors in the runs");

// One histogram of all the samples, from the logs, by the JS reader.
const all = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3600e9, numberOfSignificantValueDigits: 3, bitBucketSize: 64 });
let agentsSum = 0;
for (const k of [0, 1, 2]) {
	const log = fs.readFileSync(path.join(work, `seg${k}.hlog`), "utf8");
	const st = log.match(/^#\[StartTime: (\d+)\.(\d+) /m);
	if (!st || st[1] !== start || st[2] !== "000") fail(`seg${k}.hlog starts at ${st && st[1]}.${st && st[2]}, not the shared --start-at ${start}`);
	if (!hdr.listTags(log).includes("latency")) fail(`seg${k}.hlog has no latency histograms`);
	const reader = new hdr.HistogramLogReader(log);
	let n = 0, h;
	while ((h = reader.nextIntervalHistogram()) !== null) {
		if (h.tag !== "latency") continue;
		n += h.totalCount;
		all.add(h);
	}
	const own = summary(`seg${k}.json`)("count");
	if (n !== own) fail(`the JS reader decodes seg${k}.hlog to ${n} requests; the agent counted ${own}`);
	agentsSum += own;
	console.log(`25-segments: agent ${k}: ${own} requests, ${n} decoded by hdr-histogram-js`);
}
if (agentsSum !== 1001 || all.totalCount !== 1001) fail(`agents ${agentsSum}, histogram ${all.totalCount}; want 1001`);
// conclab's percentile: the value at rank round(q/100*n) (HdrHistogram's
// Go rule), the top of its bucket, kept within the exact min and max.
const minMs = merged("min_ms"), maxMs = merged("max_ms");
for (const [q, col] of [[50, "med_ms"], [99, "p99_ms"]]) {
	const rank = Math.floor((q / 100) * all.totalCount + 0.5);
	let v = all.getValueAtPercentile((100 * rank) / all.totalCount) / 1e6;
	v = Math.min(Math.max(v, minMs), maxMs);
	if (v !== merged(col)) fail(`p${q}: merged ${merged(col)} ms; one histogram of all samples ${v} ms`);
	console.log(`25-segments: p${q} merged ${merged(col)} ms = one histogram of all samples ${v} ms (single run: ${whole(col)} ms)`);
}
JS

# A staged run over 3 agents: ∫ 0→300/s over 500 ms, then 300/s for 500 ms
# = 75 + 150 = 225 arrivals, each sent (or, not started by the planned
# end, dropped) by exactly one agent.
RAMP=(--rate 0 --stage 500ms:300 --stage 500ms:300 -q)
START=$(( $(date +%s) + 3 ))
for k in 0 1 2; do
	conclab load "$URL" "${RAMP[@]}" --segment "$k/3" --start-at "$START" --hlog "$WORK/ramp$k.hlog" --json >"$WORK/ramp$k.json" 2>"$WORK/ramp$k.err" &
	PIDS+=($!)
done
for i in 0 1 2; do wait "${PIDS[$i]}" || { cat "$WORK/ramp$i.err" >&2; fail "ramp agent $i failed"; }; done
PIDS=()
conclab load "$URL" "${RAMP[@]}" --json >"$WORK/rampwhole.json"
conclab merge "$WORK"/ramp{0,1,2}.hlog --json >"$WORK/rampmerged.json"
col() { "$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["summary"]; n=[c["name"] for c in d["columns"]]; print(int(d["rows"][0][n.index(sys.argv[2])]))' "$1" "$2"; }
whole=$(( $(col "$WORK/rampwhole.json" count) + $(col "$WORK/rampwhole.json" dropped) ))
merged=$(( $(col "$WORK/rampmerged.json" count) + $(col "$WORK/rampmerged.json" dropped) ))
agents=0
for k in 0 1 2; do agents=$(( agents + $(col "$WORK/ramp$k.json" count) + $(col "$WORK/ramp$k.json" dropped) )); done
[ "$whole" = 225 ] && [ "$merged" = 225 ] && [ "$agents" = 225 ] || fail "staged run: whole $whole, merged $merged, agents $agents arrivals; want 225 each"
echo "25-segments: staged run over 3 agents: 225 arrivals merged = one agent's 225"
set +e
conclab merge "$WORK"/ramp{0,1,2}.hlog --threshold "count>1000" >"$WORK/th.txt" 2>"$WORK/th.err"; code=$?
set -e
[ "$code" = 99 ] && grep -q "count>1000" "$WORK/th.err" || fail "merge --threshold count>1000: exit $code"
conclab merge "$WORK"/ramp{0,1,2}.hlog --threshold "count<=225" >/dev/null || fail "merge --threshold count<=225 did not pass"

# The Kubernetes manifests, against the Kubernetes API types.
(cd deploy/k8s/validate && CONCLAB="$(command -v conclab)" go test -count=1 ./...) >"$WORK/k8s.out" 2>&1 || { cat "$WORK/k8s.out" >&2; fail "Kubernetes manifests do not validate"; }
echo "25-segments: ok"
