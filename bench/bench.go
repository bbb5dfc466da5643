// Package bench is what a notebook cell calls to run an experiment: start a
// server under each strategy, drive it with a load model, and get frames
// back — a summary (one row per strategy, the load generator's figures
// joined with the server's own measures), a series and a latency
// distribution.
//
//	strategies, err := bench.Presets("/sync-sleep", "/async-block", "/async-ok")
//	res, err := bench.Run(ctx, bench.Experiment{
//		Strategies: strategies,
//		Workload:   bench.Steps(bench.Sleep(time.Second)),
//		Load:       load.Burst{N: 10},
//	})
//	res.Summary // strategy, workload, load, count, ..., elapsed_s, rps, p95_ms, ..., cpu_s, gil_wait_ms, loop_blocked_ms, ...
//
// Servers, strategies and the Python model live in bench/strategy and
// bench/pymodel; load models in bench/load; frames in bench/frame. The
// public surface has no generics, so the interpreter can call all of it.
// Strategies run one after another, never at once, so they do not compete
// for the machine.
package bench

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// Experiment is one comparison: each strategy serves the workload and is
// driven by the load model. It is a plain value a cell can print and change.
type Experiment struct {
	// Name captions the result frames.
	Name string
	// Strategies run one after another, in order.
	Strategies []strategy.Strategy
	// Workload is what every request does, on the strategies that run the
	// lab's workload (strategy.RunsWorkload; a real CPython app or an
	// External server ignores it).
	Workload pymodel.Workload
	// Workloads, if set, gives the strategies it names (by Label) their
	// own workload in place of Workload (source 000's print endpoints: one
	// server style, three handler bodies).
	Workloads map[string]pymodel.Workload
	// Load is the load model: load.Burst, load.Sequential, load.Closed,
	// load.Open.
	Load load.Model
	// Request is the request sent; its URL is a path ("" means "/work")
	// joined to each server's URL. A strategy with a RequestPath() string
	// method returning a non-empty path is sent that path instead (a real
	// app's endpoint). Body and Files are sent as given.
	Request load.Target
	// Options tune the load generator; Strategy and Workload labels are
	// filled in per run.
	Options load.Options
	// Pause is waited between strategies, letting the machine settle.
	Pause time.Duration
	// Setup, if not nil, is called with each started server before its
	// load runs (e.g. to warm it up or record its URL).
	Setup func(ctx context.Context, srv strategy.Server) error
	// TraceEvents caps each strategy's trace (per process): 0 means
	// trace.DefaultCap events, negative turns tracing off. Events beyond
	// the cap are dropped and counted in a warning.
	TraceEvents int
}

// Result holds an experiment's frames and the raw results behind them.
type Result struct {
	Name string
	// Summary has one row per strategy: the load generator's summary
	// columns followed by the server's (strategy.ServerColumns).
	Summary *frame.Frame
	// Series and Distribution concatenate every strategy's frames.
	Series, Distribution *frame.Frame
	// Loads and Servers are the per-strategy results, in order.
	Loads   []*metrics.Result
	Servers []strategy.Stats
	// Warnings gathers generator self-check warnings and the servers'
	// slow-callback warnings, each prefixed with its strategy.
	Warnings []string
	// Trace has one row per traced interval of every strategy (see
	// TraceColumns): strategy, request (numbered by arrival), worker,
	// thread, phase (queue, limiter_wait, handler, gil_wait, cpu, io, ...,
	// gil, loop_blocked: bench/trace), start_ms, end_ms. Empty when
	// tracing is off. charts.Waterfall and charts.Lanes draw it.
	Trace *frame.Frame
	// Traces are the per-strategy traces behind Trace, in order.
	Traces []trace.Snapshot

	names []string // strategy names, in order
}

// workload is the strategy's own workload, else the common one.
func (e Experiment) workload(s strategy.Strategy) pymodel.Workload {
	if w, ok := e.Workloads[s.Label()]; ok {
		return w
	}
	return e.Workload
}

// Run runs the experiment. Each strategy's server is started, loaded and
// closed before the next starts; nothing is left running when Run returns.
func Run(ctx context.Context, e Experiment) (*Result, error) {
	if len(e.Strategies) == 0 {
		return nil, errors.New("bench: experiment has no strategies")
	}
	if e.Load == nil {
		return nil, errors.New("bench: experiment has no load model")
	}
	names := map[string]bool{}
	for i, s := range e.Strategies {
		if s == nil {
			return nil, fmt.Errorf("bench: strategy %d of %d is nil", i+1, len(e.Strategies))
		}
		names[s.Label()] = true
		if !strategy.RunsWorkload(s) {
			continue
		}
		if err := e.workload(s).Validate(); err != nil {
			return nil, fmt.Errorf("bench: strategy %q: workload: %w", s.Label(), err)
		}
	}
	for n := range e.Workloads {
		if !names[n] {
			return nil, fmt.Errorf("bench: Workloads names %q, which is not one of the strategies", n)
		}
	}
	for _, s := range e.Strategies {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
	}
	if e.Pause < 0 {
		return nil, fmt.Errorf("bench: Pause must not be negative, got %v", e.Pause)
	}
	name := e.Name
	if name == "" {
		name = e.Workload.Label()
		if len(e.Workload.Steps) == 0 && len(e.Workloads) > 0 {
			name = "per-strategy workloads"
		}
	}
	res := &Result{Name: name, Trace: newTraceFrame(name + " trace")}
	var sums, series, dists []*frame.Frame
	for i, s := range e.Strategies {
		if i > 0 && e.Pause > 0 {
			select {
			case <-time.After(e.Pause):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		lr, st, tr, err := runOne(ctx, e, s)
		if err != nil {
			return nil, fmt.Errorf("bench: strategy %q: %w", s.Label(), err)
		}
		res.names = append(res.names, s.Label())
		res.Traces = append(res.Traces, tr)
		if tr.Dropped > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: trace: %d events dropped beyond the cap of %d per process (Experiment.TraceEvents)", s.Label(), tr.Dropped, tr.Cap))
		}
		if err := traceFrame(res.Trace, s.Label(), tr); err != nil {
			return nil, err
		}
		res.Loads = append(res.Loads, lr)
		res.Servers = append(res.Servers, st)
		for _, w := range lr.Warnings {
			res.Warnings = append(res.Warnings, s.Label()+": "+w)
		}
		for _, w := range st.Warnings {
			res.Warnings = append(res.Warnings, s.Label()+": "+w)
		}
		sum, err := joinServer(lr.Summary(), st)
		if err != nil {
			return nil, err
		}
		sums = append(sums, sum)
		series = append(series, lr.Series())
		dists = append(dists, lr.Distribution())
	}
	var err error
	if res.Summary, err = frame.Concat(name, sums...); err != nil {
		return nil, err
	}
	if res.Series, err = frame.Concat(name+" series", series...); err != nil {
		return nil, err
	}
	if res.Distribution, err = frame.Concat(name+" distribution", dists...); err != nil {
		return nil, err
	}
	return res, nil
}

func runOne(ctx context.Context, e Experiment, s strategy.Strategy) (*metrics.Result, strategy.Stats, trace.Snapshot, error) {
	var none trace.Snapshot
	var so strategy.StartOptions
	switch {
	case e.TraceEvents == 0:
		so.TraceEvents = trace.DefaultCap
	case e.TraceEvents > 0:
		so.TraceEvents = e.TraceEvents
	}
	srv, err := s.Start(ctx, e.workload(s), so)
	if err != nil {
		return nil, strategy.Stats{}, none, err
	}
	defer srv.Close()
	if e.Setup != nil {
		if err := e.Setup(ctx, srv); err != nil {
			return nil, strategy.Stats{}, none, fmt.Errorf("setup: %w", err)
		}
	}
	t := e.Request
	path := t.URL
	if rp, ok := s.(interface{ RequestPath() string }); ok && rp.RequestPath() != "" {
		path = rp.RequestPath()
	}
	if path == "" {
		path = "/work"
	}
	if !strings.HasPrefix(path, "/") {
		return nil, strategy.Stats{}, none, fmt.Errorf("request URL must be a path such as /work, got %q", path)
	}
	t.URL = srv.URL() + path
	o := e.Options
	o.Strategy = s.Label()
	o.Workload = e.workload(s).Label()
	if ip, ok := srv.(interface{ InProcessCPU() time.Duration }); ok && o.ServerCPU == nil {
		o.ServerCPU = ip.InProcessCPU
	}
	lr, err := load.Run(ctx, t, e.Load, o)
	if err != nil {
		return nil, strategy.Stats{}, none, err
	}
	st := srv.Stats() // before Close: worker processes are read live
	tr, err := srv.Trace()
	if err != nil {
		return nil, strategy.Stats{}, none, fmt.Errorf("trace: %w", err)
	}
	return lr, st, tr, nil
}

// joinServer appends the server columns to a one-row summary frame.
func joinServer(sum *frame.Frame, st strategy.Stats) (*frame.Frame, error) {
	out := frame.New(sum.Name)
	for _, c := range sum.Columns() {
		k, _ := sum.KindOf(c)
		if err := out.AddColumn(c, k); err != nil {
			return nil, err
		}
	}
	for _, c := range strategy.ServerColumns {
		if err := out.AddColumn(c, frame.Number); err != nil {
			return nil, err
		}
	}
	for i := 0; i < sum.Len(); i++ {
		row := sum.Row(i)
		for k, v := range st.Row() {
			row[k] = v
		}
		if err := out.Append(row); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// HTML renders the summary table and any warnings, so a cell's last value
// shows as a table.
func (r *Result) HTML() string {
	var b strings.Builder
	b.WriteString(r.Summary.HTML())
	if len(r.Warnings) > 0 {
		b.WriteString("<details><summary>")
		fmt.Fprintf(&b, "%d warnings", len(r.Warnings))
		b.WriteString("</summary><pre>")
		for _, w := range r.Warnings {
			b.WriteString(html.EscapeString(w) + "\n")
		}
		b.WriteString("</pre></details>")
	}
	return b.String()
}

// String renders the summary as text.
func (r *Result) String() string { return r.Summary.String() }
