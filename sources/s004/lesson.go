package s004

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/sources/internal/excerpt"
)

// Runs are a lesson's runs of the source's pairs on the model, through
// bench.Run (lab.Run, lab.TryIt): Experiment builds them from the knobs;
// Summary and Picture read, besides bench.Run's result, the rows each
// pair's run left in its database.
type Runs struct {
	knobs  Knobs
	landed *landed
}

// New is the runs of these knobs.
func New(k Knobs) *Runs { return &Runs{knobs: k, landed: &landed{}} }

// Knobs are the runs' knobs.
func (r *Runs) Knobs() Knobs { return r.knobs }

// Experiment is the five pairs (Pairs) on the model, each a strategy
// "CLIENT / APP" sent its N posts at once (the client's code decides how
// many go out together); the trace is the apps'. The apps pay no
// framework cost: the model is the arithmetic's stack, the real rows
// (Knobs.Real) are this machine's. A knob out of range fails the run,
// naming it.
func (r *Runs) Experiment() bench.Experiment {
	k := r.knobs
	cpus := k.CPUs
	if cpus == 0 {
		cpus = runtime.NumCPU()
	}
	var ss []strategy.Strategy
	for _, p := range Pairs() {
		ss = append(ss, pair{client: p[0], app: p[1], k: k, cpus: cpus, landed: r.landed})
	}
	return bench.Experiment{
		Name:       fmt.Sprintf("source 004 on the model: %d posts, %v an insert (+ up to %v)", k.N, k.Delay, k.Jitter),
		Strategies: ss,
		Workload:   pymodel.Workload{Name: "POST /users"},
		Load:       load.Burst{N: k.N},
	}
}

// Real is Knobs.Real when this machine has conclab's Python environment
// (fastapi, uvicorn, requests, aiohttp, pymysql, aiomysql), else nil and
// a line saying what is missing, shown where the run's outputs go. The
// apps are traced, so each row has at_once.
func (r *Runs) Real(ctx context.Context, o cpython.Options) (*frame.Frame, error) {
	env, err := cpython.Detect(ctx, o.Python)
	if err == nil {
		err = env.Require("fastapi", "uvicorn", "requests", "aiohttp", "pymysql", "aiomysql")
	}
	if errors.Is(err, cpython.ErrUnavailable) {
		line := "skipped the real clients and apps: " + err.Error()
		return nil, showOr(display.Text(line), line)
	}
	if err != nil {
		return nil, err
	}
	o.Trace = true // at_once: the most handlers at once in the real app
	return r.knobs.Real(ctx, o)
}

// Summary is the model's rows of res (Experiment's result) and, when not
// nil, the real ones (Real): strategy, client, app, side ("model" or
// "real"), errors, elapsed_s, waits (elapsed_s over Delay), rows, order
// (the first letters of the rows in the order they landed), in_order,
// at_once (most handlers at once in the app, from its trace) and
// extra_ms_per_post (elapsed_s beyond Estimate's, per post: what each post
// cost besides the arithmetic's waits).
func (r *Runs) Summary(res *bench.Result, real *frame.Frame) (*frame.Frame, error) {
	if res == nil || res.Summary == nil {
		return nil, errors.New("s004: Summary: no result")
	}
	k := r.knobs
	var parts []*frame.Frame
	for _, name := range res.Summary.Texts("strategy") {
		p, ok := pairOf(name)
		if !ok {
			return nil, fmt.Errorf("s004: Summary: %q is not one of the source's pairs", name)
		}
		got := r.landed.rows(name)
		row := res.Summary.Where("strategy", name)
		most := trace.MaxOverlap(bench.EventsOf(res.Trace, name), trace.Handler)
		row, err := columns(row.With("client", ClientLabel(p[0])).With("app", p[1]).With("side", "model"),
			"rows", len(got), "order", firstLetters(got), "in_order", equal(got, Emails(k.N)), "at_once", most)
		if err != nil {
			return nil, err
		}
		parts = append(parts, row)
	}
	if real != nil {
		parts = append(parts, real.With("side", "real"))
	}
	f, err := frame.Concat(fmt.Sprintf("source 004: %d posts, %v an insert (+ up to %v)", k.N, k.Delay, k.Jitter), parts...)
	if err != nil {
		return nil, err
	}
	est := map[string]float64{}
	for _, row := range k.Estimate().Rows() {
		est[row.Text("strategy")] = row.Float("elapsed_s")
	}
	f, err = f.Compute("waits", func(row frame.Row) any { return row.Float("elapsed_s") / k.Delay.Seconds() })
	if err != nil {
		return nil, err
	}
	return f.Compute("extra_ms_per_post", func(row frame.Row) any {
		e, ok := est[strings.TrimPrefix(row.Text("strategy"), cpython.RealPrefix)]
		if !ok {
			return nil
		}
		return (row.Float("elapsed_s") - e) / float64(k.N) * 1000
	})
}

// Picture shows the rows' order of each pair of res (Experiment's result)
// and returns the apps' waterfall: lab.Try's Picture for the try-it.
func (r *Runs) Picture(res *bench.Result) any {
	if f, err := r.Summary(res, nil); err == nil {
		if o, err := f.Select("strategy", "waits", "at_once", "order", "in_order"); err == nil {
			_ = showOr(o, o.String())
		}
	}
	return charts.Waterfall(res.Trace)
}

// Orders is, per pair of the source, the order of its rows as the source
// states it, as each side of measured (Summary) left them ("in order" or
// "shuffled"), and the guess (a pair's guess: any text; "" shows as "no
// guess").
func Orders(src, measured *frame.Frame, guess map[string]string) *frame.Frame {
	f := frame.Of("the order of the rows", "strategy", "source", "model", "real", "guess")
	side := func(prefix, name string) any {
		if measured == nil {
			return nil
		}
		for _, row := range measured.Rows() {
			if row.Text("strategy") == prefix+name {
				if row.Float("in_order") == 1 {
					return "in order"
				}
				return "shuffled"
			}
		}
		return nil
	}
	for _, p := range Pairs() {
		name := Label(p[0], p[1])
		var s any
		if src != nil {
			for _, row := range src.Rows() {
				if row.Text("strategy") == name {
					s = row.Text("order")
				}
			}
		}
		g := guess[name]
		if g == "" {
			g = "no guess"
		}
		f.MustAppend(frame.Row{"strategy": name, "source": s, "model": side("", name), "real": side(cpython.RealPrefix, name), "guess": g})
	}
	return f
}

// pairOf is the pair a row label names.
func pairOf(name string) ([2]string, bool) {
	for _, p := range Pairs() {
		if Label(p[0], p[1]) == name {
			return p, true
		}
	}
	return [2]string{}, false
}

// The branches: the source's closing question, one async handler waiting
// for two things.
const (
	InARow   = "await a; await b" // the handler awaits one wait, then the other
	Gathered = "gather(a, b)"     // asyncio.gather: both waits at once
)

// Branches is the source's closing question on the model and on real
// CPython: the async app's handler waiting for two inserts' waits (each
// Delay plus up to Jitter), one after the other (InARow) or gathered
// (Gathered), sent N requests at once; each model row beside "real " +
// its label, app004_async.py's /branches/in-a-row and /branches/gathered
// (on SQLite; they write nothing). lab.Run leaves the real rows out, with
// a line saying why, where CPython lacks FastAPI.
func Branches(k Knobs) bench.Experiment {
	cpus := k.CPUs
	if cpus == 0 {
		cpus = runtime.NumCPU()
	}
	app := func(name string) strategy.Uvicorn {
		a, _ := AppModel(AsyncApp, cpus)
		a.Name = name
		return a
	}
	real := func(name, endpoint string) strategy.Strategy {
		a, _ := App(AsyncApp, nil, k.Delay, k.Jitter)
		return cpython.Real{Name: cpython.RealPrefix + name, App: a, Endpoint: endpoint}
	}
	wait := insertWait(k.Delay, k.Jitter)
	gather := pymodel.Custom("gather(a, b)", true, func(ctx context.Context) error {
		errs := make(chan error, 2)
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() { defer wg.Done(); errs <- sleep(ctx, waitOf(k.Delay, k.Jitter)) }()
		}
		wg.Wait()
		close(errs)
		var all []error
		for err := range errs {
			all = append(all, err)
		}
		return errors.Join(all...)
	})
	return bench.Experiment{
		Name: fmt.Sprintf("one async handler, two waits of %v (+ up to %v): in a row or gathered", k.Delay, k.Jitter),
		Strategies: []strategy.Strategy{app(InARow), real(InARow, "/branches/in-a-row"),
			app(Gathered), real(Gathered, "/branches/gathered")},
		Workloads: map[string]pymodel.Workload{
			InARow:   {Name: "two awaits", Steps: []pymodel.Step{wait, wait}},
			Gathered: {Name: "gathered", Steps: []pymodel.Step{gather}},
		},
		Workload: pymodel.Workload{Name: "two waits", Steps: []pymodel.Step{wait}},
		Load:     load.Burst{N: k.N},
	}
}

// BranchesEstimate is the arithmetic for Branches: a handler's time
// (avg_ms) is a + b in a row, max(a, b) gathered; with jitter j on each
// wait, 2d + j and d + 2j/3 on average.
func BranchesEstimate(k Knobs) *frame.Frame {
	f := frame.Of("estimated: one handler, two waits", "strategy", "avg_ms")
	d, j := float64(k.Delay)/1e6, float64(k.Jitter)/1e6
	f.MustAppend(frame.Row{"strategy": InARow, "avg_ms": 2*d + j})
	f.MustAppend(frame.Row{"strategy": Gathered, "avg_ms": d + 2*j/3})
	return f
}

// waitOf is one insert's wait: d plus a random wait of up to jitter.
func waitOf(d, jitter time.Duration) time.Duration {
	if jitter <= 0 {
		return d
	}
	return d + rand.N(jitter+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// showOr displays v where a run's outputs go, or prints text where no
// display exists (a program, a test).
func showOr(v any, text string) error {
	err := display.Show(v)
	if errors.Is(err, display.ErrNoPublisher) {
		fmt.Println(text)
		return nil
	}
	return err
}

// Excerpt shows lines from..to of one of Files (numbered as in the file),
// marking the lines in mark with "◀": the code under judgment, read from
// the file the lab runs (the same shape as s002's and s003's).
func Excerpt(name string, from, to int, mark ...int) (display.Data, error) {
	code, err := Code(name)
	if err != nil {
		return display.Data{}, err
	}
	d, err := excerpt.Markdown(name, code, from, to, mark)
	if err != nil {
		return display.Data{}, fmt.Errorf("s004: %w", err)
	}
	return d, nil
}
