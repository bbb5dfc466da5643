package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
)

// GILLane is the Chrome-export track of a process that shows who holds its
// GIL: each gil event there names its holder in args.thread.
const GILLane = "GIL"

// Process is one set of events exported as Chrome-trace processes: Name
// labels them ("/sync-sleep"), and each worker of the events becomes its
// own process ("/sync-sleep · worker 2").
type Process struct {
	Name    string
	Events  []Event
	Dropped int64
}

// chromeEvent is one entry of the trace event format's traceEvents.
type chromeEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteChrome writes the processes' events in Chrome's trace event JSON
// format (the "JSON object" form), which Perfetto UI and chrome://tracing
// load: one process (pid) per worker process of each Process, one track
// (tid) per thread lane, each event a complete event ("ph": "X") named by
// its phase, with ts and dur in microseconds from the earliest event, and
// args.request (the request's number) on every event that has one.
// Intervals that would overlap on one track without nesting (requests
// waiting side by side, a GIL hand-off inside a loop callback) go to
// numbered sub-tracks ("loop queue #2"); the GIL's holders go to a
// per-process GIL track. Metadata events name processes and tracks.
func WriteChrome(w io.Writer, procs ...Process) error {
	origin := int64(math.MaxInt64)
	for _, p := range procs {
		for _, e := range p.Events {
			origin = min(origin, e.Start)
		}
	}
	if origin == math.MaxInt64 {
		origin = 0
	}
	var out []chromeEvent
	pid := 0
	var dropped int64
	for _, p := range procs {
		dropped += p.Dropped
		byWorker := map[int][]Event{}
		var workers []int
		for _, e := range p.Events {
			if _, ok := byWorker[e.Worker]; !ok {
				workers = append(workers, e.Worker)
			}
			byWorker[e.Worker] = append(byWorker[e.Worker], e)
		}
		sort.Ints(workers)
		for _, wk := range workers {
			pid++
			name := p.Name
			if wk > 0 {
				name = fmt.Sprintf("%s · worker %d", p.Name, wk)
			}
			out = append(out, chromeEvent{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": name}},
				chromeEvent{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": pid}})
			out = append(out, chromeTracks(pid, byWorker[wk], origin)...)
		}
	}
	doc := struct {
		TraceEvents     []chromeEvent  `json:"traceEvents"`
		DisplayTimeUnit string         `json:"displayTimeUnit"`
		OtherData       map[string]any `json:"otherData"`
	}{out, "ms", map[string]any{"generator": "conclab", "dropped_events": dropped}}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("trace: writing Chrome trace: %w", err)
	}
	return bw.Flush()
}

// subTrack is one track's stack of open intervals.
type subTrack struct {
	tid   int
	stack []int64 // end times of the enclosing open events
}

// fits reports whether [s, e] nests on the track, popping what has ended.
func (t *subTrack) fits(s, e int64) bool {
	for len(t.stack) > 0 && t.stack[len(t.stack)-1] <= s {
		t.stack = t.stack[:len(t.stack)-1]
	}
	return len(t.stack) == 0 || e <= t.stack[len(t.stack)-1]
}

// chromeTracks lays one worker process's events out on tracks.
func chromeTracks(pid int, evs []Event, origin int64) []chromeEvent {
	evs = append([]Event(nil), evs...)
	Sort(evs)
	tracks := map[string][]*subTrack{}
	nextTid := 0
	var out []chromeEvent
	newTrack := func(lane string) *subTrack {
		nextTid++
		n := len(tracks[lane]) + 1
		name := lane
		if n > 1 {
			name = fmt.Sprintf("%s #%d", lane, n)
		}
		t := &subTrack{tid: nextTid}
		tracks[lane] = append(tracks[lane], t)
		out = append(out, chromeEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: t.tid, Args: map[string]any{"name": name}},
			chromeEvent{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: t.tid, Args: map[string]any{"sort_index": t.tid}})
		return t
	}
	for _, e := range evs {
		lane := e.Thread
		args := map[string]any{}
		if e.Phase == GIL {
			args["thread"] = e.Thread
			lane = GILLane
		}
		if lane == "" {
			lane = "server"
		}
		if e.Request > 0 {
			args["request"] = e.Request
		}
		var tr *subTrack
		for _, t := range tracks[lane] {
			if t.fits(e.Start, e.End) {
				tr = t
				break
			}
		}
		if tr == nil {
			tr = newTrack(lane)
			tr.fits(e.Start, e.End)
		}
		tr.stack = append(tr.stack, e.End)
		dur := float64(e.End-e.Start) / 1e3
		cat := "request"
		if e.Request == 0 || e.Phase == GIL || e.Phase == LoopBlocked {
			cat = "process"
		}
		out = append(out, chromeEvent{Name: e.Phase, Cat: cat, Ph: "X", Ts: float64(e.Start-origin) / 1e3, Dur: &dur,
			Pid: pid, Tid: tr.tid, Args: args})
	}
	return out
}
