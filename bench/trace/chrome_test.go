package trace_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/conclab/conclab/bench/trace"
)

// Intervals that overlap without nesting go to sub-tracks; nested ones share
// a track; every event becomes one complete event.
func TestWriteChromeTracks(t *testing.T) {
	t.Parallel()
	ms := int64(1e6)
	evs := []trace.Event{
		{Request: 1, Thread: "loop queue", Phase: trace.Queue, Start: 0, End: 10 * ms},
		{Request: 2, Thread: "loop queue", Phase: trace.Queue, Start: 5 * ms, End: 15 * ms}, // overlaps #1: sub-track
		{Request: 1, Thread: "loop", Phase: trace.LoopBlocked, Start: 10 * ms, End: 30 * ms},
		{Request: 1, Thread: "loop", Phase: trace.IO, Start: 12 * ms, End: 28 * ms}, // nested in loop_blocked
		{Request: 1, Thread: "loop", Phase: trace.GIL, Start: 10 * ms, End: 12 * ms},
		{Request: 0, Worker: 2, Thread: "acceptor", Phase: trace.Accept, Start: 1 * ms, End: 2 * ms},
	}
	var buf bytes.Buffer
	if err := trace.WriteChrome(&buf, trace.Process{Name: "/async-block", Events: evs}); err != nil {
		t.Fatal(err)
	}
	got := checkChrome(t, buf.Bytes())
	if got.complete != len(evs) {
		t.Errorf("complete events = %d; want %d", got.complete, len(evs))
	}
	if got.processes != 2 {
		t.Errorf("processes = %d; want 2 (worker 0 and worker 2)", got.processes)
	}
	want := map[string]bool{"loop queue": true, "loop queue #2": true, "loop": true, "GIL": true, "acceptor": true}
	for n := range want {
		if !got.tracks[n] {
			t.Errorf("no track %q (have %v)", n, got.tracks)
		}
	}
}

type chromeSummary struct {
	complete, processes int
	tracks              map[string]bool
	names               map[string]int
}

// checkChrome checks the trace event format: a JSON object with a
// traceEvents array; metadata events naming processes and threads; complete
// events with name, ts, dur ≥ 0, pid, tid, properly nested per track, and
// args.request a positive integer where present.
func checkChrome(t *testing.T, data []byte) chromeSummary {
	t.Helper()
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	s := chromeSummary{tracks: map[string]bool{}, names: map[string]int{}}
	type key struct{ pid, tid float64 }
	named := map[key]bool{}
	stacks := map[key][]float64{}
	pids := map[float64]bool{}
	for i, e := range doc.TraceEvents {
		ph, _ := e["ph"].(string)
		name, _ := e["name"].(string)
		pid, ok1 := e["pid"].(float64)
		tid, _ := e["tid"].(float64)
		if !ok1 || name == "" {
			t.Fatalf("event %d: no pid or name: %v", i, e)
		}
		switch ph {
		case "M":
			args, _ := e["args"].(map[string]any)
			if name == "thread_name" {
				named[key{pid, tid}] = true
				s.tracks[args["name"].(string)] = true
			}
			if name == "process_name" {
				pids[pid] = true
			}
		case "X":
			ts, ok1 := e["ts"].(float64)
			dur, ok2 := e["dur"].(float64)
			if !ok1 || !ok2 || dur < 0 || ts < 0 {
				t.Fatalf("event %d: bad ts/dur: %v", i, e)
			}
			if !named[key{pid, tid}] {
				t.Errorf("event %d: track pid %v tid %v has no thread_name", i, pid, tid)
			}
			if args, ok := e["args"].(map[string]any); ok {
				if r, ok := args["request"]; ok {
					if f, ok := r.(float64); !ok || f < 1 || f != float64(int64(f)) {
						t.Errorf("event %d: args.request %v is not a request number", i, r)
					}
				}
			}
			k := key{pid, tid}
			st := stacks[k]
			for len(st) > 0 && st[len(st)-1] <= ts+1e-6 {
				st = st[:len(st)-1]
			}
			if len(st) > 0 && ts+dur > st[len(st)-1]+1e-3 {
				t.Errorf("event %d (%s at %v µs) overlaps its track's enclosing event without nesting", i, name, ts)
			}
			stacks[k] = append(st, ts+dur)
			s.complete++
			s.names[name]++
		default:
			t.Fatalf("event %d: unexpected ph %q", i, ph)
		}
	}
	s.processes = len(pids)
	return s
}

func TestFacts(t *testing.T) {
	t.Parallel()
	ms := int64(1e6)
	h := func(r int64, w int, s, e int64) trace.Event {
		return trace.Event{Request: r, Worker: w, Phase: trace.Handler, Start: s * ms, End: e * ms}
	}
	evs := []trace.Event{h(1, 1, 0, 10), h(2, 1, 0, 10), h(3, 1, 10, 20), h(1, 2, 30, 40), {Phase: trace.GIL, Worker: 1, Start: 0, End: 5 * ms}}
	if got := trace.MaxOverlap(evs, trace.Handler); got != 2 {
		t.Errorf("MaxOverlap = %d; want 2 (touching intervals do not overlap)", got)
	}
	if got := trace.Waves(evs, trace.Handler); len(got) != 3 || got[0] != 2 || got[1] != 1 || got[2] != 1 {
		t.Errorf("Waves = %v; want [2 1 1]", got)
	}
	if n := trace.Renumber(evs); n != 4 {
		t.Errorf("Renumber: %d requests; want 4", n)
	}
	if evs[3].Request != 4 || evs[4].Request != 0 {
		t.Errorf("renumbered: worker 2's request = %d (want 4), process event = %d (want 0)", evs[3].Request, evs[4].Request)
	}
}

func TestRecorderCapAndNil(t *testing.T) {
	t.Parallel()
	var off *trace.Recorder
	off.Add(trace.Event{Phase: trace.CPU})
	if off.On() || off.NextRequest() != 0 || len(off.Snapshot().Events) != 0 {
		t.Error("a nil recorder records")
	}
	r := trace.NewRecorder(64)
	for i := 0; i < 200; i++ {
		r.Add(trace.Event{Request: int64(i), Thread: "t", Phase: trace.IO, Start: int64(i), End: int64(i + 1)})
	}
	s := r.Snapshot()
	if len(s.Events) != 64 || s.Dropped != 136 {
		t.Errorf("kept %d, dropped %d; want 64 and 136", len(s.Events), s.Dropped)
	}
	for i := 1; i < len(s.Events); i++ {
		if s.Events[i].Start < s.Events[i-1].Start {
			t.Fatal("snapshot not sorted by start")
		}
	}
	if s.Events[0].Thread != "t" || s.Events[0].Phase != trace.IO {
		t.Errorf("names not kept: %+v", s.Events[0])
	}
}

// Names found by the recorder's fast path come back as they went in.
func TestRecorderNames(t *testing.T) {
	t.Parallel()
	names := []string{trace.Queue, trace.LimiterWait, trace.Handler, trace.GIL, trace.LoopBlocked, trace.Respond, trace.GILWait,
		trace.CPU, trace.IO, trace.Write, "loop", "loop queue", "asyncio tasks", "responses", "goroutines", "anyio wait", "anyio-7", ""}
	r := trace.NewRecorder(1000)
	for i, n := range names {
		r.Add(trace.Event{Request: 1, Thread: n, Phase: n, Start: int64(i), End: int64(i)})
	}
	for i, e := range r.Snapshot().Events {
		if e.Thread != names[i] || e.Phase != names[i] {
			t.Errorf("event %d: thread %q, phase %q; want %q", i, e.Thread, e.Phase, names[i])
		}
	}
}
