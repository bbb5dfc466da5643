// Package strategy runs HTTP servers under the lab's concurrency strategies:
// the Python model (uvicorn/FastAPI and gunicorn/Flask, built on
// bench/pymodel, with gunicorn-style prefork workers as real processes) and
// Go-native ones (a goroutine per request, bounded by a semaphore, serial, a
// process pool). Every server does a workload — a list of pymodel steps — per
// request, answers /health, and reports server-side measures.
//
// A Strategy is a plain value: Preset returns the named rows of the source
// experiments ("sync", "asyncio", "/async-block", "flask 1w x 5t",
// "goroutines", ...) and a notebook cell can print and change one before
// passing it to New.
//
// Binaries that run prefork or process-pool strategies must call
// pymodel.WorkerMain first (see bench/pymodel).
package strategy

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
)

// Strategy kinds.
const (
	// Uvicorn is uvicorn running FastAPI/Starlette: an event loop, def
	// handlers on AnyIO's limiter (Threads tokens), async handlers on the
	// loop; Workers > 1 forks that many worker processes.
	Uvicorn = "uvicorn"
	// Gunicorn is gunicorn's gthread worker running Flask: Workers
	// processes of Threads threads each, no event loop.
	Gunicorn = "gunicorn"
	// Goroutines is Go's net/http: a goroutine per request, no GIL.
	Goroutines = "goroutines"
	// Bounded is goroutines bounded by a semaphore of Limit.
	Bounded = "bounded"
	// Serial handles one request at a time.
	Serial = "serial"
	// GoProcessPool runs every portable step in a pool of worker
	// processes (ProcessWorkers, default one per CPU).
	GoProcessPool = "goprocesspool"
)

// Strategy describes how a server schedules its requests. The zero values of
// the size fields mean the Python or Go default.
type Strategy struct {
	Name string // the row label
	Kind string // Uvicorn, Gunicorn, Goroutines, Bounded, Serial or GoProcessPool

	// Python model.
	Workers int  // worker processes (prefork); 0 means 1
	Threads int  // uvicorn limiter tokens (0: 40) or gthread threads (0: 1)
	Async   bool // async def handler (uvicorn only)
	// CPUCall and IOCall say how the handler calls a CPU or an I/O step
	// whose own Call is empty ("" means block).
	CPUCall pymodel.Call
	IOCall  pymodel.Call
	// CPUs is the modelled os.cpu_count(): 0 means this machine's.
	CPUs           int
	Executor       int           // asyncio default executor; 0: min(32, CPUs+4)
	ThreadExecutor int           // the app's ThreadPoolExecutor(); 0: min(32, CPUs+4)
	ProcessWorkers int           // ProcessPoolExecutor() or Go pool size; 0: CPUs
	SwitchInterval time.Duration // 0: 5 ms
	FreeThreaded   bool          // no GIL
	SlowCallback   time.Duration // 0: 100 ms; negative: no warnings

	// Go-native.
	Limit int // Bounded's semaphore size
}

// IsPython reports whether the strategy runs on the Python model.
func (s Strategy) IsPython() bool { return s.Kind == Uvicorn || s.Kind == Gunicorn }

// Validate reports a strategy that cannot run, naming what is wrong.
func (s Strategy) Validate() error {
	switch s.Kind {
	case Uvicorn, Gunicorn, Goroutines, Serial, GoProcessPool:
	case Bounded:
		if s.Limit <= 0 {
			return fmt.Errorf("strategy %q: bounded needs a positive Limit, got %d", s.Name, s.Limit)
		}
	case "":
		return fmt.Errorf("strategy %q: no kind", s.Name)
	default:
		return fmt.Errorf("strategy %q: unknown kind %q (want %s)", s.Name, s.Kind, strings.Join(Kinds(), ", "))
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"Workers", s.Workers}, {"Threads", s.Threads}, {"CPUs", s.CPUs}, {"Executor", s.Executor}, {"ThreadExecutor", s.ThreadExecutor}, {"ProcessWorkers", s.ProcessWorkers}, {"Limit", s.Limit}} {
		if f.v < 0 {
			return fmt.Errorf("strategy %q: %s must not be negative, got %d", s.Name, f.name, f.v)
		}
	}
	if s.SwitchInterval < 0 {
		return fmt.Errorf("strategy %q: SwitchInterval must not be negative, got %v", s.Name, s.SwitchInterval)
	}
	if s.Async && s.Kind != Uvicorn {
		return fmt.Errorf("strategy %q: async handlers need kind %q, not %q", s.Name, Uvicorn, s.Kind)
	}
	for _, c := range []pymodel.Call{s.CPUCall, s.IOCall} {
		if _, err := pymodel.ParseCall(string(c)); err != nil {
			return fmt.Errorf("strategy %q: %w", s.Name, err)
		}
	}
	return nil
}

// Kinds lists the strategy kinds.
func Kinds() []string {
	return []string{Uvicorn, Gunicorn, Goroutines, Bounded, Serial, GoProcessPool}
}

// String describes the strategy in one line.
func (s Strategy) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", s.Name, s.Kind)
	if s.IsPython() {
		w := s.Workers
		if w == 0 {
			w = 1
		}
		fmt.Fprintf(&b, " %dw", w)
		if s.Threads > 0 {
			fmt.Fprintf(&b, " x %dt", s.Threads)
		}
		if s.Async {
			b.WriteString(", async def")
		} else {
			b.WriteString(", def")
		}
		if s.CPUCall != "" {
			fmt.Fprintf(&b, ", cpu %s", s.CPUCall)
		}
		if s.IOCall != "" {
			fmt.Fprintf(&b, ", io %s", s.IOCall)
		}
		if s.CPUs > 0 {
			fmt.Fprintf(&b, ", %d CPUs", s.CPUs)
		}
		if s.FreeThreaded {
			b.WriteString(", free-threaded")
		}
	}
	if s.Kind == Bounded {
		fmt.Fprintf(&b, " %d", s.Limit)
	}
	return b.String()
}

// resolve returns the steps with each empty Call set from the strategy.
func (s Strategy) resolve(steps []pymodel.Step) []pymodel.Step {
	out := make([]pymodel.Step, len(steps))
	for i, st := range steps {
		if st.Call == "" {
			if st.IsIO() {
				st.Call = s.IOCall
			} else {
				st.Call = s.CPUCall
			}
		}
		if st.Call == "" {
			st.Call = pymodel.Block
		}
		out[i] = st
	}
	return out
}

var presets = []Strategy{
	// Source 000: the image upload handler in four styles.
	{Name: "sync", Kind: Uvicorn},
	{Name: "asyncio", Kind: Uvicorn, Async: true, IOCall: pymodel.Await},
	{Name: "ThreadPool", Kind: Uvicorn, Async: true, CPUCall: pymodel.ThreadExecutor, IOCall: pymodel.ThreadExecutor},
	{Name: "ProcessPool", Kind: Uvicorn, Async: true, CPUCall: pymodel.ProcessExecutor, IOCall: pymodel.Block},
	// Source 000, chapter 2: async def handlers that print per line,
	// through a buffered async writer, or not at all (the printer is the
	// workload's: strategy.Print with a sync, async or none printer).
	{Name: "/doPrint", Kind: Uvicorn, Async: true},
	{Name: "/doPrintAsync", Kind: Uvicorn, Async: true},
	{Name: "/dontPrint", Kind: Uvicorn, Async: true},
	// Source 001: FastAPI endpoints, on the source's 8-core laptop.
	{Name: "/sync-sleep", Kind: Uvicorn, CPUs: 8},
	{Name: "/async-block", Kind: Uvicorn, Async: true, CPUs: 8},
	{Name: "/async-ok", Kind: Uvicorn, Async: true, IOCall: pymodel.Await, CPUs: 8},
	{Name: "/offload", Kind: Uvicorn, Async: true, CPUCall: pymodel.ToThread, IOCall: pymodel.ToThread, CPUs: 8},
	// Source 003: gunicorn workers x threads.
	{Name: "flask 1w x 5t", Kind: Gunicorn, Workers: 1, Threads: 5},
	{Name: "flask 1w x 10t", Kind: Gunicorn, Workers: 1, Threads: 10},
	{Name: "flask 2w x 5t", Kind: Gunicorn, Workers: 2, Threads: 5},
	{Name: "gunicorn 2w x 5t", Kind: Gunicorn, Workers: 2, Threads: 5},
	{Name: "fastapi 1w", Kind: Uvicorn, Workers: 1},
	{Name: "fastapi 2w", Kind: Uvicorn, Workers: 2},
	// Source 004: a def handler with a sync driver (thread pool), and an
	// async def handler awaiting an async driver.
	{Name: "sync app", Kind: Uvicorn},
	{Name: "async app", Kind: Uvicorn, Async: true, IOCall: pymodel.Await},
	// PEP 703.
	{Name: "free-threaded 1w x 10t", Kind: Gunicorn, Workers: 1, Threads: 10, FreeThreaded: true},
	// Go-native.
	{Name: "goroutines", Kind: Goroutines},
	{Name: "bounded 10", Kind: Bounded, Limit: 10},
	{Name: "serial", Kind: Serial},
	{Name: "go process pool", Kind: GoProcessPool},
}

// Preset returns the named strategy, a copy a caller may change.
func Preset(name string) (Strategy, error) {
	for _, p := range presets {
		if p.Name == name {
			return p, nil
		}
	}
	return Strategy{}, fmt.Errorf("strategy: unknown preset %q (known: %s)", name, strings.Join(PresetNames(), ", "))
}

// MustPreset is Preset that panics on an unknown name, for literals in
// examples and notebooks.
func MustPreset(name string) Strategy {
	s, err := Preset(name)
	if err != nil {
		panic(err)
	}
	return s
}

// Presets returns copies of every preset, in the sources' order.
func Presets() []Strategy { return append([]Strategy(nil), presets...) }

// PresetNames lists the preset names, sorted.
func PresetNames() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.Name
	}
	sort.Strings(out)
	return out
}
