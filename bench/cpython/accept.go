package cpython

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// How a burst of connections is shared among the worker processes of a
// gunicorn server (issue 15): real gunicorn's workers all wait on the one
// listening socket, and the one that wakes takes what is pending, so a
// burst lands mostly on one worker. MeasureSplit counts it, for the real
// apps and for the model (strategy.AcceptGreedy, or AcceptBalanced for the
// "what if").

// SplitColumns are the columns of MeasureSplit's frame, in order: one row
// per strategy, burst (1, 2, ...) and worker (1 .. Workers), with the
// number of that burst's requests the worker served.
var SplitColumns = []string{"strategy", "burst", "worker", "requests"}

// SplitServers are the servers MeasureSplit measures by default: Flask 2w x
// 5t and 3w x 5t (gthread), FastAPI 2w and 3w (uvicorn workers).
var SplitServers = []Server003{{Workers: 2, Threads: 5}, {Workers: 3, Threads: 5}, {FastAPI: true, Workers: 2}, {FastAPI: true, Workers: 3}}

// SplitOptions choose MeasureSplit's runs. The zero value measures the
// real SplitServers: 5 bursts of 10 requests each computing the sum of
// squares of 1,000,000, 200 ms apart.
type SplitOptions struct {
	// Servers are measured in order (nil: SplitServers); each must have
	// at least one worker.
	Servers []Server003
	// N requests are sent at once in each burst (0: 10).
	N int
	// Bursts are sent to each server, one after another on the same
	// server (0: 5).
	Bursts int
	// SumN is each request's sum of squares (0: 1,000,000).
	SumN int
	// Pause is waited before each burst, so that every worker is idle
	// again when it lands (0: 200 ms).
	Pause time.Duration
	// Model adds the model of each server (Server003.Model, labelled its
	// Name, beside the real "real " + Name), serving the calibrated cost
	// of SumN; Accept sets its strategy.Gunicorn / Uvicorn Accept policy.
	Model  bool
	Accept string
	// ModelOnly measures the model alone (no real CPython needed: the
	// cost comes from Calibration, which must then be set).
	ModelOnly bool
	// Calibration gives the model the cost of SumN; nil calibrates this
	// machine's CPython first (Calibrate).
	Calibration *Calibration
	// Python tunes the real apps (Trace is always on: the split is read
	// from each request's worker in the trace).
	Python Options
}

func (o *SplitOptions) defaults() error {
	if o.Servers == nil {
		o.Servers = SplitServers
	}
	if o.N == 0 {
		o.N = 10
	}
	if o.Bursts == 0 {
		o.Bursts = 5
	}
	if o.SumN == 0 {
		o.SumN = 1_000_000
	}
	if o.Pause == 0 {
		o.Pause = 200 * time.Millisecond
	}
	switch {
	case o.N < 0 || o.N > 1000:
		return fmt.Errorf("cpython: MeasureSplit: N must be in 1..1000, got %d", o.N)
	case o.Bursts < 0 || o.Bursts > 100:
		return fmt.Errorf("cpython: MeasureSplit: Bursts must be in 1..100, got %d", o.Bursts)
	case o.SumN < 0 || o.Pause < 0:
		return errors.New("cpython: MeasureSplit: SumN and Pause must not be negative")
	case o.ModelOnly && o.Calibration == nil:
		return errors.New("cpython: MeasureSplit: ModelOnly needs a Calibration (the model's cost of SumN)")
	case o.Accept != "" && o.Accept != strategy.AcceptGreedy && o.Accept != strategy.AcceptReusePort && o.Accept != strategy.AcceptBalanced:
		return fmt.Errorf("cpython: MeasureSplit: Accept must be %q, %q or %q, got %q", strategy.AcceptGreedy, strategy.AcceptReusePort, strategy.AcceptBalanced, o.Accept)
	}
	for _, c := range o.Servers {
		if c.Workers < 1 {
			return fmt.Errorf("cpython: MeasureSplit: server %s has %d workers; want at least 1", c.Name(), c.Workers)
		}
	}
	return nil
}

// MeasureSplit sends Bursts bursts of N requests to each server, real and
// (with Model or ModelOnly) modelled, and returns how each burst was shared
// among its worker processes (SplitColumns): a request's worker is read
// from the server's trace (the real apps' trace middleware records each
// request's pid; the model's worker processes number their events), and a
// request belongs to the burst it arrived in. Every burst's counts sum to
// N and every worker has a row, zero included. Without real CPython it
// fails with a *MissingError (errors.Is ErrUnavailable), unless ModelOnly.
func MeasureSplit(ctx context.Context, o SplitOptions) (*frame.Frame, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	path := "/cpu?n=" + strconv.Itoa(o.SumN)
	var wl pymodel.Workload
	if o.Model || o.ModelOnly {
		cal := o.Calibration
		if cal == nil {
			var err error
			if cal, err = CalibrateSum(ctx, o.Python.Python, o.SumN); err != nil {
				return nil, err
			}
		}
		wl = pymodel.Workload{Name: "sum of squares " + strconv.Itoa(o.SumN), Steps: []pymodel.Step{cal.SumSquaresStep(o.SumN)}}
	}
	popts := o.Python
	popts.Trace = true
	out := frame.Of("requests per worker per burst of "+strconv.Itoa(o.N), SplitColumns...)
	for _, c := range o.Servers {
		var ss []strategy.Strategy
		if !o.ModelOnly {
			ss = append(ss, Real{Name: RealPrefix + c.Name(), App: c.app(ModeCPU, time.Second, o.SumN), Endpoint: path, Options: popts})
		}
		if o.Model || o.ModelOnly {
			ss = append(ss, modelWithAccept(c, o.Accept))
		}
		for _, s := range ss {
			counts, err := splitOf(ctx, s, wl, c.Workers, o)
			if err != nil {
				return nil, fmt.Errorf("cpython: MeasureSplit %s: %w", s.Label(), err)
			}
			for b, row := range counts {
				for w, n := range row {
					if err := out.Add(s.Label(), b+1, w+1, n); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return out, nil
}

// modelWithAccept is c's model with the given accept policy.
func modelWithAccept(c Server003, accept string) strategy.Strategy {
	if accept == "" {
		return c.Model()
	}
	switch m := c.Model().(type) {
	case strategy.Gunicorn:
		m.Accept = accept
		return m
	case strategy.Uvicorn:
		m.Accept = accept
		return m
	default:
		return m
	}
}

// splitOf starts s, sends the bursts and counts each burst's requests per
// worker from the trace.
func splitOf(ctx context.Context, s strategy.Strategy, wl pymodel.Workload, workers int, o SplitOptions) ([][]int, error) {
	srv, err := s.Start(ctx, wl, strategy.StartOptions{TraceEvents: 200_000})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	target := srv.URL() + "/work"
	if rp, ok := s.(interface{ RequestPath() string }); ok && rp.RequestPath() != "" {
		target = srv.URL() + rp.RequestPath()
	}
	starts := make([]int64, 0, o.Bursts)
	for b := 0; b < o.Bursts; b++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(o.Pause):
		}
		starts = append(starts, time.Now().UnixNano())
		res, err := load.Run(ctx, load.Target{URL: target}, load.Burst{N: o.N}, load.Options{Timeout: time.Minute})
		if err != nil {
			return nil, err
		}
		if e := res.Errors(); e > 0 {
			return nil, fmt.Errorf("burst %d: %d of %d requests failed", b+1, e, o.N)
		}
	}
	tr, err := srv.Trace()
	if err != nil {
		return nil, err
	}
	return countSplit(tr.Events, starts, workers, o.N)
}

// countSplit assigns each request of evs (by its first event) to the burst
// it arrived in (starts: each burst's start, in order) and counts the
// requests of each burst per worker (numbered 1..workers; a trace of one
// process numbers its worker 0, counted as worker 1). Each burst must
// count n requests, on workers within 1..workers.
func countSplit(evs []trace.Event, starts []int64, workers, n int) ([][]int, error) {
	type req struct {
		worker int
		first  int64
	}
	reqs := map[[2]int64]*req{}
	for _, e := range evs {
		if e.Request == 0 {
			continue // the process's own intervals (the accept loop, the GIL)
		}
		k := [2]int64{int64(e.Worker), e.Request}
		if r, ok := reqs[k]; !ok {
			reqs[k] = &req{worker: e.Worker, first: e.Start}
		} else if e.Start < r.first {
			r.first = e.Start
		}
	}
	counts := make([][]int, len(starts))
	for i := range counts {
		counts[i] = make([]int, workers)
	}
	for _, r := range reqs {
		b := sort.Search(len(starts), func(i int) bool { return starts[i] > r.first }) - 1
		if b < 0 {
			continue // before the first burst (a readiness probe)
		}
		w := max(r.worker, 1)
		if w > workers {
			return nil, fmt.Errorf("a request on worker %d of %d", w, workers)
		}
		counts[b][w-1]++
	}
	for b, row := range counts {
		sum := 0
		for _, c := range row {
			sum += c
		}
		if sum != n {
			return nil, fmt.Errorf("burst %d: the trace has %d requests, want %d", b+1, sum, n)
		}
	}
	return counts, nil
}

// SplitSummary turns MeasureSplit's frame into one row per strategy and
// burst: split is the requests per worker, busiest first ("7/2/1"), and
// busiest is the busiest worker's share of the burst (1 when one worker
// served it all, 1/Workers when shared evenly).
func SplitSummary(f *frame.Frame) (*frame.Frame, error) {
	for _, c := range SplitColumns {
		if f == nil || !f.Has(c) {
			return nil, fmt.Errorf("cpython: SplitSummary: want a MeasureSplit frame (columns %v)", SplitColumns)
		}
	}
	type key struct {
		s string
		b int
	}
	var order []key
	per := map[key][]int{}
	for i := 0; i < f.Len(); i++ {
		k := key{f.Text("strategy", i), int(f.Float("burst", i))}
		if _, ok := per[k]; !ok {
			order = append(order, k)
		}
		per[k] = append(per[k], int(f.Float("requests", i)))
	}
	out := frame.Of(f.Name+": split", "strategy", "burst", "split", "busiest")
	for _, k := range order {
		ns := per[k]
		sort.Sort(sort.Reverse(sort.IntSlice(ns)))
		parts := make([]string, len(ns))
		sum := 0
		for i, n := range ns {
			parts[i] = strconv.Itoa(n)
			sum += n
		}
		busiest := 0.0
		if sum > 0 {
			busiest = float64(ns[0]) / float64(sum)
		}
		if err := out.Add(k.s, k.b, strings.Join(parts, "/"), busiest); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// WorkerCounts counts the requests of strategy in a trace frame
// (bench.TraceColumns: a Result's Trace) per worker process, numbered
// 1..workers (a one-process trace's worker 0 counts as worker 1): a burst
// of n requests, each traced, sums to n. A request on a worker beyond
// workers is an error.
func WorkerCounts(tr *frame.Frame, strategy string, workers int) ([]int, error) {
	if workers < 1 {
		return nil, fmt.Errorf("cpython: WorkerCounts: workers must be at least 1, got %d", workers)
	}
	out := make([]int, workers)
	seen := map[[2]int64]bool{}
	for _, e := range bench.EventsOf(tr, strategy) {
		k := [2]int64{int64(e.Worker), e.Request}
		if e.Request == 0 || seen[k] {
			continue
		}
		seen[k] = true
		w := max(e.Worker, 1)
		if w > workers {
			return nil, fmt.Errorf("cpython: WorkerCounts: %s has a request on worker %d of %d", strategy, w, workers)
		}
		out[w-1]++
	}
	return out, nil
}
