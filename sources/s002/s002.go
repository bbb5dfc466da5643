// Package s002 is source 002, "Is asyncio really better than threads? 100
// concurrent requests" (a translated blog): a mock downstream's /health
// waits 200 ms, and a client makes 100 health checks one after another
// (requests), through a ThreadPoolExecutor of 100 or 30 workers, or with
// aiohttp and asyncio.gather.
//
// Here the client is what is compared. On the model a client is a
// modelled Python process, a strategy like any server's: each check is a
// request to it and its body a wait of the downstream's latency — a
// for-loop is one thread taking the checks one at a time, a
// ThreadPoolExecutor a pool of W threads, gather an event loop awaiting
// each — and bench.Run sends it the N checks at once (Knobs.Experiment).
// For real, the source's clients are Python processes against the real
// downstream (RunClient), recorded through bench/metrics with their own CPU
// and peak RSS.
//
// The shape of every source package (see sources/s001): Files, Code,
// Knobs and Default, the models as literals (Client.Model), Experiment,
// Versus, Estimate, Checks and Table.
package s002

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

//go:embed py/*.py
var py embed.FS

// Files are the source's Python files: app002.py (the downstream) and
// client002.py (the three clients).
func Files() fs.FS {
	sub, _ := fs.Sub(py, "py")
	return sub
}

// Code returns one of Files' texts ("client002.py").
func Code(name string) (string, error) { return cpython.Code(Files(), name) }

// Client modes.
const (
	Sequential = "sequential" // for url in urls: requests.get(url)
	Threads    = "threads"    // ThreadPoolExecutor(max_workers=W) + as_completed
	AsyncIO    = "asyncio"    // aiohttp.ClientSession + asyncio.gather
)

// Client is one of the source's clients.
type Client struct {
	Mode    string // Sequential, Threads or AsyncIO
	Workers int    // Threads' max_workers
}

// Label is the client's row name: "sequential (requests)",
// "ThreadPoolExecutor(100)", "asyncio + aiohttp".
func (c Client) Label() string {
	switch c.Mode {
	case Sequential:
		return "sequential (requests)"
	case Threads:
		return fmt.Sprintf("ThreadPoolExecutor(%d)", c.Workers)
	case AsyncIO:
		return "asyncio + aiohttp"
	}
	return c.Mode
}

// Validate reports an unknown mode or a pool size out of range.
func (c Client) Validate() error {
	switch c.Mode {
	case Sequential, AsyncIO:
		return nil
	case Threads:
		if c.Workers < 1 || c.Workers > 1000 {
			return fmt.Errorf("s002: pools: %s: max_workers must be in 1..1000, got %d", c.Label(), c.Workers)
		}
		return nil
	}
	return fmt.Errorf("s002: unknown client mode %q (want %q, %q or %q)", c.Mode, Sequential, Threads, AsyncIO)
}

// Model is the client as a modelled Python process, a literal of its
// Python: a process whose checks arrive all at once (bench.Run's burst)
// and run as its code runs them —
//
//	for url in urls: requests.get(url)          Uvicorn{Limiter: 1}: one thread, the checks in turn
//	ThreadPoolExecutor(max_workers=W).submit    Uvicorn{Limiter: W}: W threads, each check blocking one
//	asyncio.gather(*(session.get(url) ...))     Uvicorn{Async: true, IOCall: Await}: one loop awaiting every check
//
// The threads are a def handler's (a limiter of W tokens hands each
// arriving check to the next free thread, in order, as submit queues them
// to the executor); each check is a request it is sent, its body a wait
// (Knobs.Workload).
func (c Client) Model(cpus int) strategy.Strategy {
	py := strategy.Python{CPUs: cpus}
	switch c.Mode {
	case Threads:
		return strategy.Uvicorn{Name: c.Label(), Limiter: c.Workers, IOCall: pymodel.Block, Python: py}
	case AsyncIO:
		return strategy.Uvicorn{Name: c.Label(), Async: true, IOCall: pymodel.Await, Python: py}
	}
	return strategy.Uvicorn{Name: c.Label(), Limiter: 1, IOCall: pymodel.Block, Python: py}
}

// Downstream handlers (Knobs.Downstream): how the mock's /health waits.
const (
	// DownstreamAsync is the lab's reading of the source's mock: async def
	// awaiting asyncio.sleep, any number of checks at once.
	DownstreamAsync = "async def"
	// DownstreamDef is the other reading: def + time.sleep, run on AnyIO's
	// worker threads, at most DownstreamTokens checks at once.
	DownstreamDef = "def"
)

// DownstreamTokens is AnyIO's default limiter: how many checks a def
// downstream answers at once.
const DownstreamTokens = pymodel.DefaultLimiter

// Knobs are the experiment's settings. Default is the source's.
type Knobs struct {
	// N health checks each client makes (the source: 100).
	N int
	// Latency is the downstream's wait (the source: 200 ms).
	Latency time.Duration
	// Clients are the rows (the source's four).
	Clients []Client
	// CPUs is the client machine's modelled os.cpu_count() (0: this
	// machine's).
	CPUs int
	// Downstream is the mock's /health handler: DownstreamAsync ("": the
	// same) or DownstreamDef.
	Downstream string
}

// Default is the source's: 100 checks of a 200 ms /health by its four
// clients.
var Default = Knobs{N: 100, Latency: 200 * time.Millisecond,
	Clients: []Client{{Mode: Sequential}, {Mode: Threads, Workers: 100}, {Mode: Threads, Workers: 30}, {Mode: AsyncIO}}}

// Validate reports a knob out of range, naming it.
func (k Knobs) Validate() error {
	switch {
	case k.N < 1 || k.N > 10000:
		return fmt.Errorf("s002: calls (health checks per client) must be in 1..10000, got %d", k.N)
	case k.Latency <= 0 || k.Latency > time.Minute:
		return fmt.Errorf("s002: latency (the downstream's wait) must be in (0, 1m], got %v", k.Latency)
	case len(k.Clients) == 0:
		return fmt.Errorf("s002: no Clients")
	case k.Downstream != "" && k.Downstream != DownstreamAsync && k.Downstream != DownstreamDef:
		return fmt.Errorf("s002: downstream must be %q or %q, got %q", DownstreamAsync, DownstreamDef, k.Downstream)
	case k.CPUs < 0:
		return fmt.Errorf("s002: CPUs must not be negative, got %d", k.CPUs)
	}
	for _, c := range k.Clients {
		if err := c.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// def reports whether the downstream is DownstreamDef.
func (k Knobs) def() bool { return k.Downstream == DownstreamDef }

// Workload is a check on the model: a wait of Latency (the call to the
// downstream, which releases the GIL; each client's model says how it is
// called). With a def downstream the wait first takes one of the
// downstream's DownstreamTokens (shared by every check of the workload, as
// the one mock serves them), so at most that many wait at once.
func (k Knobs) Workload() pymodel.Workload {
	if !k.def() {
		s := pymodel.Sleep(k.Latency)
		s.Name = "GET /health"
		return pymodel.Workload{Name: "GET /health (" + k.Latency.String() + ")", Steps: []pymodel.Step{s}}
	}
	tokens := make(chan struct{}, DownstreamTokens)
	latency := k.Latency
	s := pymodel.Custom("GET /health-def", true, func(ctx context.Context) error {
		select {
		case tokens <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-tokens }()
		t := time.NewTimer(latency)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	return pymodel.Workload{Name: "GET /health-def (" + k.Latency.String() + ", " + strconv.Itoa(DownstreamTokens) + " tokens)", Steps: []pymodel.Step{s}}
}

// Path is the downstream's endpoint the clients call: /health, or
// /health-def for a def downstream.
func (k Knobs) Path() string {
	if k.def() {
		return "/health-def"
	}
	return "/health"
}

// Experiment is the source's run on the model: each client sent its N
// checks at once (bench.Run's burst), so its elapsed_s is the client's
// total time and its trace the checks' waves.
func (k Knobs) Experiment() bench.Experiment {
	e := bench.Experiment{
		Name:     fmt.Sprintf("source 002: %d health checks of a %v %s downstream, on the model", k.N, k.Latency, k.downstream()),
		Workload: k.Workload(),
		Load:     load.Burst{N: k.N},
	}
	for _, c := range k.Clients {
		e.Strategies = append(e.Strategies, c.Model(k.CPUs))
	}
	return e
}

// downstream is the Downstream knob's value, "" read as its default.
func (k Knobs) downstream() string {
	if k.Downstream == "" {
		return DownstreamAsync
	}
	return k.Downstream
}

// Waves is how many waits one after another the client's N checks take:
// N one at a time, ⌈N / W⌉ in a pool of W, one gathered — and at most
// DownstreamTokens at once whatever the client, with a def downstream.
func (k Knobs) Waves(c Client) int {
	at := k.AtOnce(c)
	if k.def() {
		at = min(at, DownstreamTokens)
	}
	return (k.N + at - 1) / at
}

// AtOnce is how many checks the client has in flight at once.
func (k Knobs) AtOnce(c Client) int {
	switch c.Mode {
	case Threads:
		return min(k.N, c.Workers)
	case AsyncIO:
		return k.N
	}
	return 1
}

// Estimate is the arithmetic's prediction for each client: strategy,
// at_once (checks the client has in flight), waves, elapsed_s (waves ×
// Latency) and waits (elapsed_s in Latencies: the waves).
func (k Knobs) Estimate() *frame.Frame {
	f := frame.Of(fmt.Sprintf("estimate: %d checks of %v, %s downstream", k.N, k.Latency, k.downstream()),
		"strategy", "at_once", "waves", "elapsed_s", "waits")
	for _, c := range k.Clients {
		f.MustAppend(frame.Row{"strategy": c.Label(), "at_once": k.AtOnce(c), "waves": k.Waves(c),
			"elapsed_s": float64(k.Waves(c)) * k.Latency.Seconds(), "waits": float64(k.Waves(c))})
	}
	return f
}

// EstimateCPU is Estimate with each client's CPU floor, cpu_s = N × c: the
// client's own work per call (c, CallCPU: requests' or aiohttp's), done
// under its GIL one call at a time whatever the pool; the waits cost none.
func (k Knobs) EstimateCPU(c CallCPU) *frame.Frame {
	f := k.Estimate()
	f.Name += fmt.Sprintf("; client CPU ≈ N × c (c: requests %v, aiohttp %v a call)", c.Requests.Round(time.Microsecond), c.AIOHTTP.Round(time.Microsecond))
	out, err := f.Compute("cpu_s", func(r frame.Row) any {
		per := c.Requests
		if r.Text("strategy") == (Client{Mode: AsyncIO}).Label() {
			per = c.AIOHTTP
		}
		return float64(k.N) * per.Seconds()
	})
	if err != nil {
		return f
	}
	return out
}

// Table is the source's figures for 100 checks of a 200 ms /health:
// strategy, elapsed_min_s, elapsed_max_s (the range it reports; equal when
// it gives one figure), waits_min and waits_max (the same in 200 ms
// waits) and its note. The pool of 100 is "8.5 s first, then 3–6 s": its
// first run 8.5 s, later runs 3 to 6 s.
func Table() *frame.Frame {
	f := frame.Of("source 002: 100 health checks, 200 ms each", "strategy", "elapsed_min_s", "elapsed_max_s", "waits_min", "waits_max", "note")
	for _, r := range []frame.Row{
		{"strategy": "sequential (requests)", "elapsed_min_s": 20.3, "elapsed_max_s": 20.3, "note": "~20.3 s: 100 x 200 ms"},
		{"strategy": "ThreadPoolExecutor(100)", "elapsed_min_s": 3.0, "elapsed_max_s": 8.5, "note": "8.5 s first, then 3–6 s; CPU up to 90 %"},
		{"strategy": "ThreadPoolExecutor(30)", "elapsed_min_s": 2.1, "elapsed_max_s": 2.1, "note": "2.1 s; \"tuning by gut feeling\""},
		{"strategy": "asyncio + aiohttp", "elapsed_min_s": 0.45, "elapsed_max_s": 0.60, "note": "0.45–0.60 s; CPU < 15 %, flat memory"},
	} {
		r["waits_min"], r["waits_max"] = r["elapsed_min_s"].(float64)/0.2, r["elapsed_max_s"].(float64)/0.2
		f.MustAppend(r)
	}
	return f
}

// TableRange is Table as two frames, its low and its high figures
// (strategy, elapsed_s, waits), named "source 002 (low)" and "source 002
// (high)" so a chart draws the source's ranges as two bars; where the
// source gives one figure they are equal.
func TableRange() (low, high *frame.Frame) {
	t := Table()
	pick := func(which, name string) *frame.Frame {
		f := frame.Of("source 002 ("+name+"): "+t.Name, "strategy", "elapsed_s", "waits")
		for _, r := range t.Rows() {
			f.MustAppend(frame.Row{"strategy": r.Text("strategy"), "elapsed_s": r.Float("elapsed_" + which + "_s"), "waits": r.Float("waits_" + which)})
		}
		return f
	}
	return pick("min", "low"), pick("max", "high")
}

// Pools are ThreadPoolExecutor clients of these sizes (Knobs.Clients).
func Pools(workers ...int) []Client {
	out := make([]Client, len(workers))
	for i, w := range workers {
		out[i] = Client{Mode: Threads, Workers: w}
	}
	return out
}

// Pool is the first ThreadPoolExecutor client's size, or the source's 100
// when the knobs have none: a lesson's slider starts there.
func (k Knobs) Pool() int {
	for _, c := range k.Clients {
		if c.Mode == Threads {
			return c.Workers
		}
	}
	return 100
}
