package cpython

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// Agreement tolerances the lab states (issue 7): sleep-based scenarios
// within ±10 %, CPU scenarios with calibrated costs within ±25 %.
const (
	SleepTolerance = 0.10
	CPUTolerance   = 0.25
)

// Agreement puts model and real figures side by side. model and real are
// summary frames with a key column (e.g. "strategy") and number columns
// named in metrics (e.g. "elapsed_s", "avg_ms", "rps"); rows are matched
// on key (and on "load" when both frames have it). For each match and
// metric the result has one row: key, load, metric, model, real, ratio
// (real / model), fixed (real's zero-wait cost when the real frame has a
// column METRIC_fixed, else 0), tolerance, agree (1 or 0) and verdict, a
// sentence stating the agreement plainly.
//
// agree is 1 when real lies within tol of the band [model, model + fixed]:
// a real stack pays fixed costs (client start-up, HTTP parsing) that the
// model's in-process run does not, and the band says so instead of hiding
// it in a wider tolerance. A key in one frame but not the other is an error.
func Agreement(name string, model, real *frame.Frame, key string, metrics []string, tol float64) (*frame.Frame, error) {
	if model == nil || real == nil {
		return nil, errors.New("cpython: Agreement: nil frame")
	}
	if tol < 0 || tol > 10 {
		return nil, fmt.Errorf("cpython: Agreement: tolerance %v out of range [0, 10]", tol)
	}
	for _, f := range []*frame.Frame{model, real} {
		if !f.Has(key) {
			return nil, fmt.Errorf("cpython: Agreement: frame %q has no key column %q", f.Name, key)
		}
		for _, m := range metrics {
			if k, ok := f.KindOf(m); !ok || k != frame.Number {
				return nil, fmt.Errorf("cpython: Agreement: frame %q has no number column %q", f.Name, m)
			}
		}
	}
	byLoad := model.Has("load") && real.Has("load")
	id := func(f *frame.Frame, i int) string {
		if byLoad {
			return f.Text(key, i) + "\x00" + f.Text("load", i)
		}
		return f.Text(key, i)
	}
	realRow := map[string]int{}
	for i := 0; i < real.Len(); i++ {
		realRow[id(real, i)] = i
	}
	out := frame.New(name)
	for _, c := range []string{key, "load", "metric", "model", "real", "ratio", "fixed", "tolerance", "agree", "verdict"} {
		k := frame.Number
		if c == key || c == "load" || c == "metric" || c == "verdict" {
			k = frame.Label
		}
		_ = out.AddColumn(c, k)
	}
	for i := 0; i < model.Len(); i++ {
		j, ok := realRow[id(model, i)]
		if !ok {
			return nil, fmt.Errorf("cpython: Agreement: %s %q is in the model frame but not the real one", key, model.Text(key, i))
		}
		delete(realRow, id(model, i))
		for _, m := range metrics {
			mv, rv := model.Float(m, i), real.Float(m, j)
			fixed := 0.0
			if real.Has(m + "_fixed") {
				fixed = real.Float(m+"_fixed", j)
				if math.IsNaN(fixed) || fixed < 0 {
					fixed = 0
				}
			}
			ok := rv >= mv*(1-tol) && rv <= (mv+fixed)*(1+tol)
			out.MustAppend(frame.Row{key: model.Text(key, i), "load": model.Text("load", i), "metric": m,
				"model": mv, "real": rv, "ratio": rv / mv, "fixed": fixed, "tolerance": tol, "agree": ok,
				"verdict": verdict(m, mv, rv, fixed, tol, ok)})
		}
	}
	for k := range realRow {
		return nil, fmt.Errorf("cpython: Agreement: %s %q is in the real frame but not the model one", key, k)
	}
	return out, nil
}

func verdict(metric string, model, real, fixed, tol float64, ok bool) string {
	f := frame.FormatNumber
	band := ""
	if fixed > 0 {
		band = fmt.Sprintf(" (+ %s fixed cost of the real stack)", f(fixed))
	}
	dev := (real/model - 1) * 100
	if ok {
		return fmt.Sprintf("agrees: model %s, real %s %s%s, within ±%.0f %%", f(model), f(real), metric, band, tol*100)
	}
	return fmt.Sprintf("disagrees: model %s, real %s %s%s, %+.0f %% (tolerance ±%.0f %%)", f(model), f(real), metric, band, dev, tol*100)
}

// AllAgree reports whether every row of an Agreement frame agrees.
func AllAgree(f *frame.Frame) bool {
	for _, a := range f.Floats("agree") {
		if a != 1 {
			return false
		}
	}
	return f.Len() > 0
}

// ---------------------------------------------------------------- source 001

// Case001 is one run of source 001: n requests at once to an endpoint whose
// handler waits Wait.
type Case001 struct {
	Endpoint string
	N        int
	Wait     time.Duration
}

// Cases001 is every endpoint at each n with the same wait (the source: 1 s,
// n = 10 and, in the exercise, 100).
func Cases001(wait time.Duration, ns ...int) []Case001 {
	var out []Case001
	for _, n := range ns {
		for _, e := range Endpoints001 {
			out = append(out, Case001{e, n, wait})
		}
	}
	return out
}

// Handler001 is the model's handler for a source-001 endpoint.
func Handler001(endpoint string, wait time.Duration) (pymodel.Handler, error) {
	s := pymodel.Sleep(wait)
	switch endpoint {
	case SyncSleep:
		return pymodel.Handler{Name: endpoint, Steps: []pymodel.Step{s}}, nil
	case AsyncBlock:
		s.Call = pymodel.Block
		return pymodel.Handler{Name: endpoint, Async: true, Steps: []pymodel.Step{s}}, nil
	case AsyncOK:
		s.Call = pymodel.Await
		return pymodel.Handler{Name: endpoint, Async: true, Steps: []pymodel.Step{s}}, nil
	case Offload:
		s.Call = pymodel.ToThread
		return pymodel.Handler{Name: endpoint, Async: true, Steps: []pymodel.Step{s}}, nil
	}
	return pymodel.Handler{}, fmt.Errorf("cpython: unknown source-001 endpoint %q (want one of %v)", endpoint, Endpoints001)
}

// Arithmetic001 is the sleep arithmetic of source 001: waves x wait, a wave
// being as many requests as the endpoint's pool runs at once (40 AnyIO
// tokens for /sync-sleep, min(32, cpus+4) executor threads for /offload,
// one for /async-block, all for /async-ok).
func Arithmetic001(endpoint string, n int, wait time.Duration, cpus int) time.Duration {
	width := n
	switch endpoint {
	case SyncSleep:
		width = pymodel.DefaultLimiter
	case AsyncBlock:
		width = 1
	case Offload:
		width = pymodel.DefaultExecutorSize(cpus)
	}
	return time.Duration((n+width-1)/width) * wait
}

// Compare001 runs each case on real CPython (App001 under uvicorn, source
// 001's httpx bench client; plus the same batch at zero wait for the fixed
// cost) and on the model (a pymodel runtime with Python's CPU count), and
// returns the Agreement frame on elapsed_s with SleepTolerance, extended
// with arithmetic_s and threads (distinct server threads that answered).
func Compare001(ctx context.Context, opts Options, cases []Case001) (*frame.Frame, error) {
	if len(cases) == 0 {
		return nil, errors.New("cpython: Compare001: no cases")
	}
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	if err := env.Require("fastapi", "uvicorn", "httpx"); err != nil {
		return nil, err
	}
	srv := NewServer(App001(time.Second), opts)
	if err := srv.Start(ctx); err != nil {
		return nil, err
	}
	defer srv.Close()
	model, real := newSummaryFrame("model"), newSummaryFrame("real CPython")
	arith, threads := map[string]float64{}, map[string]float64{}
	for _, c := range cases {
		h, err := Handler001(c.Endpoint, c.Wait)
		if err != nil {
			return nil, err
		}
		if c.N <= 0 || c.Wait <= 0 {
			return nil, fmt.Errorf("cpython: Compare001: case %+v: n and wait must be positive", c)
		}
		base, err := Bench001(ctx, opts, c.Endpoint, fmt.Sprintf("%s%s?s=0", srv.URL(), c.Endpoint), c.N)
		if err != nil {
			return nil, err
		}
		r, err := Bench001(ctx, opts, c.Endpoint, fmt.Sprintf("%s%s?s=%g", srv.URL(), c.Endpoint, c.Wait.Seconds()), c.N)
		if err != nil {
			return nil, err
		}
		r = withNumber(r, "elapsed_s_fixed", base.Float("elapsed_s", 0))
		var m *frame.Frame
		if opts.ModelOverHTTP {
			st, err := strategy001(c.Endpoint, env.CPUs)
			if err != nil {
				return nil, err
			}
			ms, err := startModel(ctx, st, []pymodel.Step{pymodel.Sleep(c.Wait)})
			if err != nil {
				return nil, err
			}
			m, err = Bench001(ctx, opts, c.Endpoint, ms.URL()+c.Endpoint, c.N)
			ms.Close()
			if err != nil {
				return nil, err
			}
		} else if m, err = ModelBurst(ctx, c.Endpoint, pymodel.Config{CPUs: env.CPUs}, 1, h, c.N); err != nil {
			return nil, err
		}
		if real, err = frame.Concat(real.Name, real, r); err != nil {
			return nil, err
		}
		if model, err = frame.Concat(model.Name, model, m); err != nil {
			return nil, err
		}
		k := c.Endpoint + "\x00" + r.Text("load", 0)
		arith[k] = Arithmetic001(c.Endpoint, c.N, c.Wait, env.CPUs).Seconds()
		threads[k] = r.Float("threads", 0)
	}
	a, err := Agreement("source 001: model vs real CPython", model, real, "strategy", []string{"elapsed_s"}, SleepTolerance)
	if err != nil {
		return nil, err
	}
	out := extend(a, func(i int, r frame.Row) {
		k := a.Text("strategy", i) + "\x00" + a.Text("load", i)
		r["arithmetic_s"], r["threads"] = arith[k], threads[k]
	})
	return env.Describe(out), nil
}

// bestOf runs run k times (at least once) and returns the frame with the
// smallest elapsed_s.
func bestOf(k int, run func() (*frame.Frame, error)) (*frame.Frame, error) {
	var best *frame.Frame
	for i := 0; i < max(k, 1); i++ {
		f, err := run()
		if err != nil {
			return nil, err
		}
		if best == nil || f.Float("elapsed_s", 0) < best.Float("elapsed_s", 0) {
			best = f
		}
	}
	return best, nil
}

// withNumber returns a copy of f with number column col set to v on every row.
func withNumber(f *frame.Frame, col string, v float64) *frame.Frame {
	return extend(f, func(_ int, r frame.Row) { r[col] = v })
}

// extend returns a copy of f, keeping its column order, with each row
// passed through set (which may add columns, appended after f's).
func extend(f *frame.Frame, set func(i int, r frame.Row)) *frame.Frame {
	out := frame.New(f.Name)
	for _, c := range f.Columns() {
		k, _ := f.KindOf(c)
		_ = out.AddColumn(c, k)
	}
	for i, r := range f.Rows() {
		set(i, r)
		out.MustAppend(r)
	}
	return out
}

// ---------------------------------------------------------------- source 002

// Case002 is one client run of source 002: N checks by Mode (Sequential,
// Threads with Workers, AsyncIO).
type Case002 struct {
	Mode    string
	Workers int
	N       int
}

// Cases002 are the source's four clients making n checks each.
func Cases002(n int) []Case002 {
	return []Case002{{Sequential, 0, n}, {Threads, 100, n}, {Threads, 30, n}, {AsyncIO, 0, n}}
}

// client002Model is the model of a client: the checks are requests through
// a modelled Python process — one thread (sequential), a pool of Workers
// threads, or an event loop awaiting each check (aiohttp, at most 100
// connections, its default).
func client002Model(c Case002, wait time.Duration, cpus int) (pymodel.Config, pymodel.Handler, error) {
	s := pymodel.Sleep(wait)
	switch c.Mode {
	case Sequential:
		return pymodel.Config{Mode: pymodel.WSGI, Threads: 1, CPUs: cpus}, pymodel.Handler{Name: "check", Steps: []pymodel.Step{s}}, nil
	case Threads:
		return pymodel.Config{Mode: pymodel.WSGI, Threads: max(c.Workers, 1), CPUs: cpus}, pymodel.Handler{Name: "check", Steps: []pymodel.Step{s}}, nil
	case AsyncIO:
		s.Call = pymodel.Await
		return pymodel.Config{CPUs: cpus}, pymodel.Handler{Name: "check", Async: true, Steps: []pymodel.Step{s}}, nil
	}
	return pymodel.Config{}, pymodel.Handler{}, fmt.Errorf("cpython: unknown source-002 client mode %q", c.Mode)
}

// Trace002 runs source 002's clients on the model — each a modelled Python
// process making c.N checks that wait wait: one thread (sequential), a pool
// of Workers threads, or an event loop awaiting them all — and returns
// their traces (bench.TraceColumns), one strategy per client named by
// Client002Label: the waves of a pool are the waves of its io intervals.
func Trace002(ctx context.Context, wait time.Duration, cases []Case002) (*frame.Frame, error) {
	if len(cases) == 0 || wait <= 0 {
		return nil, errors.New("cpython: Trace002: need cases and a positive wait")
	}
	out := bench.TraceFrame("", trace.Snapshot{})
	out.Name = "source 002 clients on the model: trace"
	for _, c := range cases {
		cfg, h, err := client002Model(c, wait, runtime.NumCPU())
		if err != nil {
			return nil, err
		}
		rec := trace.NewRecorder(0)
		cfg.Trace = rec
		label := Client002Label(c.Mode, c.Workers)
		if _, err := ModelBurst(ctx, label, cfg, 1, h, c.N); err != nil {
			return nil, fmt.Errorf("cpython: Trace002: %s: %w", label, err)
		}
		snap := rec.Snapshot()
		trace.Renumber(snap.Events)
		if out, err = frame.Concat(out.Name, out, bench.TraceFrame(label, snap)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Compare002 runs source 002's clients for real (App002's /health waiting
// wait, each client a Python process, plus the same client at zero wait for
// the fixed cost) and on the model, and returns the Agreement frame on
// elapsed_s with SleepTolerance, with the clients' cpu_s and rss_mb.
func Compare002(ctx context.Context, opts Options, wait time.Duration, cases []Case002) (*frame.Frame, error) {
	if len(cases) == 0 || wait <= 0 {
		return nil, errors.New("cpython: Compare002: need cases and a positive wait")
	}
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	if err := env.Require("fastapi", "uvicorn", "requests", "aiohttp"); err != nil {
		return nil, err
	}
	srv := NewServer(App002(wait), opts)
	if err := srv.Start(ctx); err != nil {
		return nil, err
	}
	defer srv.Close()
	model, real := newSummaryFrame("model"), newSummaryFrame("real CPython")
	extra := map[string]frame.Row{}
	for _, c := range cases {
		cfg, h, err := client002Model(c, wait, env.CPUs)
		if err != nil {
			return nil, err
		}
		base, err := Client002(ctx, opts, srv.URL()+"/health?s=0", c.Mode, c.Workers, c.N)
		if err != nil {
			return nil, err
		}
		r, err := Client002(ctx, opts, srv.URL()+"/health", c.Mode, c.Workers, c.N)
		if err != nil {
			return nil, err
		}
		r = withNumber(r, "elapsed_s_fixed", base.Float("elapsed_s", 0))
		label := Client002Label(c.Mode, c.Workers)
		m, err := ModelBurst(ctx, label, cfg, 1, h, c.N)
		if err != nil {
			return nil, err
		}
		m = m.With("load", r.Text("load", 0))
		if real, err = frame.Concat(real.Name, real, r); err != nil {
			return nil, err
		}
		if model, err = frame.Concat(model.Name, model, m); err != nil {
			return nil, err
		}
		extra[label] = frame.Row{"cpu_s": r.Float("cpu_s", 0), "rss_mb": r.Float("rss_mb", 0)}
	}
	a, err := Agreement("source 002: model vs real CPython", model, real, "strategy", []string{"elapsed_s"}, SleepTolerance)
	if err != nil {
		return nil, err
	}
	out := extend(a, func(i int, r frame.Row) {
		for k, v := range extra[a.Text("strategy", i)] {
			r[k] = v
		}
	})
	return env.Describe(out), nil
}

// ---------------------------------------------------------------- source 003

// Case003 is one source-003 server: Flask (gunicorn Workers x Threads) or
// FastAPI (gunicorn with Workers uvicorn workers).
type Case003 struct {
	FastAPI          bool
	Workers, Threads int
}

// Cases003IO are the source's I/O runs: Flask 1w x 5t, 1w x 10t, FastAPI 1w.
var Cases003IO = []Case003{{false, 1, 5}, {false, 1, 10}, {true, 1, 5}}

// Cases003CPU are the source's CPU runs: Flask 1w x 10t, 2w x 5t, FastAPI
// 1w, 2w.
var Cases003CPU = []Case003{{false, 1, 10}, {false, 2, 5}, {true, 1, 10}, {true, 2, 5}}

func (c Case003) app(mode string, wait time.Duration, n int) App {
	if c.FastAPI {
		return App003FastAPI(c.Workers, mode, wait, n)
	}
	return App003Flask(c.Workers, c.Threads, mode, wait, n)
}

func (c Case003) model(cpus int) pymodel.Config {
	if c.FastAPI {
		return pymodel.Config{CPUs: cpus}
	}
	return pymodel.Config{Mode: pymodel.WSGI, Threads: max(c.Threads, 1), CPUs: cpus}
}

// handoffCost is what the GIL's hand-off between threads adds to a CPU
// burst on the real server and the model does not charge: the calibrated
// threaded cost over the plain one, per call, times the calls one worker
// process serves. Zero for I/O.
func handoffCost(cal *Calibration, mode string, sumN, n, workers int) float64 {
	if mode != ModeCPU || cal == nil || cal.SumSquares <= 0 || cal.SumSquaresThreaded <= cal.SumSquares {
		return 0
	}
	w := max(workers, 1)
	perCall := float64(cal.SumSquaresThreaded-cal.SumSquares) / float64(cal.SumSquares) * cal.SumSquaresCost(sumN).Seconds()
	return perCall * float64((n+w-1)/w)
}

// Compare003 runs source 003's burst of n requests (10 in the source) on
// each case for real (gunicorn, the Go burst; also with no work, ?s=0 or
// ?n=0, for the fixed cost, to which CPU cases add the calibrated GIL
// hand-off cost between threads, see handoffCost) and on the model, and returns the Agreement frame on
// elapsed_s. mode ModeIO waits wait per request (SleepTolerance); ModeCPU
// computes the sum of squares of sumN, the model burning cal's cost for it
// (CPUTolerance); cal nil calibrates first. The model spreads requests over
// workers round-robin; real gunicorn lets workers race for connections.
// opts.BestOf keeps the fastest of that many batches per case.
func Compare003(ctx context.Context, opts Options, mode string, cases []Case003, n int, wait time.Duration, sumN int, cal *Calibration) (*frame.Frame, error) {
	if len(cases) == 0 || n <= 0 || n > MaxBurst {
		return nil, fmt.Errorf("cpython: Compare003: need cases and n in 1..%d", MaxBurst)
	}
	if mode != ModeIO && mode != ModeCPU {
		return nil, fmt.Errorf("cpython: Compare003: mode must be %q or %q, got %q", ModeIO, ModeCPU, mode)
	}
	if mode == ModeIO && wait <= 0 || mode == ModeCPU && sumN <= 0 {
		return nil, errors.New("cpython: Compare003: need a positive wait (io) or sumN (cpu)")
	}
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	if err := env.Require("flask", "gunicorn", "fastapi", "uvicorn"); err != nil {
		return nil, err
	}
	var h pymodel.Handler
	tol := SleepTolerance
	if mode == ModeCPU {
		if cal == nil {
			if cal, err = Calibrate(ctx, CalibrateOptions{Python: opts.Python, ImageSize: ImageSize{640, 360}, N: sumN, Repeat: 3, Inserts: 1}); err != nil {
				return nil, err
			}
		}
		h, tol = cal.Handler003CPU(sumN), CPUTolerance
	} else {
		h = pymodel.Handler{Name: "test (io)", Steps: []pymodel.Step{pymodel.Sleep(wait)}}
	}
	model, real := newSummaryFrame("model"), newSummaryFrame("real CPython")
	for _, c := range cases {
		srv := NewServer(c.app(mode, wait, sumN), opts)
		if err := srv.Start(ctx); err != nil {
			return nil, err
		}
		path := "/io"
		q := "?s=" + strconv.FormatFloat(wait.Seconds(), 'f', -1, 64)
		if mode == ModeCPU {
			path, q = "/cpu", "?n="+strconv.Itoa(sumN)
		}
		zero := "?s=0"
		if mode == ModeCPU {
			zero = "?n=0"
		}
		r, err := bestOf(opts.BestOf, func() (*frame.Frame, error) { return Burst(ctx, srv.Name(), Get(srv.URL()+path+q), n) })
		if err == nil {
			// The same burst with no work: the real stack's fixed cost.
			var base *frame.Frame
			if base, err = Burst(ctx, srv.Name(), Get(srv.URL()+path+zero), n); err == nil {
				r = withNumber(r, "elapsed_s_fixed", base.Float("elapsed_s", 0)+handoffCost(cal, mode, sumN, n, c.Workers))
			}
		}
		srv.Close()
		if err != nil {
			return nil, err
		}
		var m *frame.Frame
		if opts.ModelOverHTTP {
			ms, err := startModel(ctx, c.strategy(srv.Name(), env.CPUs), h.Steps)
			if err != nil {
				return nil, err
			}
			m, err = bestOf(opts.BestOf, func() (*frame.Frame, error) { return burst(ctx, srv.Name(), Get(ms.URL()+path), n, ms.InProcessCPU) })
			ms.Close()
			if err != nil {
				return nil, err
			}
		} else if m, err = bestOf(opts.BestOf, func() (*frame.Frame, error) {
			return ModelBurst(ctx, srv.Name(), c.model(env.CPUs), c.Workers, h, n)
		}); err != nil {
			return nil, err
		}
		if real, err = frame.Concat(real.Name, real, r); err != nil {
			return nil, err
		}
		if model, err = frame.Concat(model.Name, model, m); err != nil {
			return nil, err
		}
	}
	a, err := Agreement("source 003 ("+mode+"): model vs real CPython", model, real, "strategy", []string{"elapsed_s"}, tol)
	if err != nil {
		return nil, err
	}
	return env.Describe(a), nil
}

// ---------------------------------------------------------------- source 000

// Compare000Upload runs source 000's upload under closed VUs (the source:
// 20 VUs, 10 s, think 1 s) on each strategy for real (App000Upload, images
// of size, SQLite or db) and on the model with cal's costs (nil calibrates
// first on the same image size), and returns the Agreement frame on rps and
// avg_ms with CPUTolerance.
func Compare000Upload(ctx context.Context, opts Options, cal *Calibration, db *DB, size ImageSize, vus int, duration, think time.Duration) (*frame.Frame, error) {
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	app := App000Upload(db)
	app.ImageSize = size
	if err := env.Require(app.Requires...); err != nil {
		return nil, err
	}
	if cal == nil {
		if cal, err = Calibrate(ctx, CalibrateOptions{Python: opts.Python, ImageSize: size, Repeat: 3, DB: db}); err != nil {
			return nil, err
		}
	}
	srv := NewServer(app, opts)
	if err := srv.Start(ctx); err != nil {
		return nil, err
	}
	defer srv.Close()
	handlers := cal.Handlers000()
	model, real := newSummaryFrame("model"), newSummaryFrame("real CPython")
	for _, s := range Strategies000 {
		req, err := Upload(srv.URL()+Upload000[s], srv.ImagePath("large"))
		if err != nil {
			return nil, err
		}
		r, err := ClosedVUs(ctx, s, req, vus, duration, think)
		if err != nil {
			return nil, err
		}
		var m *frame.Frame
		if opts.ModelOverHTTP {
			ms, err := startModel(ctx, strategy000(s, handlers[s], env.CPUs), handlers[s].Steps)
			if err != nil {
				return nil, err
			}
			mreq := req
			mreq.URL = ms.URL() + Upload000[s]
			m, err = closedVUs(ctx, s, mreq, vus, duration, think, ms.InProcessCPU)
			ms.Close()
			if err != nil {
				return nil, err
			}
		} else if m, err = ModelClosedVUs(ctx, s, pymodel.Config{CPUs: env.CPUs}, 1, handlers[s], vus, duration, think); err != nil {
			return nil, err
		}
		if real, err = frame.Concat(real.Name, real, r); err != nil {
			return nil, err
		}
		if model, err = frame.Concat(model.Name, model, m); err != nil {
			return nil, err
		}
	}
	a, err := Agreement("source 000 upload: model vs real CPython", model, real, "strategy", []string{"rps", "avg_ms"}, CPUTolerance)
	if err != nil {
		return nil, err
	}
	return env.Describe(a), nil
}
