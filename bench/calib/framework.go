package calib

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"math"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

// FrameworkPart is the part holding what the server stacks themselves cost
// per request — the model's pymodel.FrameworkCost — registered by this
// package. Its costs:
//
//   - "uvicorn loop": uvicorn + FastAPI, an async def endpoint doing
//     nothing (py/calib_fastapi.py's /async): everything runs on the event
//     loop, so it is the loop's CPU per request.
//   - "def hand-off": the same app's def endpoint above the async one:
//     run_in_threadpool's hand-off to an AnyIO thread and back.
//   - "gunicorn thread": gunicorn gthread (1 worker x 1 thread) + Flask
//     (py/calib_flask.py), per request.
//   - "thread start": threading.Thread(...).start() and join() of a thread
//     that returns at once (py/calib_thread.py).
//
// The servers run on the real stack and are driven by the lab's own
// generator (bench.Run, closed VUs); the server processes' CPU time (user
// + system, from /proc) over the requests they answered is the stack's
// cost per request, the median of three fresh servers of each kind (one
// server's figure moves by ±20 % from one run to the next on a shared
// machine).
const FrameworkPart = "framework"

//go:embed py/*.py
var frameworkPy embed.FS

func frameworkFiles() fs.FS {
	sub, _ := fs.Sub(frameworkPy, "py")
	return sub
}

func init() {
	Register(Measurement{Name: FrameworkPart, Files: frameworkFiles(), Measure: measureFramework})
}

// Framework is t's framework part as the model's cost, or an error naming
// what is missing.
func Framework(t *Table) (pymodel.FrameworkCost, error) {
	var f pymodel.FrameworkCost
	for _, c := range []struct {
		name string
		d    *time.Duration
	}{{"uvicorn loop", &f.Loop}, {"def hand-off", &f.Threadpool}, {"gunicorn thread", &f.Thread}, {"thread start", &f.ThreadStart}} {
		v, err := t.Cost(FrameworkPart, c.name)
		if err != nil {
			return pymodel.FrameworkCost{}, err
		}
		*c.d = v.Value
	}
	return f, f.Validate()
}

func measureFramework(ctx context.Context, o Options) ([]Cost, error) {
	requests, rounds, threads := 3000, 3, 1000
	if o.Quick {
		requests, rounds, threads = 300, 1, 100
	}
	const vus = 8
	opts := cpython.Options{Python: o.Python}
	files := frameworkFiles()
	fastapi := cpython.App{Name: "uvicorn", Files: files, Module: "calib_fastapi:app", Server: cpython.Uvicorn, Requires: cpython.FastAPIModules}
	flask := cpython.App{Name: "gunicorn 1w x 1t", Files: files, Module: "calib_flask:app", Server: cpython.Gunicorn, Workers: 1, Threads: 1,
		Requires: []string{"flask", "gunicorn"}}
	const async, def, wsgi = "uvicorn async def", "uvicorn def", "gunicorn flask"
	e := bench.Experiment{
		Name: "framework calibration",
		Strategies: []strategy.Strategy{
			cpython.Real{Name: async, App: fastapi, Endpoint: "/async", Options: opts},
			cpython.Real{Name: def, App: fastapi, Endpoint: "/def", Options: opts},
			cpython.Real{Name: wsgi, App: flask, Endpoint: "/nothing", Options: opts},
		},
		Load:        load.Closed{VUs: vus, Iterations: (requests + vus - 1) / vus},
		Repeat:      rounds, // medians of cpu_s and count
		TraceEvents: -1,
		Progress:    func(bench.Progress) {},
	}
	res, err := bench.Run(ctx, e)
	if err != nil {
		return nil, err
	}
	per := func(name string) (time.Duration, error) {
		n, cpu := res.Value(name, "count"), res.Value(name, "cpu_s")
		if errs := res.Value(name, "errors"); errs > 0 {
			return 0, fmt.Errorf("%s: %v of %v requests failed", name, errs, n+errs)
		}
		if !(n > 0) || math.IsNaN(cpu) || cpu <= 0 {
			return 0, fmt.Errorf("%s: no CPU measured (%v requests, %v s)", name, n, cpu)
		}
		return time.Duration(cpu / n * float64(time.Second)), nil
	}
	loop, err := per(async)
	if err != nil {
		return nil, err
	}
	d, err := per(def)
	if err != nil {
		return nil, err
	}
	thread, err := per(wsgi)
	if err != nil {
		return nil, err
	}
	var ts struct {
		ThreadStart float64 `json:"thread_start"`
	}
	err = cpython.Script{Files: files, Name: "calib_thread.py", Args: []string{"--n", fmt.Sprint(threads), "--repeat", "3"}}.Run(ctx, opts, &ts)
	if err != nil {
		return nil, err
	}
	if ts.ThreadStart <= 0 {
		return nil, fmt.Errorf("calib_thread.py measured a thread's start at %v s", ts.ThreadStart)
	}
	how := fmt.Sprintf("server CPU per request, median of %d servers of %d requests", rounds, int(res.Value(async, "count")))
	return []Cost{
		{Name: "uvicorn loop", Value: loop, GILHeld: 1, Detail: "FastAPI async def doing nothing under uvicorn; " + how},
		{Name: "def hand-off", Value: max(0, d-loop), GILHeld: 1, Detail: "a def endpoint's cost above the async one (run_in_threadpool); " + how},
		{Name: "gunicorn thread", Value: thread, GILHeld: 1, Detail: "Flask under gunicorn gthread 1w x 1t; " + how},
		{Name: "thread start", Value: time.Duration(ts.ThreadStart * float64(time.Second)), GILHeld: 1,
			Detail: "threading.Thread(...).start() and join(): charged when a pool starts a thread"},
	}, nil
}
