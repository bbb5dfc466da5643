package cpython

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/metrics"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// Client002 is one of source 002's health-check clients: Mode Sequential,
// Threads (a ThreadPoolExecutor of Workers) or AsyncIO, making N checks.
type Client002 struct {
	Mode    string
	Workers int
	N       int
}

// Clients002 are the source's four clients making n checks each.
func Clients002(n int) []Client002 {
	return []Client002{{Sequential, 0, n}, {Threads, 100, n}, {Threads, 30, n}, {AsyncIO, 0, n}}
}

// Label is the source's name for the client ("sequential (requests)",
// "ThreadPoolExecutor 30", "asyncio + aiohttp").
func (c Client002) Label() string { return Client002Label(c.Mode, c.Workers) }

// model is the client as a modelled Python process: the checks are waits
// through one thread (sequential), a pool of Workers threads, or an event
// loop awaiting each.
func (c Client002) model(wait time.Duration, cpus int) (pymodel.Config, pymodel.Handler, error) {
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
	return pymodel.Config{}, pymodel.Handler{}, fmt.Errorf("cpython: unknown source-002 client mode %q (want %q, %q or %q)", c.Mode, Sequential, Threads, AsyncIO)
}

// Model002 runs each client on the model — a modelled Python process
// making its N checks, each waiting wait — and returns one bench/metrics
// summary row per client, labelled Label().
func Model002(ctx context.Context, wait time.Duration, clients []Client002) (*frame.Frame, error) {
	f, _, err := model002(ctx, wait, clients, false)
	return f, err
}

func model002(ctx context.Context, wait time.Duration, clients []Client002, traced bool) (*frame.Frame, *frame.Frame, error) {
	if len(clients) == 0 || wait <= 0 {
		return nil, nil, errors.New("cpython: source 002: need clients and a positive wait")
	}
	var sums []*frame.Frame
	traces := bench.TraceFrame("", trace.Snapshot{})
	traces.Name = "source 002 clients on the model: trace"
	for _, c := range clients {
		cfg, h, err := c.model(wait, runtime.NumCPU())
		if err != nil {
			return nil, nil, err
		}
		var rec *trace.Recorder
		if traced {
			rec = trace.NewRecorder(0)
			cfg.Trace = rec
		}
		res, err := modelClient(ctx, cfg, h, c.N, map[string]string{
			metrics.LabelStrategy: c.Label(), metrics.LabelWorkload: "client", metrics.LabelLoad: strconv.Itoa(c.N) + " checks"})
		if err != nil {
			return nil, nil, fmt.Errorf("cpython: source 002: %s: %w", c.Label(), err)
		}
		sums = append(sums, res.Summary())
		if traced {
			snap := rec.Snapshot()
			trace.Renumber(snap.Events)
			if traces, err = frame.Concat(traces.Name, traces, bench.TraceFrame(c.Label(), snap)); err != nil {
				return nil, nil, err
			}
		}
	}
	f, err := frame.Concat("source 002 clients on the model", sums...)
	return f, traces, err
}

// Trace002 runs the clients on the model (as Model002) and returns their
// traces (bench.TraceColumns), one strategy per client named by its
// Label: the waves of a pool are the waves of its io intervals.
func Trace002(ctx context.Context, wait time.Duration, clients []Client002) (*frame.Frame, error) {
	_, tr, err := model002(ctx, wait, clients, true)
	return tr, err
}

// Versus002 is source 002 model vs real: each client on the model
// (Model002) and as the source's real Python client ("real " + Label:
// client002.py, a process making its checks of App002's /health waiting
// wait), every figure recorded through bench/metrics. The frame holds the
// model rows then the real ones (with the clients' cpu_s and rss_mb), for
// lab.ModelVsRealOf. The clients, not the server, are what is compared, so
// this is not one bench.Run: the load comes from each client's own code.
func Versus002(ctx context.Context, opts Options, wait time.Duration, clients []Client002) (*frame.Frame, error) {
	if len(clients) == 0 || wait <= 0 {
		return nil, errors.New("cpython: Versus002: need clients and a positive wait")
	}
	env, err := Detect(ctx, opts.Python)
	if err != nil {
		return nil, err
	}
	if err := env.Require("fastapi", "uvicorn", "requests", "aiohttp"); err != nil {
		return nil, err
	}
	model, err := Model002(ctx, wait, clients)
	if err != nil {
		return nil, err
	}
	srv := NewServer(App002(wait), opts)
	if err := srv.Start(ctx); err != nil {
		return nil, err
	}
	defer srv.Close()
	frames := []*frame.Frame{model}
	for _, c := range clients {
		r, err := RunClient002(ctx, opts, srv.URL()+"/health", c)
		if err != nil {
			return nil, err
		}
		frames = append(frames, r.With("strategy", RealPrefix+c.Label()))
	}
	f, err := frame.Concat("source 002: model vs real CPython clients", frames...)
	if err != nil {
		return nil, err
	}
	return env.Describe(f), nil
}
