package s003

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// How a burst of connections is shared among a server's worker processes:
// real gunicorn's workers all wait on one listening socket, and the one
// that wakes takes what is pending, so a burst lands mostly on one worker
// (docs/strategies.md, "Prefork accept"). The split is measured from the
// traces of a few bursts on one server — load.Bursts, through bench.Run
// like every other run — each request's worker read from its trace (the
// real apps' trace middleware records each request's process; the model's
// workers number their events).

// SplitColumns are the columns of Split's frame: one row per strategy,
// burst (1, 2, ...) and worker (1 .. Workers), with the number of that
// burst's requests the worker served.
var SplitColumns = []string{"strategy", "burst", "worker", "requests"}

// SplitStacks are the stacks the split is measured on by default: Flask
// 2w x 5t and FastAPI 2w, as the source ran them.
var SplitStacks = []Stack{{Workers: 2, Threads: 5}, {FastAPI: true, Workers: 2}}

// Splits choose a split measurement. Bursts bursts of the Knobs' N, each
// request summing squares of the Knobs' SumN (real) or burning the model's
// cost of it, Pause apart.
type Splits struct {
	// Stacks are measured in order (nil: SplitStacks).
	Stacks []Stack
	// Bursts are sent to each server, one after another (0: 5).
	Bursts int
	// Pause is waited after each burst's last answer, so that every
	// worker is idle again when the next lands (0: 200 ms).
	Pause time.Duration
	// Model and Real choose the sides (neither: both).
	Model, Real bool
	// Cost is the model's CPU per request (0: the Knobs' Burn).
	Cost time.Duration
	// Python tunes the real apps; Trace is always on (the split is read
	// from it). Its Cores pins them to that many cores.
	Python cpython.Options
}

func (s Splits) withDefaults() Splits {
	if s.Stacks == nil {
		s.Stacks = SplitStacks
	}
	if s.Bursts == 0 {
		s.Bursts = 5
	}
	if s.Pause == 0 {
		s.Pause = 200 * time.Millisecond
	}
	if !s.Model && !s.Real {
		s.Model, s.Real = true, true
	}
	return s
}

// SplitExperiment is the split's measurement as one bench.Run: each
// server's model ("flask 2w x 5t") and real app ("real flask 2w x 5t"),
// Bursts bursts of N on each (load.Bursts), traced. Split reads its
// result.
func (k Knobs) SplitExperiment(s Splits) (bench.Experiment, error) {
	s = s.withDefaults()
	if s.Bursts < 1 || s.Bursts > 100 || s.Pause < 0 {
		return bench.Experiment{}, fmt.Errorf("s003: Splits: want Bursts in 1..100 and Pause >= 0, got %d and %v", s.Bursts, s.Pause)
	}
	cost := s.Cost
	if cost <= 0 {
		cost = k.burn()
	}
	burn := pymodel.Burn(max(cost, time.Microsecond))
	burn.Name = "sum of squares " + strconv.Itoa(k.SumN)
	e := bench.Experiment{
		Name:     fmt.Sprintf("source 003: how %d bursts of %d split over the workers", s.Bursts, k.N),
		Workload: pymodel.Workload{Name: burn.Name, Steps: []pymodel.Step{burn}},
		Load:     load.Bursts{N: k.N, Count: s.Bursts, Pause: s.Pause},
		Pause:    200 * time.Millisecond,
	}
	o := s.Python
	o.Trace = true
	for _, c := range s.Stacks {
		if err := c.Validate(); err != nil {
			return bench.Experiment{}, err
		}
		if s.Real {
			e.Strategies = append(e.Strategies, Real(c, "/cpu?n="+strconv.Itoa(k.SumN), o))
		}
		if s.Model {
			e.Strategies = append(e.Strategies, k.model(c))
		}
	}
	return e, nil
}

// Split reads how each burst of a SplitExperiment's result was shared:
// for each strategy of res whose server is among stacks (by label, real
// or model), the requests each worker served in each burst (SplitColumns).
// A request belongs to the burst it arrived in: the trace's last Bursts x
// N requests in the order they started (earlier ones are readiness
// probes), in groups of N. Every burst's counts sum to N and every worker
// has a row, zero included; a trace that does not hold them is an error.
func Split(res *bench.Result, n int, stacks ...Stack) (*frame.Frame, error) {
	out := frame.Of(fmt.Sprintf("requests per worker per burst of %d", n), SplitColumns...)
	for _, label := range res.Summary.Texts("strategy") {
		var c *Stack
		for i := range stacks {
			if label == stacks[i].Name() || label == cpython.RealPrefix+stacks[i].Name() || strings.HasPrefix(label, stacks[i].Name()+" ") {
				c = &stacks[i]
			}
		}
		if c == nil {
			continue
		}
		count := int(res.Value(label, "count"))
		if count%n != 0 || count == 0 {
			return nil, fmt.Errorf("s003: Split %s: %d requests are not whole bursts of %d", label, count, n)
		}
		counts, err := burstsPerWorker(res.Events(label), count/n, n, c.Workers)
		if err != nil {
			return nil, fmt.Errorf("s003: Split %s: %w", label, err)
		}
		for b, row := range counts {
			for w, k := range row {
				out.MustAppend(frame.Row{"strategy": label, "burst": b + 1, "worker": w + 1, "requests": k})
			}
		}
	}
	return out, nil
}

// burstsPerWorker counts each burst's requests per worker (numbered
// 1..workers; a trace of one process numbers its worker 0, counted as
// worker 1).
func burstsPerWorker(evs []trace.Event, bursts, n, workers int) ([][]int, error) {
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
	all := make([]*req, 0, len(reqs))
	for _, r := range reqs {
		all = append(all, r)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].first < all[j].first })
	if len(all) < bursts*n {
		return nil, fmt.Errorf("the trace has %d requests, want %d bursts of %d", len(all), bursts, n)
	}
	all = all[len(all)-bursts*n:]
	counts := make([][]int, bursts)
	for i := range counts {
		counts[i] = make([]int, workers)
	}
	for i, r := range all {
		w := max(r.worker, 1)
		if w > workers {
			return nil, fmt.Errorf("a request on worker %d of %d", w, workers)
		}
		counts[i/n][w-1]++
	}
	return counts, nil
}

// SplitSummary turns Split's frame into one row per strategy and burst:
// split is the requests per worker, busiest first ("7/3"), and busiest
// the busiest worker's share of the burst (1 when one worker served it
// all, 1/Workers when shared evenly).
func SplitSummary(f *frame.Frame) (*frame.Frame, error) {
	for _, c := range SplitColumns {
		if f == nil || !f.Has(c) {
			return nil, fmt.Errorf("s003: SplitSummary: want a Split frame (columns %v)", SplitColumns)
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
		out.MustAppend(frame.Row{"strategy": k.s, "burst": k.b, "split": strings.Join(parts, "/"), "busiest": busiest})
	}
	return out, nil
}

// Busiest is the busiest worker's mean share of a burst, per strategy of a
// SplitSummary: 0.5 is an even split over two workers, 1 one worker
// taking every burst (strategy, bursts, busiest).
func Busiest(summary *frame.Frame) *frame.Frame {
	out := frame.Of("busiest worker's share of a burst, mean over the bursts", "strategy", "bursts", "busiest")
	for _, s := range summary.Unique("strategy") {
		rows := summary.Where("strategy", s)
		sum := 0.0
		for _, v := range rows.Floats("busiest") {
			sum += v
		}
		out.MustAppend(frame.Row{"strategy": s, "bursts": rows.Len(), "busiest": sum / float64(rows.Len())})
	}
	return out
}

// WorkerCounts counts the requests of strategy in a result's trace per
// worker process, numbered 1..workers (a one-process trace's worker 0
// counts as worker 1): a burst of n requests, each traced, sums to n. A
// request on a worker beyond workers is an error.
func WorkerCounts(res *bench.Result, strategy string, workers int) ([]int, error) {
	if workers < 1 {
		return nil, fmt.Errorf("s003: WorkerCounts: workers must be at least 1, got %d", workers)
	}
	out := make([]int, workers)
	seen := map[[2]int64]bool{}
	for _, e := range res.Events(strategy) {
		k := [2]int64{int64(e.Worker), e.Request}
		if e.Request == 0 || seen[k] {
			continue
		}
		seen[k] = true
		w := max(e.Worker, 1)
		if w > workers {
			return nil, fmt.Errorf("s003: WorkerCounts: %s has a request on worker %d of %d", strategy, w, workers)
		}
		out[w-1]++
	}
	return out, nil
}
