package gonative

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/charts"
)

// IOExperiment is the I/O burst: N requests at once, each waiting Wait, on
// a goroutine each, behind a semaphore of Limit, and one at a time.
func (k Knobs) IOExperiment() bench.Experiment {
	return bench.Experiment{
		Name: fmt.Sprintf("go-native: %d requests at once, each waiting %v", k.N, k.Wait),
		Strategies: []strategy.Strategy{strategy.Goroutines{Name: Goroutines},
			strategy.Bounded{Name: Bounded, Limit: k.Limit}, strategy.Serial{Name: Serial}},
		Workload: pymodel.Workload{Name: "io", Steps: []pymodel.Step{pymodel.Sleep(k.Wait)}},
		Load:     load.Burst{N: k.N},
	}
}

// CPUExperiment is the CPU burst: Burns requests at once on a goroutine
// each, each burning Burn of CPU, once under each GOMAXPROCS of Procs
// (rows ProcsLabel(p); the whole process runs under it — the load
// generator too — while that row runs). Each burn's slices of CPU are
// recorded in turns (nil: not recorded).
func (k Knobs) CPUExperiment(turns *Turns) bench.Experiment {
	var ss []strategy.Strategy
	for _, p := range k.Procs {
		ss = append(ss, procs{p: p, turns: turns})
	}
	return bench.Experiment{
		Name:       fmt.Sprintf("go-native: %d requests at once, each burning %v of CPU", k.Burns, k.Burn),
		Strategies: ss,
		Workload:   pymodel.Workload{Name: "cpu", Steps: []pymodel.Step{turns.step(k.Burn)}},
		Load:       load.Burst{N: k.Burns},
		Options:    load.Options{CPUWarn: -1}, // the servers share the process and mean to use its CPUs
	}
}

// Result is Run's: Summary (one row per strategy: bench/metrics' columns
// and workload, gomaxprocs, waits, first_ms, cpus_given, threads_ready,
// slices), Trace (bench.TraceColumns: the I/O strategies' and the CPU
// rows'), Fixed (the burst that does not wait: the fixed cost of N
// connections) and Turns.
type Result struct {
	Summary, Trace *frame.Frame
	Fixed          *bench.Result
	Turns          *Turns
}

// Run runs the I/O burst, the same burst with no wait (Fixed), and the
// CPU burst under each GOMAXPROCS, measuring the CPUs the process was
// given and the threads ready to run (bench.MeasureCPU).
func (k Knobs) Run(ctx context.Context) (*Result, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	io, err := bench.Run(ctx, k.IOExperiment())
	if err != nil {
		return nil, err
	}
	fixed, err := bench.Run(ctx, bench.Experiment{Name: fmt.Sprintf("go-native: %d requests at once, no wait", k.N),
		Strategies: []strategy.Strategy{strategy.Goroutines{Name: Goroutines + ", no wait"}}, Load: load.Burst{N: k.N}})
	if err != nil {
		return nil, err
	}
	r := &Result{Fixed: fixed, Turns: &Turns{}}
	ioSum := io.Summary.With("workload", "io")
	ioSum, err = ioSum.Compute("waits", func(row frame.Row) any { return row.Float("elapsed_s") / k.Wait.Seconds() })
	if err != nil {
		return nil, err
	}
	parts, traces := []*frame.Frame{ioSum}, []*frame.Frame{io.Trace}
	for _, p := range k.Procs {
		e := k.CPUExperiment(r.Turns)
		e.Strategies = []strategy.Strategy{procs{p: p, turns: r.Turns}}
		var res *bench.Result
		use, err := bench.MeasureCPU(func() (err error) { res, err = bench.Run(ctx, e); return err })
		if err != nil {
			return nil, err
		}
		row, err := res.Summary.Compute("gomaxprocs", func(frame.Row) any { return p })
		if err == nil {
			row, err = row.Compute("cpus_given", func(frame.Row) any { return use.Parallelism() })
		}
		if err == nil {
			row, err = row.Compute("threads_ready", func(frame.Row) any {
				if use.Waiting < 0 {
					return nil // the system does not report run-queue waits
				}
				return use.Demand()
			})
		}
		if err == nil {
			row, err = row.Compute("slices", func(frame.Row) any { return r.Turns.meanSlices(ProcsLabel(p)) })
		}
		if err != nil {
			return nil, err
		}
		parts, traces = append(parts, row.With("workload", "cpu")), append(traces, res.Trace)
	}
	if r.Summary, err = frame.Concat(fmt.Sprintf("go-native: %d I/O waits, %d burns", k.N, k.Burns), parts...); err != nil {
		return nil, err
	}
	if r.Summary, err = r.Summary.Compute("first_ms", func(row frame.Row) any { return row.Float("min_ms") }); err != nil {
		return nil, err
	}
	r.Trace, err = frame.Concat("go-native: the servers' traces", traces...)
	return r, err
}

// procs is the goroutine strategy run under GOMAXPROCS=p: Start sets it,
// Close puts the old value back (bench.Run runs strategies one after
// another, so one procs is in force at a time).
type procs struct {
	p     int
	turns *Turns
}

func (s procs) Label() string { return ProcsLabel(s.p) }
func (s procs) Validate() error {
	if s.p < 1 || s.p > 1024 {
		return fmt.Errorf("gonative: procs: GOMAXPROCS must be in 1..1024, got %d", s.p)
	}
	return nil
}

func (s procs) Start(ctx context.Context, w pymodel.Workload, o strategy.StartOptions) (strategy.Server, error) {
	old := runtime.GOMAXPROCS(s.p)
	s.turns.begin(s.Label())
	srv, err := strategy.Goroutines{Name: s.Label()}.Start(ctx, w, o)
	if err != nil {
		runtime.GOMAXPROCS(old)
		return nil, err
	}
	return &procsServer{Server: srv, old: old}, nil
}

type procsServer struct {
	strategy.Server
	old  int
	once sync.Once
	err  error
}

func (s *procsServer) Close() error {
	s.once.Do(func() {
		s.err = s.Server.Close()
		runtime.GOMAXPROCS(s.old)
	})
	return s.err
}

// Turns records each burn's slices of CPU: the intervals in which its
// goroutine ran. A burn spins in steps of a few microseconds, reading the
// clock after each; a gap of more than Gap between two readings is a time
// it did not run (another goroutine had the P, or the OS another thread),
// which ends a slice. It burns until its slices add up to Burn. Safe for
// concurrent use; a nil *Turns records nothing (the burns still burn).
type Turns struct {
	mu     sync.Mutex
	label  string
	origin time.Time
	burns  map[string][][]span
}

// Gap is the longest pause between two clock readings of a burn still
// counted as running.
const Gap = 500 * time.Microsecond

type span struct{ start, end time.Time }

func (t *Turns) begin(label string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.burns == nil {
		t.burns = map[string][][]span{}
	}
	t.label, t.origin = label, time.Time{}
	t.burns[label] = nil
}

// step is the burn as a workload step: CPU work on the handler's goroutine.
func (t *Turns) step(d time.Duration) pymodel.Step {
	return pymodel.Custom("burn", false, func(ctx context.Context) error { return t.burn(ctx, d) })
}

// burn spins until it has run d, recording its slices.
func (t *Turns) burn(ctx context.Context, d time.Duration) error {
	var slices []span
	var ran time.Duration
	x := uint64(88172645463325252)
	start := time.Now()
	last := start
	for ran < d {
		for range 200 { // a few microseconds of work
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
		now := time.Now()
		if gap := now.Sub(last); gap > Gap {
			slices = append(slices, span{start, last})
			start = now
			if err := ctx.Err(); err != nil {
				return err
			}
		} else {
			ran += gap
		}
		last = now
	}
	slices = append(slices, span{start, last})
	if x == 0 {
		runtime.Gosched() // never: keeps x alive
	}
	if t != nil {
		t.mu.Lock()
		t.burns[t.label] = append(t.burns[t.label], slices)
		t.mu.Unlock()
	}
	return nil
}

func (t *Turns) meanSlices(label string) any {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	bs := t.burns[label]
	if len(bs) == 0 {
		return nil
	}
	n := 0
	for _, b := range bs {
		n += len(b)
	}
	return float64(n) / float64(len(bs))
}

// Frame is, per burn of the CPU row at GOMAXPROCS=p (numbered by start),
// start_ms and end_ms from the first burn's start, slices (how many times
// it ran) and ran_ms (the CPU it got: its slices' total).
func (t *Turns) Frame(p int) *frame.Frame {
	f := frame.Of(fmt.Sprintf("%s: each burn's turns", ProcsLabel(p)), "burn", "start_ms", "end_ms", "slices", "ran_ms")
	bs, origin := t.sorted(ProcsLabel(p))
	for i, b := range bs {
		var ran time.Duration
		for _, s := range b {
			ran += s.end.Sub(s.start)
		}
		f.MustAppend(frame.Row{"burn": i + 1, "start_ms": ms(b[0].start.Sub(origin)), "end_ms": ms(b[len(b)-1].end.Sub(origin)),
			"slices": len(b), "ran_ms": ms(ran)})
	}
	return f
}

// Trace is the burns' slices at GOMAXPROCS=p as trace rows
// (bench.TraceColumns: one request per burn, phase "cpu" per slice), for
// charts.Waterfall: where each burn ran and where it waited its turn.
func (t *Turns) Trace(p int) *frame.Frame {
	f := frame.Of(fmt.Sprintf("%s: each burn's slices of CPU", ProcsLabel(p)), bench.TraceColumns...)
	bs, origin := t.sorted(ProcsLabel(p))
	for i, b := range bs {
		for _, s := range b {
			f.MustAppend(frame.Row{"strategy": ProcsLabel(p), "request": i + 1, "worker": 0, "thread": "goroutines",
				"phase": string(trace.CPU), "start_ms": ms(s.start.Sub(origin)), "end_ms": ms(s.end.Sub(origin))})
		}
	}
	return f
}

// sorted is label's burns by start, and the first start.
func (t *Turns) sorted(label string) ([][]span, time.Time) {
	if t == nil {
		return nil, time.Time{}
	}
	t.mu.Lock()
	bs := append([][]span(nil), t.burns[label]...)
	t.mu.Unlock()
	for i := 1; i < len(bs); i++ { // insertion sort: a few dozen burns
		for j := i; j > 0 && bs[j][0].start.Before(bs[j-1][0].start); j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
	if len(bs) == 0 {
		return nil, time.Time{}
	}
	return bs, bs[0][0].start
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// TurnsTable sets the CPU burst at GOMAXPROCS=p as measured beside the two
// ways it could have gone: per row first_ms, avg_ms and last_ms (when the
// first, the average and the last burn ended, from the first burn's start)
// and slices (turns per burn). "measured" is from r.Turns (the burns'
// own clocks); "one after another" and "taking turns" are Estimate's.
func (k Knobs) TurnsTable(r *Result, p int) *frame.Frame {
	f := frame.Of(fmt.Sprintf("%d burns of %v under %s", k.Burns, k.Burn, ProcsLabel(p)), "strategy", "first_ms", "avg_ms", "last_ms", "slices")
	if r != nil && r.Turns != nil {
		t := r.Turns.Frame(p)
		if t.Len() > 0 {
			ends := t.Floats("end_ms")
			first, last, sum, slices := ends[0], ends[0], 0.0, 0.0
			for i, e := range ends {
				first, last, sum = min(first, e), max(last, e), sum+e
				slices += t.Float("slices", i)
			}
			n := float64(len(ends))
			f.MustAppend(frame.Row{"strategy": "measured", "first_ms": first, "avg_ms": sum / n, "last_ms": last, "slices": slices / n})
		}
	}
	for _, row := range k.Estimate().Where("strategy", ProcsLabel(p)).Rows() {
		burn := float64(k.Burn) / 1e6
		f.MustAppend(frame.Row{"strategy": "one after another", "first_ms": row.Float("first_ms"), "avg_ms": row.Float("avg_ms"), "last_ms": row.Float("max_ms"), "slices": 1})
		f.MustAppend(frame.Row{"strategy": "taking turns", "first_ms": row.Float("turns_first_ms"), "avg_ms": row.Float("turns_avg_ms"), "last_ms": row.Float("floor_ms"),
			"slices": max(1, burn/(float64(Preempt)/1e6))})
	}
	return f
}

// Picture is lab.Try's Picture for the CPU burst: the slices of the last
// GOMAXPROCS run (Trace) as a waterfall.
func (t *Turns) Picture(*bench.Result) any {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	label := t.label
	t.mu.Unlock()
	var p int
	if _, err := fmt.Sscanf(label, "GOMAXPROCS=%d", &p); err != nil {
		return nil
	}
	return charts.Waterfall(t.Trace(p))
}
