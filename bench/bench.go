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
//		Repeat:     3, // median and range of three runs
//	})
//	res.Summary // strategy, workload, load, count, ..., elapsed_s, elapsed_s_min, elapsed_s_max, rps, ..., cpu_s, gil_wait_ms, ...
//
// Run is the one engine: every strategy — the lab's model and Go-native
// families, the sources' real CPython apps, a server the user runs — starts
// through the strategy.Strategy interface and is loaded by bench/load, so
// every *_ms and rps column has bench/metrics' one definition. In a cell it
// shows a live progress line per strategy (progress.go).
//
// Where things live, by folder and file:
//
//	bench/strategy/<family>.go  a strategy family: uvicorn.go, gunicorn.go, python.go,
//	                            gonative.go, goprocesspool.go, external.go; presets in strategy.go
//	bench/cpython/real.go       real CPython apps as a strategy
//	bench/pymodel               the Python model and every workload step (step.go, image.go,
//	                            appsteps.go; kinds.go is the table of step kinds)
//	bench/load                  load models (Burst, Sequential, Closed, Open) and the generator
//	bench/metrics               every measured column: latency percentiles, rps, series
//	bench/strategy/stats.go     the server-side columns (cpu_s, gil_wait_ms, ...)
//	bench/trace                 per-request traces; bench/trace.go turns them into frames
//	bench/frame                 frames (tables) the results come in
//	charts                      charts of frames
//
// The public surface has no generics, so the interpreter can call all of it.
// Strategies run one after another, never at once, so they do not compete
// for the machine.
package bench

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"
	"sync"
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
	// Strategies run one after another, in order: the lab's model and
	// Go-native families (bench/strategy), real CPython apps
	// (bench/cpython's Real), a server the user runs (strategy.External).
	Strategies []strategy.Strategy
	// Workload is what every request does, on the strategies that run the
	// lab's workload (strategy.RunsWorkload; a real CPython app or an
	// External server ignores it, and it need not be valid for them).
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
	// filled in per run. Options.Progress, if set, is called as well as
	// Progress.
	Options load.Options
	// Pause is waited between runs, letting the machine settle.
	Pause time.Duration
	// Setup, if not nil, is called with each started server before its
	// load runs (e.g. to warm it up or record its URL).
	Setup func(ctx context.Context, srv strategy.Server) error
	// TraceEvents caps each strategy's trace (per process): 0 means
	// trace.DefaultCap events, negative turns tracing off. Events beyond
	// the cap are dropped and counted in a warning.
	TraceEvents int
	// Repeat runs each strategy that many times, one run after another
	// (0 means 1), each on a server of its own. The summary row is then
	// each number column's median over the runs, with the spread beside
	// elapsed_s, rps, avg_ms and p95_ms as COL_min and COL_max (see
	// SpreadColumns) — never a best-of.
	Repeat int
	// Progress, if not nil, is called as the experiment goes (see
	// Progress), from Run's goroutine and the load generator's. When nil
	// and a display publisher is installed (a notebook cell, conclab
	// run), Run shows a live display instead: one line per strategy,
	// updated in place, left in its final state when Run returns.
	Progress func(Progress)
}

// Result holds an experiment's frames and the raw results behind them.
type Result struct {
	Name string
	// Summary has one row per strategy: the load generator's summary
	// columns followed by the server's (strategy.ServerColumns). With
	// Experiment.Repeat > 1 each number is the median over the runs, and
	// SpreadColumns' COL_min and COL_max follow COL.
	Summary *frame.Frame
	// Series and Distribution concatenate every run's frames; with
	// Experiment.Repeat > 1 a number column "run" (1, 2, ...) tells a
	// strategy's runs apart.
	Series, Distribution *frame.Frame
	// Loads and Servers are the per-run results, in run order (a
	// strategy's repeats together, strategies in order).
	Loads   []*metrics.Result
	Servers []strategy.Stats
	// Warnings gathers generator self-check warnings and the servers'
	// slow-callback warnings, each prefixed with its strategy (and run,
	// when repeating).
	Warnings []string
	// Trace has one row per traced interval of every strategy (see
	// TraceColumns): strategy, request (numbered by arrival), worker,
	// thread, phase (queue, limiter_wait, handler, gil_wait, cpu, io, ...,
	// gil, loop_blocked: bench/trace), start_ms, end_ms. Empty when
	// tracing is off. With Experiment.Repeat > 1 it holds each strategy's
	// first run (every run is traced alike). charts.Waterfall and
	// charts.Lanes draw it.
	Trace *frame.Frame
	// Traces are the per-strategy traces behind Trace, in order.
	Traces []trace.Snapshot

	names []string // strategy labels, in order
}

// workload is the strategy's own workload, else the common one.
func (e Experiment) workload(s strategy.Strategy) pymodel.Workload {
	if w, ok := e.Workloads[s.Label()]; ok {
		return w
	}
	return e.Workload
}

// validate checks everything that can be checked before a server starts.
func (e Experiment) validate() error {
	if len(e.Strategies) == 0 {
		return errors.New("experiment has no strategies")
	}
	if e.Load == nil {
		return errors.New("experiment has no load model")
	}
	if e.Pause < 0 {
		return fmt.Errorf("Pause must not be negative, got %v", e.Pause)
	}
	if e.Repeat < 0 {
		return fmt.Errorf("Repeat must not be negative, got %d", e.Repeat)
	}
	names := map[string]bool{}
	for i, s := range e.Strategies {
		if s == nil {
			return fmt.Errorf("strategy %d of %d is nil", i+1, len(e.Strategies))
		}
		if err := s.Validate(); err != nil {
			return err
		}
		if names[s.Label()] {
			return fmt.Errorf("two strategies are labelled %q: rows must have distinct labels", s.Label())
		}
		names[s.Label()] = true
		if !strategy.RunsWorkload(s) {
			continue
		}
		if err := e.workload(s).Validate(); err != nil {
			return fmt.Errorf("strategy %q: workload: %w", s.Label(), err)
		}
	}
	for n := range e.Workloads {
		if !names[n] {
			return fmt.Errorf("Workloads names %q, which is not one of the strategies", n)
		}
	}
	return nil
}

// run is one strategy run's results.
type run struct {
	load  *metrics.Result
	stats strategy.Stats
	trace trace.Snapshot
}

// Run runs the experiment: every strategy through the strategy.Strategy
// interface (Start, Setup, the load model through bench/load, Stats, Trace,
// Close), one after another, Repeat times each. Nothing is left running
// when Run returns, also when ctx is cancelled.
func Run(ctx context.Context, e Experiment) (res *Result, err error) {
	if err := e.validate(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	repeats := max(e.Repeat, 1)
	name := e.Name
	if name == "" {
		name = e.Workload.Label()
		if len(e.Workload.Steps) == 0 && len(e.Workloads) > 0 {
			name = "per-strategy workloads"
		}
	}
	report := e.Progress
	if report == nil {
		labels := make([]string, len(e.Strategies))
		for i, s := range e.Strategies {
			labels[i] = s.Label()
		}
		if l := openLive(labels, repeats); l != nil {
			report = l.update
			defer func() { l.finish(err) }()
		}
	}
	res = &Result{Name: name, Trace: newTraceFrame(name + " trace")}
	var sums, series, dists []*frame.Frame
	for k, s := range e.Strategies {
		label := s.Label()
		p := Progress{Strategy: label, K: k + 1, N: len(e.Strategies), Repeat: 1, Repeats: repeats}
		var runs []run
		for r := 1; r <= repeats; r++ {
			if (k > 0 || r > 1) && e.Pause > 0 {
				select {
				case <-time.After(e.Pause):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			p.Repeat = r
			one, last, err := runOne(ctx, e, s, p, report)
			if err != nil {
				if repeats > 1 {
					return nil, fmt.Errorf("bench: strategy %q, run %d of %d: %w", label, r, repeats, err)
				}
				return nil, fmt.Errorf("bench: strategy %q: %w", label, err)
			}
			p = last
			runs = append(runs, one)
			who := label
			if repeats > 1 {
				who = fmt.Sprintf("%s run %d", label, r)
			}
			if one.trace.Dropped > 0 {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: trace: %d events dropped beyond the cap of %d per process (Experiment.TraceEvents)", who, one.trace.Dropped, one.trace.Cap))
			}
			for _, w := range one.load.Warnings {
				res.Warnings = append(res.Warnings, who+": "+w)
			}
			for _, w := range one.stats.Warnings {
				res.Warnings = append(res.Warnings, who+": "+w)
			}
			res.Loads = append(res.Loads, one.load)
			res.Servers = append(res.Servers, one.stats)
			ser, dist := one.load.Series(), one.load.Distribution()
			if repeats > 1 {
				if ser, err = withRun(ser, r); err != nil {
					return nil, err
				}
				if dist, err = withRun(dist, r); err != nil {
					return nil, err
				}
			}
			series = append(series, ser)
			dists = append(dists, dist)
		}
		res.names = append(res.names, label)
		res.Traces = append(res.Traces, runs[0].trace)
		if err := traceFrame(res.Trace, label, runs[0].trace); err != nil {
			return nil, err
		}
		sum, err := summarize(runs)
		if err != nil {
			return nil, err
		}
		sums = append(sums, sum)
		if report != nil {
			p.Done = true
			report(p)
		}
	}
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

// runOne starts s's server, runs the load against it and reads its
// figures and trace before closing it. p is the progress so far; the last
// one reported is returned.
func runOne(ctx context.Context, e Experiment, s strategy.Strategy, p Progress, report func(Progress)) (run, Progress, error) {
	var so strategy.StartOptions
	switch {
	case e.TraceEvents == 0:
		so.TraceEvents = trace.DefaultCap
	case e.TraceEvents > 0:
		so.TraceEvents = e.TraceEvents
	}
	p.Elapsed, p.Requests, p.Errors, p.RPS = 0, 0, 0, 0
	if report != nil {
		report(p)
	}
	srv, err := s.Start(ctx, e.workload(s), so)
	if err != nil {
		return run{}, p, err
	}
	defer srv.Close()
	if e.Setup != nil {
		if err := e.Setup(ctx, srv); err != nil {
			return run{}, p, fmt.Errorf("setup: %w", err)
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
		return run{}, p, fmt.Errorf("request URL must be a path such as /work, got %q", path)
	}
	t.URL = srv.URL() + path
	o := e.Options
	o.Strategy = s.Label()
	o.Workload = e.workload(s).Label()
	if ip, ok := srv.(interface{ InProcessCPU() time.Duration }); ok && o.ServerCPU == nil {
		o.ServerCPU = ip.InProcessCPU
	}
	var mu sync.Mutex
	last := p
	if report != nil || o.Progress != nil {
		var window rateWindow
		user := o.Progress
		o.Progress = func(lp load.Progress) {
			if user != nil {
				user(lp)
			}
			if report == nil {
				return
			}
			mu.Lock()
			last = last.fromLoad(lp, &window)
			q := last
			mu.Unlock()
			report(q)
		}
	}
	lr, err := load.Run(ctx, t, e.Load, o)
	if err != nil {
		return run{}, p, err
	}
	st := srv.Stats() // before Close: worker processes are read live
	tr, err := srv.Trace()
	if err != nil {
		return run{}, p, fmt.Errorf("trace: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The run's own figures: the generator's last snapshot may predate
	// the last requests' end.
	last.Requests, last.Errors, last.RPS = lr.Count(), lr.Errors(), lr.RPS()
	if lr.Elapsed > 0 {
		last.Elapsed = lr.Elapsed
	}
	return run{load: lr, stats: st, trace: tr}, last, nil
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
