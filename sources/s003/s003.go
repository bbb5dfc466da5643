// Package s003 is source 003, "Flask vs FastAPI concurrency test" (a blog):
// ten requests at once (JMeter) to a Flask app under gunicorn (workers x
// gthread threads) and a FastAPI app under gunicorn with uvicorn workers,
// each request either sleeping (time.sleep(10): I/O) or summing squares
// (sum(x**2 for x in list(range(10_000_000))): CPU).
//
// It has the shape of every source package (see sources/s001): Files and
// Code (py/app003_flask.py, py/app003_fastapi.py), Knobs with the
// source's Default, the models as literals (Stack.Model), IOExperiment /
// CPUExperiment on the model and IOVersus / CPUVersus beside the real
// apps, Estimate, Checks and Table. Beside them it measures how gunicorn
// shares a burst over its workers (SplitExperiment, Split), and registers
// the sum of squares' cost with bench/calib (part "003": SumCost).
package s003

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/sources/internal/knob"
)

//go:embed py/*.py
var py embed.FS

// Files are the source's Python files: app003_flask.py, app003_fastapi.py
// and calibrate_sum.py (the lab's measurement of the sum's cost).
func Files() fs.FS {
	sub, _ := fs.Sub(py, "py")
	return sub
}

// Code returns one of Files' texts ("app003_fastapi.py").
func Code(name string) (string, error) { return cpython.Code(Files(), name) }

// How FastAPI is served (Stack.Serve).
const (
	UvicornWorker = ""        // gunicorn -k uvicorn.workers.UvicornWorker (the source's)
	GunicornASGI  = "asgi"    // gunicorn -k asgi (gunicorn's own, since 25)
	Uvicorn       = "uvicorn" // uvicorn --workers W (spawned processes)
)

// Stack is one of source 003's serving stacks: Flask under gunicorn with Workers
// x Threads gthread workers, or FastAPI (a def handler) with Workers
// processes served as Serve says (Threads does not apply).
type Stack struct {
	FastAPI          bool
	Workers, Threads int
	// Serve is how FastAPI is served: UvicornWorker (the source's),
	// GunicornASGI or Uvicorn. Flask ignores it.
	Serve string
	// ReusePort gives each gunicorn worker its own listening socket
	// (gunicorn --reuse-port): the kernel spreads the connections.
	ReusePort bool
}

// Name is the row's name, as the strategy presets name the source's
// servers: "flask 2w x 5t", "fastapi 1w"; other ways of serving say so
// ("fastapi asgi 2w", "fastapi uvicorn 2w", "... reuse-port").
func (c Stack) Name() string {
	var n string
	switch {
	case !c.FastAPI:
		n = fmt.Sprintf("flask %dw x %dt", c.Workers, c.Threads)
	case c.Serve == GunicornASGI:
		n = fmt.Sprintf("fastapi asgi %dw", c.Workers)
	case c.Serve == Uvicorn:
		n = fmt.Sprintf("fastapi uvicorn %dw", c.Workers)
	default:
		n = fmt.Sprintf("fastapi %dw", c.Workers)
	}
	if c.ReusePort {
		n += " reuse-port"
	}
	return n
}

// Validate reports a server that cannot run, naming what is wrong.
func (c Stack) Validate() error {
	switch {
	case c.Workers < 1 || c.Workers > 64:
		return fmt.Errorf("s003: server %s: Workers must be in 1..64, got %d", c.Name(), c.Workers)
	case !c.FastAPI && (c.Threads < 1 || c.Threads > 1000):
		return fmt.Errorf("s003: server %s: Threads must be in 1..1000, got %d", c.Name(), c.Threads)
	case c.FastAPI && c.Serve != UvicornWorker && c.Serve != GunicornASGI && c.Serve != Uvicorn:
		return fmt.Errorf("s003: server %s: Serve must be %q, %q or %q, got %q", c.Name(), UvicornWorker, GunicornASGI, Uvicorn, c.Serve)
	case c.ReusePort && c.FastAPI && c.Serve == Uvicorn:
		return fmt.Errorf("s003: server %s: uvicorn --workers has no --reuse-port", c.Name())
	}
	return nil
}

// Model is the server's model, a literal labelled Name(): gunicorn's
// gthread workers, or uvicorn workers with a def handler on AnyIO's 40
// tokens; accept is the prefork accept policy ("" as real gunicorn;
// strategy.AcceptReusePort whenever ReusePort). The FastAPI servers are one
// model: a uvicorn worker, gunicorn's asgi worker and uvicorn's own
// --workers accept through asyncio alike (their splits measured alike,
// docs/strategies.md).
func (c Stack) Model(accept string) strategy.Strategy {
	if c.ReusePort { // the real server's --reuse-port, whatever the model's policy elsewhere
		accept = strategy.AcceptReusePort
	}
	if c.FastAPI {
		return strategy.Uvicorn{Name: c.Name(), Workers: c.Workers, Limiter: pymodel.DefaultLimiter, Accept: accept}
	}
	return strategy.Gunicorn{Name: c.Name(), Workers: c.Workers, Threads: c.Threads, Accept: accept}
}

// App is the server's real app: /io?s= sleeps, /cpu?n= sums squares (and
// the source's /test-flask, /test-fast routes).
func (c Stack) App() cpython.App {
	a := cpython.App{Name: c.Name(), Files: Files(), Workers: c.Workers, ReusePort: c.ReusePort}
	if !c.FastAPI {
		a.Module, a.Server, a.Threads = "app003_flask:app", cpython.Gunicorn, c.Threads
		a.Requires = []string{"flask", "gunicorn"}
		return a
	}
	a.Module = "app003_fastapi:app"
	a.Requires = append(append([]string(nil), cpython.FastAPIModules...), "gunicorn")
	switch c.Serve {
	case GunicornASGI:
		a.Server = cpython.GunicornASGI
	case Uvicorn:
		a.Server, a.Requires = cpython.Uvicorn, cpython.FastAPIModules
	default:
		a.Server = cpython.GunicornUvicorn
	}
	return a
}

// Knobs are the experiments' settings. Default is the source's.
type Knobs struct {
	// N requests are sent at once (the source: 10).
	N int
	// Wait is the I/O handler's time.sleep (the source: 10 s).
	Wait time.Duration
	// SumN is the CPU handler's sum of squares bound (the source:
	// 10,000,000).
	SumN int
	// Burn is the model's CPU per CPU request, holding the GIL; 0 means
	// SumN on the source's laptop (SourceSumCost: 10 requests took 25 s on
	// one Flask worker, 2.5 s each). CPUVersus charges this machine's
	// measured cost instead (SumCost).
	Burn time.Duration
	// IO and CPU are the servers of each run (the source's: Flask 1w x
	// 5t, 1w x 10t, FastAPI 1w; Flask 1w x 10t, 2w x 5t, FastAPI 1w, 2w).
	IO, CPU []Stack
	// Accept is the model's prefork accept policy ("": greedy, as real
	// gunicorn; strategy.AcceptReusePort, strategy.AcceptBalanced).
	Accept string
	// FreeThreaded runs the model without a GIL (PEP 703's "what if").
	FreeThreaded bool
	// SwitchInterval is the model's sys.setswitchinterval (0: CPython's
	// 5 ms): how long a thread waiting for the GIL waits before it asks
	// the holder to drop it.
	SwitchInterval time.Duration
}

// Default is the source's: ten requests at once, 10 s sleeps, sums of
// 10,000,000, its seven servers.
var Default = Knobs{
	N: 10, Wait: 10 * time.Second, SumN: 10_000_000,
	IO:  []Stack{{Workers: 1, Threads: 5}, {Workers: 1, Threads: 10}, {FastAPI: true, Workers: 1}},
	CPU: []Stack{{Workers: 1, Threads: 10}, {Workers: 2, Threads: 5}, {FastAPI: true, Workers: 1}, {FastAPI: true, Workers: 2}},
}

// SourceSumCost is the sum of squares of n on the source's laptop: 250 ns
// an element (ten sums of 10,000,000 took 25 s on one Flask worker).
func SourceSumCost(n int) time.Duration { return time.Duration(n) * 250 * time.Nanosecond }

// Validate reports a knob out of range, naming it as the lesson's
// parameters cell does (n, wait, sumN, switchInterval, accept): a
// *knob.Error.
func (k Knobs) Validate() error {
	accepts := []string{strategy.AcceptGreedy, strategy.AcceptReusePort, strategy.AcceptBalanced}
	err := knob.First(
		knob.Want("s003", "n", k.N >= 1 && k.N <= 10000, "in 1..10000", k.N),
		knob.Want("s003", "wait", k.Wait > 0 && k.Wait <= 10*time.Minute, "in (0, 10m]", k.Wait),
		knob.Want("s003", "sumN", k.SumN >= 1 && k.SumN <= 1_000_000_000, "in 1..1000000000", k.SumN),
		knob.Want("s003", "switchInterval", k.SwitchInterval >= 0 && k.SwitchInterval <= time.Second, "in [0, 1s]", k.SwitchInterval),
		knob.Want("s003", "accept", k.Accept == "" || slices.Contains(accepts, k.Accept), fmt.Sprintf("%q, %q or %q", accepts[0], accepts[1], accepts[2]), k.Accept),
	)
	if err != nil {
		return err
	}
	if k.Burn < 0 {
		return fmt.Errorf("s003: Burn (the sum's CPU time) must not be negative, got %v", k.Burn)
	}
	for _, c := range append(append([]Stack(nil), k.IO...), k.CPU...) {
		if err := c.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// burn is the model's CPU per CPU request.
func (k Knobs) burn() time.Duration {
	if k.Burn > 0 {
		return k.Burn
	}
	return SourceSumCost(k.SumN)
}

func (k Knobs) model(c Stack) strategy.Strategy {
	m := c.Model(k.Accept)
	suffix := ""
	if k.FreeThreaded {
		suffix = " free-threaded"
	}
	switch s := m.(type) {
	case strategy.Gunicorn:
		s.Python.FreeThreaded, s.Python.SwitchInterval, s.Name = k.FreeThreaded, k.SwitchInterval, s.Name+suffix
		s.Python.SlowCallback = -1 // no asyncio debug mode, as the real apps: no slow-callback warnings
		return s
	case strategy.Uvicorn:
		s.Python.FreeThreaded, s.Python.SwitchInterval, s.Name = k.FreeThreaded, k.SwitchInterval, s.Name+suffix
		s.Python.SlowCallback = -1
		return s
	}
	return m
}

// IOExperiment is the I/O run on the model: N requests at once on each IO
// server, each sleeping Wait.
func (k Knobs) IOExperiment() bench.Experiment {
	e := bench.Experiment{
		Name:     fmt.Sprintf("source 003 (io): %d requests at once, %v each", k.N, k.Wait),
		Workload: pymodel.Workload{Name: "time.sleep " + k.Wait.String(), Steps: []pymodel.Step{pymodel.Sleep(k.Wait)}},
		Load:     load.Burst{N: k.N},
	}
	for _, c := range k.IO {
		e.Strategies = append(e.Strategies, k.model(c))
	}
	return e
}

// CPUExperiment is the CPU run on the model: N requests at once on each
// CPU server, each burning Burn (or the source laptop's cost of SumN)
// holding the GIL, a pause between servers.
func (k Knobs) CPUExperiment() bench.Experiment {
	s := pymodel.Burn(max(k.burn(), time.Microsecond))
	s.Name = "sum of squares " + strconv.Itoa(k.SumN)
	e := bench.Experiment{
		Name:     fmt.Sprintf("source 003 (cpu): %d requests at once, %v of CPU each", k.N, k.burn()),
		Workload: pymodel.Workload{Name: s.Name, Steps: []pymodel.Step{s}},
		Load:     load.Burst{N: k.N},
		Pause:    100 * time.Millisecond,
	}
	for _, c := range k.CPU {
		e.Strategies = append(e.Strategies, k.model(c))
	}
	return e
}

// Real is a server's real app as a strategy labelled "real " + Name(),
// sent path.
func Real(c Stack, path string, o cpython.Options) cpython.Real {
	return cpython.Real{Name: cpython.RealPrefix + c.Name(), App: c.App(), Endpoint: path, Options: o}
}

// IOVersus is IOExperiment with each server's real app beside its model
// (its /io?s=Wait), for lab.ModelVsReal.
func (k Knobs) IOVersus(o cpython.Options) bench.Experiment {
	e := k.IOExperiment()
	e.Name += ", model vs real CPython"
	e.Strategies = nil
	path := "/io?s=" + strconv.FormatFloat(k.Wait.Seconds(), 'f', -1, 64)
	for _, c := range k.IO {
		e.Strategies = append(e.Strategies, k.model(c), Real(c, path, o))
	}
	return e
}

// CPUVersus is CPUExperiment with each server's real app beside its
// model (its /cpu?n=SumN), the model charging cost per request — this
// machine's (SumCost, or MeasureSum just before) — and each row run
// repeat times (bench.Experiment.Repeat: a burst over several workers
// splits anew each time).
func (k Knobs) CPUVersus(cost time.Duration, repeat int, o cpython.Options) bench.Experiment {
	k.Burn = cost
	e := k.CPUExperiment()
	e.Name = fmt.Sprintf("source 003 (cpu): %d requests at once, sum of squares of %d, model vs real CPython", k.N, k.SumN)
	e.Repeat = repeat
	e.Strategies = nil
	path := "/cpu?n=" + strconv.Itoa(k.SumN)
	for _, c := range k.CPU {
		e.Strategies = append(e.Strategies, k.model(c), Real(c, path, o))
	}
	return e
}

// Table is the source's figures (strategy, workload, elapsed_s, waits,
// burns): ten requests at once; the I/O rows' waits in units of the 10 s
// sleep; the CPU rows' burns in units of S, the source not giving S: each
// app's one-worker row taken as 10 burns (S = 2.5 s for Flask, 2.7 s for
// FastAPI).
func Table() *frame.Frame {
	f := frame.Of("source 003: 10 concurrent requests", "strategy", "workload", "elapsed_s", "waits", "burns")
	for _, r := range []frame.Row{
		{"strategy": "flask 1w x 5t", "workload": "io", "elapsed_s": 20.0, "waits": 2.0},
		{"strategy": "flask 1w x 10t", "workload": "io", "elapsed_s": 11.0, "waits": 1.1},
		{"strategy": "fastapi 1w", "workload": "io", "elapsed_s": 11.0, "waits": 1.1},
		{"strategy": "flask 1w x 10t", "workload": "cpu", "elapsed_s": 25.0, "burns": 10.0},
		{"strategy": "flask 2w x 5t", "workload": "cpu", "elapsed_s": 14.0, "burns": 14.0 / 2.5},
		{"strategy": "fastapi 1w", "workload": "cpu", "elapsed_s": 27.0, "burns": 10.0},
		{"strategy": "fastapi 2w", "workload": "cpu", "elapsed_s": 17.0, "burns": 17.0 / 2.7},
	} {
		f.MustAppend(r)
	}
	return f
}

// width is how many of N sleeps a server runs at once: a gthread worker's
// threads; a uvicorn worker's 40 tokens.
func (k Knobs) width(c Stack) int {
	if c.FastAPI {
		return min(k.N, c.Workers*pymodel.DefaultLimiter)
	}
	return min(k.N, c.Workers*c.Threads)
}

// Estimate is the arithmetic's prediction for each server (strategy,
// workload, at_once, waves, elapsed_s, elapsed_max_s): I/O, waves =
// ⌈N / (workers × threads)⌉ of Wait (one worker's 40 tokens for FastAPI);
// CPU, under a GIL per process, N × S when one worker takes the whole
// burst (elapsed_max_s) down to ⌈N / min(workers, cores)⌉ × S when the
// burst splits evenly over the workers and cores (elapsed_s), S the
// model's CPU per request. cores is the machine's (the source's laptop
// had 8).
func (k Knobs) Estimate(cores int) *frame.Frame {
	f := frame.Of(fmt.Sprintf("estimate: %d requests at once, %d cores", k.N, cores), "strategy", "workload", "at_once", "waves", "elapsed_s", "elapsed_max_s", "waits", "burns", "burns_max")
	for _, c := range k.IO {
		at := k.width(c)
		waves := (k.N + at - 1) / at
		el := float64(waves) * k.Wait.Seconds()
		f.MustAppend(frame.Row{"strategy": c.Name(), "workload": "io", "at_once": at, "waves": waves, "elapsed_s": el, "elapsed_max_s": el, "waits": float64(waves)})
	}
	s := k.burn().Seconds()
	for _, c := range k.CPU {
		par := max(1, min(c.Workers, cores))
		if k.FreeThreaded {
			par = max(1, min(k.width(c), cores))
		}
		waves := (k.N + par - 1) / par
		most := float64(k.N)
		if k.FreeThreaded {
			most = float64(waves)
		}
		f.MustAppend(frame.Row{"strategy": k.model(c).Label(), "workload": "cpu", "at_once": par, "waves": waves,
			"elapsed_s": float64(waves) * s, "elapsed_max_s": most * s, "burns": float64(waves), "burns_max": most})
	}
	return f
}
