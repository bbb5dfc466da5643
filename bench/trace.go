package bench

import (
	"fmt"
	"math"
	"os"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
)

// TraceColumns are the columns of Result.Trace, in order: one row per
// interval, times in milliseconds from the strategy's first traced event.
var TraceColumns = []string{"strategy", "request", "worker", "thread", "phase", "start_ms", "end_ms"}

// traceFrame turns one strategy's trace into rows of f.
func traceFrame(f *frame.Frame, name string, s trace.Snapshot) error {
	if len(s.Events) == 0 {
		return nil
	}
	origin := s.Events[0].Start
	for _, e := range s.Events {
		origin = min(origin, e.Start)
	}
	for _, e := range s.Events {
		if err := f.Append(frame.Row{
			"strategy": name, "request": e.Request, "worker": e.Worker, "thread": e.Thread, "phase": e.Phase,
			"start_ms": float64(e.Start-origin) / 1e6, "end_ms": float64(e.End-origin) / 1e6,
		}); err != nil {
			return err
		}
	}
	return nil
}

// TraceFrame makes a trace frame (TraceColumns) of one strategy's trace,
// for traces recorded outside Run — a model runtime given a
// trace.Recorder, a real CPython server's middleware — so that they can be
// concatenated (frame.Concat) with a Result's Trace and drawn side by side.
func TraceFrame(strategy string, s trace.Snapshot) *frame.Frame {
	f := newTraceFrame(strategy + " trace")
	traceFrame(f, strategy, s)
	return f
}

// newTraceFrame is an empty trace frame with TraceColumns.
func newTraceFrame(name string) *frame.Frame {
	f := frame.New(name)
	for _, c := range TraceColumns {
		k := frame.Number
		switch c {
		case "strategy", "thread", "phase":
			k = frame.Label
		}
		f.AddColumn(c, k)
	}
	return f
}

// EventsOf turns the rows of strategy in a trace frame (TraceColumns; ""
// means every row) back into events, times in nanoseconds from the frame's
// origin, so the facts of bench/trace (MaxOverlap, Waves, Within) can be
// asked of any trace frame — a Result's, a real server's.
func EventsOf(f *frame.Frame, strategy string) []trace.Event {
	if f == nil || !f.Has("phase") || !f.Has("start_ms") || !f.Has("end_ms") {
		return nil
	}
	hasS, hasW, hasT, hasR := f.Has("strategy"), f.Has("worker"), f.Has("thread"), f.Has("request")
	var out []trace.Event
	for i := 0; i < f.Len(); i++ {
		if strategy != "" && hasS && f.Text("strategy", i) != strategy {
			continue
		}
		e := trace.Event{Phase: f.Text("phase", i),
			Start: int64(math.Round(f.Float("start_ms", i) * 1e6)), End: int64(math.Round(f.Float("end_ms", i) * 1e6))}
		if hasW {
			e.Worker = int(f.Float("worker", i))
		}
		if hasT {
			e.Thread = f.Text("thread", i)
		}
		if hasR {
			e.Request = int64(f.Float("request", i))
		}
		out = append(out, e)
	}
	return out
}

// TraceOf returns the named strategy's trace (events in Unix nanoseconds,
// requests numbered by arrival), or false if the result has no such
// strategy or it was not traced.
func (r *Result) TraceOf(strategy string) (trace.Snapshot, bool) {
	for i, n := range r.names {
		if n == strategy && i < len(r.Traces) {
			return r.Traces[i], len(r.Traces[i].Events) > 0
		}
	}
	return trace.Snapshot{}, false
}

// WriteTrace writes every strategy's trace to path in Chrome's trace event
// JSON format, for Perfetto UI (ui.perfetto.dev: Open trace file) and
// chrome://tracing: a process per strategy (and per worker process), a track
// per thread, each phase a complete event carrying args.request. It fails
// if nothing was traced.
func (r *Result) WriteTrace(path string) (err error) {
	var procs []trace.Process
	n := 0
	for i, s := range r.Traces {
		name := fmt.Sprintf("strategy %d", i+1)
		if i < len(r.names) {
			name = r.names[i]
		}
		procs = append(procs, trace.Process{Name: name, Events: s.Events, Dropped: s.Dropped})
		n += len(s.Events)
	}
	if n == 0 {
		return fmt.Errorf("bench: WriteTrace %s: the result has no trace (Experiment.TraceEvents < 0?)", path)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("bench: WriteTrace: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("bench: WriteTrace: %w", cerr)
		}
	}()
	if err := trace.WriteChrome(f, procs...); err != nil {
		return fmt.Errorf("bench: WriteTrace %s: %w", path, err)
	}
	return nil
}
