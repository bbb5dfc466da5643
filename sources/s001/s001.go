// Package s001 is source 001, "def vs async def" (a FastAPI book section):
// four endpoints that each wait — a def handler sleeping (Starlette runs it
// on AnyIO's limiter), an async def calling time.sleep (the bug: it blocks
// the event loop), an async def awaiting asyncio.sleep, and an async def
// offloading the sleep with asyncio.to_thread — and a client that sends N
// requests at once and times the batch.
//
// The shape of every source package (sources/...):
//
//   - Files, Code: its Python, embedded (py/app001.py, py/bench001.py);
//     App is the real app on the pinned environment's CPython.
//   - Knobs (Default: the source's): N, Wait, Limiter, CPUs.
//   - Knobs.Strategy: the model of each endpoint, a literal that reads as
//     its Python; Knobs.Experiment the model alone, Knobs.Versus the model
//     beside the real app (lab.ModelVsReal).
//   - Knobs.Estimate: what the arithmetic predicts — waves = ⌈N / at once⌉,
//     elapsed = waves × Wait.
//   - Knobs.Checks: the shape as checks derived from the knobs, for the
//     package's tests and the notebook suite.
//   - Table: the source's own figures.
package s001

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
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/sources/shape"
)

//go:embed py/*.py
var py embed.FS

// Files are the source's Python files: app001.py (the four endpoints) and
// bench001.py (the book's httpx client).
func Files() fs.FS {
	sub, _ := fs.Sub(py, "py")
	return sub
}

// Code returns one of Files' texts ("app001.py"), to show the Python under
// judgment.
func Code(name string) (string, error) { return cpython.Code(Files(), name) }

// The endpoints, in the source's order.
const (
	SyncSleep  = "/sync-sleep"  // def + time.sleep: on AnyIO's limiter
	AsyncBlock = "/async-block" // async def + time.sleep: blocks the loop
	AsyncOK    = "/async-ok"    // async def + await asyncio.sleep
	Offload    = "/offload"     // async def + await asyncio.to_thread(time.sleep)
)

// Endpoints lists the endpoints in the source's order.
func Endpoints() []string { return []string{SyncSleep, AsyncBlock, AsyncOK, Offload} }

// Knobs are the experiment's settings. Default is the source's.
type Knobs struct {
	// N requests are sent at once (the source: 10; its text: 100).
	N int
	// Wait is each endpoint's wait (the source: 1 s).
	Wait time.Duration
	// Limiter is AnyIO's tokens for def handlers (Starlette's
	// run_in_threadpool; AnyIO's default 40).
	Limiter int
	// CPUs is the modelled os.cpu_count(): asyncio.to_thread's default
	// executor has min(32, CPUs + 4) threads (the source's laptop: 8).
	// The real app is given the same (CONCLAB_CPUS).
	CPUs int
}

// Default is the source's experiment: 10 requests at once, 1 s each, 40
// tokens, an 8-core laptop.
var Default = Knobs{N: 10, Wait: time.Second, Limiter: pymodel.DefaultLimiter, CPUs: 8}

// Validate reports a knob out of range, naming it as the lessons' knobs
// cell does: n (N), wait (Wait), tokens (Limiter), cpus (CPUs).
func (k Knobs) Validate() error {
	switch {
	case k.N < 1 || k.N > 10000:
		return fmt.Errorf("s001: n (requests sent at once) must be in 1..10000, got %d", k.N)
	case k.Wait <= 0 || k.Wait > time.Minute:
		return fmt.Errorf("s001: wait must be in (0, 1m], got %v", k.Wait)
	case k.Limiter < 1 || k.Limiter > 10000:
		return fmt.Errorf("s001: tokens (AnyIO's limiter) must be in 1..10000, got %d", k.Limiter)
	case k.CPUs < 1 || k.CPUs > 1024:
		return fmt.Errorf("s001: cpus must be in 1..1024, got %d", k.CPUs)
	}
	return nil
}

// Hundred is exercise 2's knobs: n100 requests at once, each wait a
// fiftieth of Wait (in waits nothing changes; /async-block takes n100
// waits one after another). A bad n100 is an error
// naming it.
func (k Knobs) Hundred(n100 int) (Knobs, error) {
	if n100 < 1 || n100 > 10000 {
		return k, fmt.Errorf("s001: n100 (exercise 2's burst) must be in 1..10000, got %d", n100)
	}
	k.N, k.Wait = n100, k.Wait/50
	return k, k.Validate()
}

// Strategy is the model of one endpoint, a literal of its Python:
//
//	@app.get("/sync-sleep")  def ...: time.sleep(1)                  Uvicorn{Limiter: 40, IOCall: Block}
//	@app.get("/async-block") async def ...: time.sleep(1)            Uvicorn{Async: true, IOCall: Block}
//	@app.get("/async-ok")    async def ...: await asyncio.sleep(1)   Uvicorn{Async: true, IOCall: Await}
//	@app.get("/offload")     async def ...: await asyncio.to_thread  Uvicorn{Async: true, IOCall: ToThread}
//
// each on a modelled CPython of CPUs cores. An unknown endpoint is an
// error naming the four.
func (k Knobs) Strategy(endpoint string) (strategy.Uvicorn, error) {
	py := strategy.Python{CPUs: k.CPUs}
	switch endpoint {
	case SyncSleep:
		return strategy.Uvicorn{Name: SyncSleep, Limiter: k.Limiter, IOCall: pymodel.Block, Python: py}, nil
	case AsyncBlock:
		return strategy.Uvicorn{Name: AsyncBlock, Limiter: k.Limiter, Async: true, IOCall: pymodel.Block, Python: py}, nil
	case AsyncOK:
		return strategy.Uvicorn{Name: AsyncOK, Limiter: k.Limiter, Async: true, IOCall: pymodel.Await, Python: py}, nil
	case Offload:
		return strategy.Uvicorn{Name: Offload, Limiter: k.Limiter, Async: true, IOCall: pymodel.ToThread, Python: py}, nil
	}
	return strategy.Uvicorn{}, fmt.Errorf("s001: unknown endpoint %q (want one of %v)", endpoint, Endpoints())
}

// Strategies are the four endpoints' models, in the source's order.
func (k Knobs) Strategies() []strategy.Strategy {
	var out []strategy.Strategy
	for _, ep := range Endpoints() {
		s, _ := k.Strategy(ep)
		out = append(out, s)
	}
	return out
}

// Workload is every endpoint's body on the model: one wait of Wait (how
// each endpoint calls it is its strategy's IOCall).
func (k Knobs) Workload() pymodel.Workload {
	return pymodel.Workload{Name: "wait " + k.Wait.String(), Steps: []pymodel.Step{pymodel.Sleep(k.Wait)}}
}

// Experiment is the source's run on the model: N requests at once on each
// endpoint.
func (k Knobs) Experiment() bench.Experiment {
	return bench.Experiment{
		Name:       fmt.Sprintf("source 001: %d requests at once, %v each", k.N, k.Wait),
		Strategies: k.Strategies(),
		Workload:   k.Workload(),
		Load:       load.Burst{N: k.N},
	}
}

// App is the source's real app under uvicorn, its waits Wait, its limiter
// Limiter tokens and its to_thread pool sized for CPUs (CONCLAB_* knobs).
func (k Knobs) App() cpython.App {
	return cpython.App{
		Name: "uvicorn", Files: Files(), Module: "app001:app", Server: cpython.Uvicorn,
		Env: map[string]string{
			"CONCLAB_WAIT_S":  strconv.FormatFloat(k.Wait.Seconds(), 'f', -1, 64),
			"CONCLAB_LIMITER": strconv.Itoa(k.Limiter),
			"CONCLAB_CPUS":    strconv.Itoa(k.CPUs),
		},
		Requires: slices.Concat(cpython.FastAPIModules, []string{"httpx", "requests"}),
	}
}

// Real is the real app's endpoint as a strategy, labelled "real " +
// endpoint.
func (k Knobs) Real(endpoint string, o cpython.Options) cpython.Real {
	return cpython.Real{Name: cpython.RealPrefix + endpoint, App: k.App(), Endpoint: endpoint, Options: o}
}

// Versus is Experiment with every endpoint's real app beside its model
// ("/sync-sleep", "real /sync-sleep", ...), for lab.ModelVsReal. With
// o.Trace the real rows are traced too.
func (k Knobs) Versus(o cpython.Options) bench.Experiment {
	e := k.Experiment()
	e.Name += ", model vs real CPython"
	e.Strategies = nil
	for _, ep := range Endpoints() {
		m, _ := k.Strategy(ep)
		e.Strategies = append(e.Strategies, m, k.Real(ep, o))
	}
	return e
}

// AtOnce is how many of N requests an endpoint runs at once: AnyIO's
// tokens for /sync-sleep, one for /async-block, all for /async-ok, the
// default executor's min(32, CPUs + 4) threads for /offload.
func (k Knobs) AtOnce(endpoint string) int {
	switch endpoint {
	case SyncSleep:
		return min(k.N, k.Limiter)
	case AsyncBlock:
		return 1
	case Offload:
		return min(k.N, pymodel.DefaultExecutorSize(k.CPUs))
	}
	return k.N
}

// handlersAtOnce is how many handlers run at once: a def handler only on
// a token, an async def blocking the loop one at a time, the others all
// at once (an /offload handler awaits its thread).
func (k Knobs) handlersAtOnce(endpoint string) int {
	if endpoint == SyncSleep || endpoint == AsyncBlock {
		return k.AtOnce(endpoint)
	}
	return k.N
}

// Waves is ⌈N / AtOnce⌉: how many waits one after another the batch takes.
func (k Knobs) Waves(endpoint string) int {
	at := max(k.AtOnce(endpoint), 1) // knobs out of range (Validate) give a number, not a panic
	return (k.N + at - 1) / at
}

// Estimate is the arithmetic's prediction for each endpoint: strategy,
// at_once, waves, waits (the batch in waits: its waves) and elapsed_s
// (waves × Wait).
func (k Knobs) Estimate() *frame.Frame {
	f := frame.Of(fmt.Sprintf("source 001 estimated: %d requests at once, %v each", k.N, k.Wait), "strategy", "at_once", "waves", "waits", "elapsed_s")
	for _, ep := range Endpoints() {
		f.MustAppend(frame.Row{"strategy": ep, "at_once": k.AtOnce(ep), "waves": k.Waves(ep), "waits": k.Waves(ep),
			"elapsed_s": float64(k.Waves(ep)) * k.Wait.Seconds()})
	}
	return f
}

// Table is the source's figures: 10 concurrent requests of a 1 s wait
// (strategy, elapsed_s, waits). It also states /offload performs like
// /sync-sleep and 100 concurrent /sync-sleep take about 3 s (three waves
// of the 40 threads); those are not in its table.
func Table() *frame.Frame {
	f := frame.Of("source 001: 10 concurrent requests, 1 s wait each", "strategy", "elapsed_s", "waits")
	f.MustAppend(frame.Row{"strategy": SyncSleep, "elapsed_s": 1.03, "waits": 1.03})
	f.MustAppend(frame.Row{"strategy": AsyncBlock, "elapsed_s": 10.02, "waits": 10.02})
	f.MustAppend(frame.Row{"strategy": AsyncOK, "elapsed_s": 1.03, "waits": 1.03})
	return f
}

// Checks are the shape of a result of Experiment or Versus with these
// knobs: for every endpoint the model ran (and its real row, when res has
// it), no errors, the batch no shorter than its waves, and from a trace as
// many handlers at once as the endpoint allows (AtOnce for /sync-sleep
// and /async-block, all N for the others); on the model also as many
// waits at once as AtOnce in Waves waves, and every /async-block wait
// inside a blocked loop.
func (k Knobs) Checks(res *bench.Result) []shape.Check {
	has := map[string]bool{}
	for _, s := range res.Summary.Texts("strategy") {
		has[s] = true
	}
	var out []shape.Check
	for _, ep := range Endpoints() {
		for _, row := range []string{ep, cpython.RealPrefix + ep} {
			if !has[row] {
				continue
			}
			out = append(out, shape.Equal(row+": errors", res.Value(row, "errors"), 0),
				shape.AtLeast(row+": waits (≥ its waves)", res.Value(row, "elapsed_s")/k.Wait.Seconds(), 0.95*float64(k.Waves(ep))))
			if len(res.Events(row)) > 0 {
				out = append(out, shape.Equal(row+": handlers at once", res.MaxOverlap(row, trace.Handler), k.handlersAtOnce(ep)))
			}
			if row != ep {
				continue
			}
			out = append(out, shape.Equal(ep+": waits at once", res.MaxOverlap(ep, trace.IO), k.AtOnce(ep)),
				shape.Equal(ep+": waves of waits", len(res.Waves(ep, trace.IO)), k.Waves(ep)))
			if ep == AsyncBlock {
				in, all := res.Within(ep, trace.IO, trace.LoopBlocked)
				out = append(out, shape.Equal(ep+": waits inside a blocked loop", in, all), shape.Equal(ep+": waits", all, k.N))
			}
		}
	}
	return out
}
