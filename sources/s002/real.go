package s002

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
)

// App is the source's mock downstream under uvicorn: /health awaits
// latency (?s= overrides it per request).
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
	return cpython.Client{
		Script: cpython.Script{Files: Files(), Name: "client002.py", Requires: mods,
			Args: []string{"--url", url, "--mode", c.Mode, "--workers", strconv.Itoa(max(c.Workers, 1)), "--n", strconv.Itoa(n)}},
		Label: cpython.RealPrefix + c.Label(), Load: strconv.Itoa(n) + " checks",
	}.Run(ctx, o)
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
		r, err := RunClient(ctx, o, srv.URL()+"/health", c, k.N)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return frame.Concat(fmt.Sprintf("source 002: %d checks by the real clients", k.N), rows...)
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
	f, err := frame.Concat(fmt.Sprintf("source 002: %d checks, model vs real CPython clients", k.N), model.Summary, real)
	return f, model, err
}
