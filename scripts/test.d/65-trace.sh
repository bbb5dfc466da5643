#!/usr/bin/env bash
# Integration check of traces as a user makes them: `conclab serve --trace
# FILE` (the installed binary on PATH) takes a burst from `conclab load`,
# writes the trace when interrupted, and the file is checked against Chrome's
# trace event format (what Perfetto UI and chrome://tracing load) and the
# model's exact facts: /sync-sleep x100 runs at most 40 at once in three
# waves; /async-block's handlers never overlap; prefork workers (one or both
# of two serve a burst: the accept is greedy, as gunicorn's) each
# have a GIL that no two of their threads hold at once. Short and bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=$(pwd)/.venv/bin/python # the pinned environment (scripts/setup.d/20-python.sh)
command -v conclab >/dev/null || { echo "65-trace: conclab not on PATH" >&2; exit 1; }
WORK=$(mktemp -d)
SRV=""
cleanup() { [ -n "$SRV" ] && kill "$SRV" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

# traced NAME SPEC N OUT: serve NAME with SPEC and --trace OUT, send a burst
# of N, stop the server (Ctrl-C) and wait for the trace.
traced() {
	timeout 60 conclab serve --strategy "$1" --workload "$2" --trace "$4" >"$WORK/serve.out" 2>&1 &
	SRV=$!
	URL=""
	for _ in $(seq 100); do URL=$(grep -o 'http://[0-9.:]*' "$WORK/serve.out" 2>/dev/null | head -1 || true); [ -n "$URL" ] && break; sleep 0.1; done
	[ -n "$URL" ] || { echo "65-trace: serve $1 did not start" >&2; cat "$WORK/serve.out" >&2; exit 1; }
	timeout 60 conclab load "$URL/work" --burst -n "$3" --json >"$WORK/load.json"
	kill -INT "$SRV"; wait "$SRV" || { echo "65-trace: serve $1 failed" >&2; cat "$WORK/serve.out" >&2; exit 1; }
	SRV=""
	grep -q "wrote a trace of $3 requests" "$WORK/serve.out" || { echo "65-trace: serve $1 did not write its trace" >&2; cat "$WORK/serve.out" >&2; exit 1; }
}

# check FILE N FACTS...: the trace event schema, one complete event per
# request phase, and the named facts.
check() {
	"$py" - "$@" <<'PY'
import json, sys
path, n, facts = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
doc = json.load(open(path))
evs = doc["traceEvents"]
assert isinstance(evs, list) and evs, "traceEvents missing or empty"
known = {"queue", "limiter_wait", "executor_wait", "thread_wait", "handler", "gil_wait", "cpu", "cpu_nogil",
         "io", "write", "pool", "respond", "gil", "loop_blocked", "accept", "framework"}
tracks, procs, xs = {}, set(), []
for e in evs:
    assert e["ph"] in ("X", "M"), e
    assert isinstance(e["pid"], int) and isinstance(e["name"], str), e
    if e["ph"] == "M":
        if e["name"] == "thread_name":
            tracks[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e["name"] == "process_name":
            procs.add(e["pid"])
        continue
    assert isinstance(e["tid"], int) and isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)), e
    assert e["ts"] >= 0 and e["dur"] >= 0, e
    assert e["name"] in known, "unknown phase %r" % e["name"]
    assert (e["pid"], e["tid"]) in tracks, "track without thread_name: %r" % e
    r = e.get("args", {}).get("request")
    assert r is None or (isinstance(r, int) and 1 <= r <= n), e
    # A prefork worker's accept loop waits for and holds the GIL for no
    # request: its lane's events carry none.
    if e["name"] not in ("gil", "loop_blocked", "accept") and tracks[(e["pid"], e["tid"])] != "acceptor":
        assert r is not None, "request phase without args.request: %r" % e
    xs.append(e)
# Complete events nest on each track (what the importers require).
stacks = {}
for e in sorted(xs, key=lambda e: (e["pid"], e["tid"], e["ts"], -e["dur"])):
    st = stacks.setdefault((e["pid"], e["tid"]), [])
    while st and st[-1] <= e["ts"] + 1e-6:
        st.pop()
    assert not st or e["ts"] + e["dur"] <= st[-1] + 1e-3, "events overlap without nesting on %s" % tracks[(e["pid"], e["tid"])]
    st.append(e["ts"] + e["dur"])
by = lambda name: [e for e in xs if e["name"] == name]
def most_at_once(es, key=lambda e: 0):
    best = {}
    edges = {}
    for e in es:
        # In whole nanoseconds: touching intervals (a GIL hand-off) must not
        # overlap by a rounding error of the µs floats.
        s, d = round(e["ts"] * 1000), round(e["dur"] * 1000)
        edges.setdefault(key(e), []).extend([(s, 1), (s + d, -1)])
    for k, ed in edges.items():
        cur = m = 0
        for _, d in sorted(ed, key=lambda x: (x[0], x[1])):
            cur += d
            m = max(m, cur)
        best[k] = m
    return best
handlers = by("handler")
reqs = sorted({e["args"]["request"] for e in handlers})
assert reqs == list(range(1, n + 1)), "handlers for requests %r, want 1..%d" % (reqs[:5], n)
assert len(handlers) == n, "%d handler events, want %d (one per request)" % (len(handlers), n)
for f in facts:
    k, _, v = f.partition("=")
    if k == "max_running":
        got = max(most_at_once(handlers).values())
        assert got == int(v), "most handlers at once %d, want %s" % (got, v)
    elif k == "waves":
        # bench/trace.Waves' rule: a request that starts at or after the
        # end of one of the current wave's requests opens the next wave.
        waves, end = [], None
        for e in sorted(handlers, key=lambda e: e["ts"]):
            if end is None or e["ts"] >= end:
                waves.append(0)
                end = e["ts"] + e["dur"]
            waves[-1] += 1
            end = min(end, e["ts"] + e["dur"])
        assert waves == [int(x) for x in v.split(",")], "waves %r, want %s" % (waves, v)
    elif k == "gil_exclusive":
        got = most_at_once(by("gil"), key=lambda e: e["pid"])
        # gunicorn's greedy accept may give one worker the whole burst:
        # at most v processes hold a GIL, never two threads of one.
        assert 1 <= len(got) <= int(v), "GIL tracks in %d processes, want 1..%s" % (len(got), v)
        assert max(got.values()) == 1, "two threads of one process held the GIL at once: %r" % got
    else:
        raise SystemExit("unknown fact " + k)
print("65-trace: %s: %d complete events, %d processes, %d tracks: ok" % (path.rsplit("/", 1)[-1], len(xs), len(procs), len(tracks)))
PY
}

traced /sync-sleep sleep=500ms 100 "$WORK/sync.json"
check "$WORK/sync.json" 100 max_running=40 waves=40,40,20
traced /async-block sleep=30ms 10 "$WORK/block.json"
check "$WORK/block.json" 10 max_running=1
traced "flask 2w x 5t" burn=20ms 10 "$WORK/prefork.json"
check "$WORK/prefork.json" 10 gil_exclusive=2

# Bad input: an unwritable trace file is refused up front (usage error, exit
# 2), before the server starts, not found out when it stops.
set +e
timeout 30 conclab serve --strategy goroutines --workload none --trace /no/such/dir/t.json >"$WORK/serve.out" 2>&1
code=$?
set -e
if [ "$code" != 2 ] || ! grep -q -- "--trace: open /no/such/dir/t.json: no such file or directory" "$WORK/serve.out" || grep -q 'http://' "$WORK/serve.out"; then
  echo "65-trace: unwritable --trace: exit $code (want 2, refused before serving)" >&2; cat "$WORK/serve.out" >&2; exit 1
fi
echo "65-trace: ok"
