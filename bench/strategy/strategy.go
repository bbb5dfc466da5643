// Package strategy runs HTTP servers under the lab's concurrency strategies.
// A Strategy is a typed configuration of one family, one file per family:
//
//	python.go         Python: the modelled interpreter (CPUs, executors, GIL)
//	uvicorn.go        Uvicorn: uvicorn + FastAPI, an event loop, def handlers on AnyIO's limiter
//	gunicorn.go       Gunicorn: gunicorn's gthread workers running Flask
//	gonative.go       Goroutines, Bounded, Serial: Go's net/http
//	goprocesspool.go  GoProcessPool: Go handing portable steps to worker processes
//	external.go       External: a server the user runs, by its loopback URL
//
// The real-CPython family (the sources' own apps) lives in bench/cpython.
// Every family validates itself (Validate names what is wrong), labels its
// row (Label) and starts a Server (Start). The lab's own families serve a
// workload — a list of pymodel steps — per request, answer HealthPath, and
// report server-side measures (Stats, ServerColumns); the Python families run
// on bench/pymodel, with gunicorn-style prefork workers as real processes.
//
// A strategy is a plain value: Preset returns the named rows of the source
// experiments ("sync", "asyncio", "/async-block", "flask 1w x 5t",
// "goroutines", ...) and a notebook cell can print one, change a field of
// its family's type and Start it (or hand it to bench.Run).
//
// Binaries that run prefork or process-pool strategies must call
// pymodel.WorkerMain first (see bench/pymodel).
package strategy

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// Strategy is one way of serving requests: a typed configuration of one
// family (Uvicorn, Gunicorn, Goroutines, Bounded, Serial, GoProcessPool,
// External, bench/cpython's Real).
type Strategy interface {
	// Label is the row label ("sync", "/async-block", "gunicorn 2w x 5t",
	// "real /sync-sleep").
	Label() string
	// Validate reports a configuration that cannot run, naming what is
	// wrong.
	Validate() error
	// Start starts a server for w (families that do not run the lab's
	// workload — real CPython apps, a URL the user brings — ignore w) and
	// returns once it is ready. The caller must Close it; the lab's own
	// families also close when ctx is cancelled.
	Start(ctx context.Context, w pymodel.Workload, o StartOptions) (Server, error)
}

// StartOptions tune a server's start. The zero value is 127.0.0.1:0, no
// trace.
type StartOptions struct {
	Addr        string // "" means 127.0.0.1:0
	TraceEvents int    // > 0: record up to that many trace events per process
}

// Server is a started strategy server.
type Server interface {
	// URL is the base URL, e.g. http://127.0.0.1:38121.
	URL() string
	// Stats are the server's own measures so far (ServerColumns), NaN in
	// Row where it cannot measure (Stats.Unmeasured). Read them before
	// Close: worker processes are asked while they live.
	Stats() Stats
	// Trace is what the server has traced so far; an empty snapshot when
	// not traced or not traceable. Read it before Close.
	Trace() (trace.Snapshot, error)
	// Close stops the server and everything it started, and waits for
	// them. Safe to call twice.
	Close() error
}

// RunsWorkload reports whether s serves the lab's workload (the families of
// this package except External); bench.Run validates the workload only for
// those.
func RunsWorkload(s Strategy) bool {
	_, ok := s.(interface{ spec() spec })
	return ok
}

var presets = []Strategy{
	// Source 000: the image upload handler in four styles.
	Uvicorn{Name: "sync"},
	Uvicorn{Name: "asyncio", Async: true, IOCall: pymodel.Await},
	Uvicorn{Name: "ThreadPool", Async: true, CPUCall: pymodel.ThreadExecutor, IOCall: pymodel.ThreadExecutor},
	Uvicorn{Name: "ProcessPool", Async: true, CPUCall: pymodel.ProcessExecutor, IOCall: pymodel.Block},
	// Source 000, chapter 2: async def handlers that print per line,
	// through a buffered async writer, or not at all (the printer is the
	// workload's: a print step with a sync, async or none printer).
	Uvicorn{Name: "/doPrint", Async: true},
	Uvicorn{Name: "/doPrintAsync", Async: true},
	Uvicorn{Name: "/dontPrint", Async: true},
	// Source 001: FastAPI endpoints, on the source's 8-core laptop
	// (sources/s001's literals at its defaults).
	Uvicorn{Name: "/sync-sleep", Limiter: 40, IOCall: pymodel.Block, Python: Python{CPUs: 8}},
	Uvicorn{Name: "/async-block", Limiter: 40, Async: true, IOCall: pymodel.Block, Python: Python{CPUs: 8}},
	Uvicorn{Name: "/async-ok", Limiter: 40, Async: true, IOCall: pymodel.Await, Python: Python{CPUs: 8}},
	Uvicorn{Name: "/offload", Limiter: 40, Async: true, IOCall: pymodel.ToThread, Python: Python{CPUs: 8}},
	// Source 003: gunicorn workers x threads (sources/s003's literals).
	Gunicorn{Name: "flask 1w x 5t", Workers: 1, Threads: 5},
	Gunicorn{Name: "flask 1w x 10t", Workers: 1, Threads: 10},
	Gunicorn{Name: "flask 2w x 5t", Workers: 2, Threads: 5},
	Gunicorn{Name: "gunicorn 2w x 5t", Workers: 2, Threads: 5},
	Uvicorn{Name: "fastapi 1w", Workers: 1, Limiter: 40},
	Uvicorn{Name: "fastapi 2w", Workers: 2, Limiter: 40},
	// Source 004: a def handler with a sync driver (thread pool), and an
	// async def handler awaiting an async driver.
	Uvicorn{Name: "sync app", Limiter: 40, IOCall: pymodel.Block},
	Uvicorn{Name: "async app", Limiter: 40, Async: true, IOCall: pymodel.Await},
	// PEP 703.
	Gunicorn{Name: "free-threaded 1w x 10t", Workers: 1, Threads: 10, Python: Python{FreeThreaded: true}},
	// Go-native.
	Goroutines{Name: "goroutines"},
	Bounded{Name: "bounded 10", Limit: 10},
	Serial{Name: "serial"},
	GoProcessPool{Name: "go process pool"},
}

// Preset returns the named strategy: a value of its family's type (assert
// it, e.g. s.(strategy.Gunicorn), to change a field).
func Preset(name string) (Strategy, error) {
	for _, p := range presets {
		if p.Label() == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("strategy: unknown preset %q (known: %s)", name, strings.Join(PresetNames(), ", "))
}

// MustPreset is Preset that panics on an unknown name, for literals in
// examples and tests.
func MustPreset(name string) Strategy {
	s, err := Preset(name)
	if err != nil {
		panic(err)
	}
	return s
}

// Presets returns every preset, in the sources' order.
func Presets() []Strategy { return append([]Strategy(nil), presets...) }

// PresetNames lists the preset names, sorted.
func PresetNames() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.Label()
	}
	sort.Strings(out)
	return out
}

// checkCalls reports a CPUCall or IOCall that is not a call name.
func checkCalls(label string, calls ...pymodel.Call) error {
	for _, c := range calls {
		if _, err := pymodel.ParseCall(string(c)); err != nil {
			return fmt.Errorf("strategy %q: %w", label, err)
		}
	}
	return nil
}

// checkCounts reports the first negative count, by its field name.
func checkCounts(label string, fields ...any) error {
	for i := 0; i+1 < len(fields); i += 2 {
		name, v := fields[i].(string), fields[i+1]
		switch v := v.(type) {
		case int:
			if v < 0 {
				return fmt.Errorf("strategy %q: %s must not be negative, got %d", label, name, v)
			}
		case time.Duration:
			if v < 0 {
				return fmt.Errorf("strategy %q: %s must not be negative, got %v", label, name, v)
			}
		}
	}
	return nil
}

// startSpec starts a server of the lab's own families.
func startSpec(ctx context.Context, sp spec, w pymodel.Workload, o StartOptions) (Server, error) {
	srv, err := newServer(sp, w)
	if err != nil {
		return nil, err
	}
	srv.addr, srv.traceEvents = o.Addr, o.TraceEvents
	if err := srv.start(ctx); err != nil {
		return nil, err
	}
	return srv, nil
}
