package cpython

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

// Model and real side by side: each source's constructor below returns the
// strategies (or the whole bench.Experiment) of one comparison — for every
// row of the source a model strategy labelled as the source names it ("X")
// and the real app labelled "real X" — so a single bench.Run drives both
// with the same load model through the same generator, and every figure
// comes from bench/metrics. lab.ModelVsReal runs one and pairs the rows.

// Agreement tolerances the lab states (issue 7): sleep-based scenarios
// within ±10 %, CPU scenarios with calibrated costs within ±25 %.
const (
	SleepTolerance = 0.10
	CPUTolerance   = 0.25
)

// RealPrefix starts the label of every real row: "real /sync-sleep" is the
// real app beside the model's "/sync-sleep".
const RealPrefix = "real "

// ---------------------------------------------------------------- source 001

// Model001 is the model strategy of one of source 001's endpoints on this
// machine's CPU count: uvicorn with a def handler (/sync-sleep, AnyIO's
// limiter), an async def blocking the loop (/async-block), awaiting
// (/async-ok) or offloading to asyncio's default executor (/offload).
func Model001(endpoint string) (strategy.Uvicorn, error) {
	u := strategy.Uvicorn{Name: endpoint}
	switch endpoint {
	case SyncSleep:
	case AsyncBlock:
		u.Async, u.IOCall = true, pymodel.Block
	case AsyncOK:
		u.Async, u.IOCall = true, pymodel.Await
	case Offload:
		u.Async, u.IOCall = true, pymodel.ToThread
	default:
		return u, fmt.Errorf("cpython: unknown source-001 endpoint %q (want one of %v)", endpoint, Endpoints001)
	}
	return u, nil
}

// Versus001 returns, for each of source 001's endpoints in the source's
// order, the model ("/sync-sleep", Model001) and the real app ("real
// /sync-sleep": App001(wait) under uvicorn). The model's workload is
// bench.Steps(bench.Sleep(wait)).
func Versus001(wait time.Duration, opts Options) []strategy.Strategy {
	var out []strategy.Strategy
	for _, ep := range Endpoints001 {
		m, _ := Model001(ep) // every endpoint of Endpoints001 is known
		out = append(out, m, Real{Name: RealPrefix + ep, App: App001(wait), Endpoint: ep, Options: opts})
	}
	return out
}

// Experiment001 is source 001 model vs real: every endpoint (Versus001),
// handlers waiting wait, n requests at once (the source: 1 s, 10).
func Experiment001(wait time.Duration, n int, opts Options) bench.Experiment {
	return bench.Experiment{
		Name:       fmt.Sprintf("source 001: %d requests at once, %v each, model vs real CPython", n, wait),
		Strategies: Versus001(wait, opts),
		Workload:   bench.Steps(bench.Sleep(wait)),
		Load:       load.Burst{N: n},
	}
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

// ---------------------------------------------------------------- source 003

// Server003 is one source-003 server: Flask under gunicorn with Workers x
// Threads gthread workers, or FastAPI with Workers processes (Threads does
// not apply) served as Serve says.
type Server003 struct {
	FastAPI          bool
	Workers, Threads int
	// Serve is how FastAPI is served: "" (Serve003UvicornWorker) is the
	// source's gunicorn with uvicorn.workers.UvicornWorker,
	// Serve003GunicornASGI gunicorn's own asgi worker, Serve003Uvicorn
	// uvicorn's own --workers (spawned processes). Flask ignores it.
	Serve string
	// ReusePort gives each gunicorn worker its own listening socket
	// (gunicorn --reuse-port): the kernel spreads the connections.
	ReusePort bool
}

// How source 003's FastAPI app is served (Server003.Serve).
const (
	Serve003UvicornWorker = ""        // gunicorn -k uvicorn.workers.UvicornWorker (the source's)
	Serve003GunicornASGI  = "asgi"    // gunicorn -k asgi
	Serve003Uvicorn       = "uvicorn" // uvicorn --workers W
)

// Servers003IO are the source's I/O runs: Flask 1w x 5t, 1w x 10t, FastAPI 1w.
var Servers003IO = []Server003{{Workers: 1, Threads: 5}, {Workers: 1, Threads: 10}, {FastAPI: true, Workers: 1}}

// Servers003CPU are the source's CPU runs: Flask 1w x 10t, 2w x 5t, FastAPI
// 1w, 2w.
var Servers003CPU = []Server003{{Workers: 1, Threads: 10}, {Workers: 2, Threads: 5}, {FastAPI: true, Workers: 1}, {FastAPI: true, Workers: 2}}

// Name is the source's row name: "Flask gunicorn 2w x 5t", "FastAPI
// gunicorn 1w"; other ways of serving say so ("FastAPI gunicorn asgi 2w",
// "FastAPI uvicorn 2w", "... reuse-port").
func (c Server003) Name() string { return c.app(ModeIO, time.Second, 1).Name }

func (c Server003) app(mode string, wait time.Duration, n int) App {
	a := App003Flask(c.Workers, c.Threads, mode, wait, n)
	if c.FastAPI {
		a = App003FastAPI(c.Workers, mode, wait, n)
		switch c.Serve {
		case Serve003GunicornASGI:
			a.Server, a.Name = GunicornASGI, fmt.Sprintf("FastAPI gunicorn asgi %dw", c.Workers)
		case Serve003Uvicorn:
			a.Server, a.Name = Uvicorn, fmt.Sprintf("FastAPI uvicorn %dw", c.Workers)
			a.Requires = fastapiMods
		}
	}
	if c.ReusePort {
		a.ReusePort, a.Name = true, a.Name+" reuse-port"
	}
	return a
}

// Model is the model strategy of the server, labelled Name().
// With ReusePort its workers accept as strategy.AcceptReusePort. The
// FastAPI servers are all one model: a uvicorn worker, gunicorn's asgi
// worker and uvicorn's own --workers accept through asyncio alike (their
// accepts and splits measured the same, docs/strategies.md).
func (c Server003) Model() strategy.Strategy {
	accept := ""
	if c.ReusePort {
		accept = strategy.AcceptReusePort
	}
	if c.FastAPI {
		return strategy.Uvicorn{Name: c.Name(), Workers: c.Workers, Accept: accept}
	}
	return strategy.Gunicorn{Name: c.Name(), Workers: c.Workers, Threads: max(c.Threads, 1), Accept: accept}
}

// Options003 choose one source-003 comparison. The zero value is the
// source's I/O run at its own scale.
type Options003 struct {
	// Mode is ModeIO (each request sleeps Wait) or ModeCPU (each computes
	// the sum of squares of SumN); "" means ModeIO.
	Mode string
	// N requests are sent at once (0: the source's 10).
	N int
	// Wait is ModeIO's sleep (0: the source's 10 s).
	Wait time.Duration
	// SumN is ModeCPU's bound (0: the source's 10,000,000).
	SumN int
	// Calibration gives the model ModeCPU's cost; nil calibrates this
	// machine's CPython first (Calibrate).
	Calibration *Calibration
	// Servers are the rows (nil: Servers003IO or Servers003CPU).
	Servers []Server003
	// Repeat runs each row that many times, each on a server of its own,
	// and reports the median (bench.Experiment.Repeat; 0 means 1): a burst
	// over several gunicorn workers is split differently each time
	// (MeasureSplit), so one run of a multi-worker row is a draw.
	Repeat int
	// Accept is the model's prefork accept policy for multi-worker rows
	// (strategy.AcceptGreedy, "" too, as real gunicorn; or
	// strategy.AcceptBalanced).
	Accept string
	// Python tunes the real apps.
	Python Options
}

// Experiment003 is source 003 model vs real: for each server, the model
// (Server003.Model, serving a sleep or the calibrated burn) and the real
// app ("real " + Name, its /io?s= or /cpu?n= endpoint), N requests at once.
// ModeCPU without a Calibration runs Calibrate first (a few seconds).
func Experiment003(ctx context.Context, o Options003) (bench.Experiment, error) {
	if o.Mode == "" {
		o.Mode = ModeIO
	}
	if o.N == 0 {
		o.N = 10
	}
	if o.Wait == 0 {
		o.Wait = 10 * time.Second
	}
	if o.SumN == 0 {
		o.SumN = 10_000_000
	}
	switch {
	case o.Mode != ModeIO && o.Mode != ModeCPU:
		return bench.Experiment{}, fmt.Errorf("cpython: Experiment003: Mode must be %q or %q, got %q", ModeIO, ModeCPU, o.Mode)
	case o.N < 0 || o.Wait < 0 || o.SumN < 0 || o.Repeat < 0:
		return bench.Experiment{}, errors.New("cpython: Experiment003: N, Wait, SumN and Repeat must not be negative")
	case o.Accept != "" && o.Accept != strategy.AcceptGreedy && o.Accept != strategy.AcceptReusePort && o.Accept != strategy.AcceptBalanced:
		return bench.Experiment{}, fmt.Errorf("cpython: Experiment003: Accept must be %q, %q or %q, got %q", strategy.AcceptGreedy, strategy.AcceptReusePort, strategy.AcceptBalanced, o.Accept)
	}
	servers := o.Servers
	if servers == nil {
		servers = Servers003IO
		if o.Mode == ModeCPU {
			servers = Servers003CPU
		}
	}
	e := bench.Experiment{Load: load.Burst{N: o.N}, Repeat: o.Repeat}
	path := "/io?s=" + strconv.FormatFloat(o.Wait.Seconds(), 'f', -1, 64)
	if o.Mode == ModeCPU {
		cal := o.Calibration
		if cal == nil {
			var err error
			if cal, err = CalibrateSum(ctx, o.Python.Python, o.SumN); err != nil {
				return bench.Experiment{}, err
			}
		}
		e.Workload = pymodel.Workload{Name: "sum of squares " + strconv.Itoa(o.SumN), Steps: []pymodel.Step{cal.SumSquaresStep(o.SumN)}}
		path = "/cpu?n=" + strconv.Itoa(o.SumN)
		e.Name = fmt.Sprintf("source 003 (cpu): %d requests at once, sum of squares of %d, model vs real CPython", o.N, o.SumN)
	} else {
		e.Workload = bench.Steps(bench.Sleep(o.Wait))
		e.Name = fmt.Sprintf("source 003 (io): %d requests at once, %v each, model vs real CPython", o.N, o.Wait)
	}
	for _, c := range servers {
		e.Strategies = append(e.Strategies, modelWithAccept(c, o.Accept),
			Real{Name: RealPrefix + c.Name(), App: c.app(o.Mode, o.Wait, o.SumN), Endpoint: path, Options: o.Python})
	}
	return e, nil
}
