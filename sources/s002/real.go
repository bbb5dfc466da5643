package s002

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
)

// App is the source's mock downstream under uvicorn: /health awaits
// latency, /health-def sleeps it in a def handler (?s= overrides it per
// request).
func App(latency time.Duration) cpython.App {
	return cpython.App{
		Name: "downstream", Files: Files(), Module: "app002:app", Server: cpython.Uvicorn,
		Env:      map[string]string{"CONCLAB_WAIT_S": strconv.FormatFloat(latency.Seconds(), 'f', -1, 64)},
		Requires: cpython.FastAPIModules,
	}
}

// RunClient runs one of the source's clients as a real Python process
// (client002.py: requests in a loop, a ThreadPoolExecutor of c.Workers,
// or aiohttp gathered) making n checks of url. Its row, recorded through
// bench/metrics, is labelled "real " + c.Label() and adds the client
// process's cpu_s (user + system during the checks) and rss_mb (peak).
func RunClient(ctx context.Context, o cpython.Options, url string, c Client, n int) (*frame.Frame, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if n < 1 || n > 10000 {
		return nil, fmt.Errorf("s002: RunClient: n must be in 1..10000, got %d", n)
	}
	mods := []string{"requests"}
	if c.Mode == AsyncIO {
		mods = []string{"aiohttp"}
	}
	f, err := cpython.Client{
		Script: cpython.Script{Files: Files(), Name: "client002.py", Requires: mods,
			Args: []string{"--url", url, "--mode", c.Mode, "--workers", strconv.Itoa(max(c.Workers, 1)), "--n", strconv.Itoa(n)}},
		Label: cpython.RealPrefix + c.Label(), Load: strconv.Itoa(n) + " checks",
	}.Run(ctx, o)
	if err != nil {
		return nil, err
	}
	return f.Compute("workers", func(frame.Row) any { return (Knobs{N: n}).AtOnce(c) })
}

// Real runs every client for real against the real downstream (App, on
// this machine's CPython): one row each ("real ..."), with its CPU and
// peak RSS.
func (k Knobs) Real(ctx context.Context, o cpython.Options) (*frame.Frame, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	srv := cpython.NewServer(App(k.Latency), o)
	if err := srv.Start(ctx); err != nil {
		return nil, err
	}
	defer srv.Close()
	var rows []*frame.Frame
	for _, c := range k.Clients {
		r, err := RunClient(ctx, o, srv.URL()+k.Path(), c, k.N)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	f, err := frame.Concat(fmt.Sprintf("real clients, %s downstream, %d checks of %v", k.downstream(), k.N, k.Latency), rows...)
	if err != nil {
		return nil, err
	}
	return InWaits(f, k.Latency)
}

// Versus is every client on the model (Experiment, through bench.Run) and
// for real (Real): a summary with model rows "X" and real rows "real X",
// for lab.ModelVsRealOf (and Checks, with the model's result).
func (k Knobs) Versus(ctx context.Context, o cpython.Options) (*frame.Frame, *bench.Result, error) {
	if err := k.Validate(); err != nil {
		return nil, nil, err
	}
	if _, err := cpython.Detect(ctx, o.Python); err != nil {
		return nil, nil, err
	}
	model, err := bench.Run(ctx, k.Experiment())
	if err != nil {
		return nil, nil, err
	}
	real, err := k.Real(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	// The columns are the union: the model's cpu_s is its client
	// process's CPU, as the real row's is.
	f, err := frame.Concat(fmt.Sprintf("%s downstream, %d checks of %v", k.downstream(), k.N, k.Latency), model.Summary, real)
	if err != nil {
		return nil, nil, err
	}
	f, err = InWaits(f, k.Latency)
	return f, model, err
}

// InWaits is f with a waits column: elapsed_s in waits of latency.
func InWaits(f *frame.Frame, latency time.Duration) (*frame.Frame, error) {
	if latency <= 0 {
		return nil, fmt.Errorf("s002: InWaits: latency must be positive, got %v", latency)
	}
	if !f.Has("elapsed_s") {
		return nil, fmt.Errorf("s002: InWaits: frame %q has no elapsed_s", f.Name)
	}
	return f.Compute("waits", func(r frame.Row) any { return r.Float("elapsed_s") / latency.Seconds() })
}

// RealRows are f's rows of real clients ("real ..."): their cpu_s and
// rss_mb are the Python client process's (the model's clients are
// goroutines waiting, whose CPU says nothing of Python's).
func RealRows(f *frame.Frame) *frame.Frame {
	return f.Filter(func(r frame.Row) bool { return strings.HasPrefix(r.Text("strategy"), cpython.RealPrefix) })
}

// Sweep is a pools sweep as curves over the pool size (strategy, workers,
// waits, cpu_s): the real client's rows of real (Knobs.Real with Pools
// clients) as "real ThreadPoolExecutor(W)", and the estimate ⌈N / W⌉ as
// "estimate".
func (k Knobs) Sweep(real *frame.Frame) (*frame.Frame, error) {
	out := frame.Of(fmt.Sprintf("a max_workers sweep: %d checks of %v", k.N, k.Latency), "strategy", "workers", "waits", "cpu_s")
	for _, c := range k.Clients {
		if c.Mode == Threads {
			out.MustAppend(frame.Row{"strategy": "estimate ⌈N / W⌉", "workers": c.Workers, "waits": float64(k.Waves(c)), "cpu_s": math.NaN()})
		}
	}
	for _, r := range RealRows(real).Rows() {
		for _, c := range k.Clients {
			if c.Mode == Threads && r.Text("strategy") == cpython.RealPrefix+c.Label() {
				out.MustAppend(frame.Row{"strategy": "real ThreadPoolExecutor(W)", "workers": c.Workers, "waits": r.Float("waits"), "cpu_s": r.Float("cpu_s")})
				break
			}
		}
	}
	if out.Len() == 0 {
		return nil, fmt.Errorf("s002: Sweep: no ThreadPoolExecutor clients in the knobs or rows in %q", real.Name)
	}
	return out, nil
}
