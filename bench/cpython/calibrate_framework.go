package cpython

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

// Framework is what the server stacks themselves cost per request on one
// machine, and what print() costs per line: the model's
// pymodel.FrameworkCost and source 000's print costs.
//
// MeasureFramework measures it on the real stack of the pinned environment: apps whose
// endpoints do nothing (py/calib_fastapi.py, py/calib_flask.py) are served
// by real uvicorn and gunicorn and driven by the lab's own generator, and
// the server processes' CPU time (user + system, from /proc) over the
// requests they answered is the stack's cost per request:
//
//   - Cost.Loop: uvicorn + FastAPI, async def endpoint: everything runs on
//     the event loop, so it is the loop's cost per request.
//   - Cost.Threadpool: the def endpoint's cost above the async one: the
//     hand-off to an AnyIO thread and back.
//   - Cost.Thread: gunicorn gthread (1 worker x 1 thread) + Flask, per
//     request.
//
// The print costs are CPU time per line in a plain CPython process
// (py/calibrate_python.py), not through a server: print() of the source's
// line with PYTHONUNBUFFERED=1 to a file (PrintLine), one os.write of the
// line (PrintWrite: what the model's own write(2) per line stands for), and
// the buffered writer's append on the loop (AsyncLine). The same script
// times a thread's start and join (Cost.ThreadStart).
type Framework struct {
	Cost pymodel.FrameworkCost `json:"cost"`
	// Requests is how many requests each server measurement took.
	Requests int `json:"requests"`
	// Rounds is how many fresh servers of each kind were measured; the
	// costs are their medians (0 in files from before it: one).
	Rounds int `json:"rounds,omitempty"`

	PrintLine  time.Duration `json:"print_line"`
	PrintWrite time.Duration `json:"print_write"`
	AsyncLine  time.Duration `json:"async_line"`
}

// PrintExtra is what a print() line costs beyond one write(2), CPU holding
// the GIL: the model adds it to each line its sync printer writes.
func (f *Framework) PrintExtra() time.Duration {
	if f == nil {
		return 0
	}
	return max(0, f.PrintLine-f.PrintWrite)
}

// FrameworkOptions tune MeasureFramework. The zero value sends 3,000
// requests from 8 closed VUs to each of three fresh servers of each kind
// (the costs are the medians: one server's figure moves by ±20 % from one
// run to the next on a shared machine) and times 50,000 print lines,
// median of 5.
type FrameworkOptions struct {
	Python   string
	Requests int // per server (0: 3,000; at least 100)
	VUs      int // closed VUs (0: 8)
	Lines    int // print lines timed (0: 50,000)
	Repeat   int // print runs the median is taken over (0: 5)
	Rounds   int // fresh servers of each kind, median (0: 3)
}

// MeasureFramework measures this machine's framework and print costs (see
// Framework). It takes a few seconds. A missing interpreter or package
// (FastAPI, uvicorn, Flask, gunicorn) is a *MissingError (errors.Is
// ErrUnavailable).
func MeasureFramework(ctx context.Context, o FrameworkOptions) (*Framework, error) {
	if o.Requests == 0 {
		o.Requests = 3000
	}
	if o.VUs == 0 {
		o.VUs = 8
	}
	if o.Lines == 0 {
		o.Lines = 50000
	}
	if o.Repeat == 0 {
		o.Repeat = 5
	}
	if o.Rounds == 0 {
		o.Rounds = 3
	}
	if o.Requests < 100 || o.VUs < 0 || o.Lines < 0 || o.Repeat < 0 || o.Rounds < 0 {
		return nil, fmt.Errorf("cpython: MeasureFramework: want Requests >= 100 and VUs, Lines, Repeat, Rounds not negative (got %d, %d, %d, %d, %d)",
			o.Requests, o.VUs, o.Lines, o.Repeat, o.Rounds)
	}
	env, err := Detect(ctx, o.Python)
	if err != nil {
		return nil, err
	}
	if err := env.Require(with(fastapiMods, "flask", "gunicorn")...); err != nil {
		return nil, err
	}
	opts := Options{Python: o.Python}
	fastapi := App{Name: "uvicorn", Module: "calib_fastapi:app", Server: Uvicorn, Requires: fastapiMods}
	flask := App{Name: "gunicorn 1w x 1t", Module: "calib_flask:app", Server: Gunicorn, Workers: 1, Threads: 1,
		Requires: []string{"flask", "gunicorn"}}
	const async, def, wsgi = "uvicorn async def", "uvicorn def", "gunicorn flask"
	e := bench.Experiment{
		Name: "framework calibration",
		Strategies: []strategy.Strategy{
			Real{Name: async, App: fastapi, Endpoint: "/async", Options: opts},
			Real{Name: def, App: fastapi, Endpoint: "/def", Options: opts},
			Real{Name: wsgi, App: flask, Endpoint: "/nothing", Options: opts},
		},
		Load:        load.Closed{VUs: o.VUs, Iterations: (o.Requests + o.VUs - 1) / o.VUs},
		Repeat:      o.Rounds, // medians of cpu_s and count
		TraceEvents: -1,
		Progress:    func(bench.Progress) {},
	}
	res, err := bench.Run(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("cpython: MeasureFramework: %w", err)
	}
	per := func(name string) (time.Duration, error) {
		n, cpu := res.Value(name, "count"), res.Value(name, "cpu_s")
		if errs := res.Value(name, "errors"); errs > 0 {
			return 0, fmt.Errorf("cpython: MeasureFramework: %s: %v of %v requests failed", name, errs, n+errs)
		}
		if !(n > 0) || math.IsNaN(cpu) || cpu <= 0 {
			return 0, fmt.Errorf("cpython: MeasureFramework: %s: no CPU measured (%v requests, %v s)", name, n, cpu)
		}
		return time.Duration(cpu / n * float64(time.Second)), nil
	}
	f := &Framework{Requests: int(res.Value(async, "count")), Rounds: o.Rounds}
	if f.Cost.Loop, err = per(async); err != nil {
		return nil, err
	}
	d, err := per(def)
	if err != nil {
		return nil, err
	}
	f.Cost.Threadpool = max(0, d-f.Cost.Loop)
	if f.Cost.Thread, err = per(wsgi); err != nil {
		return nil, err
	}
	if err := measurePrint(ctx, env.Python, o, f); err != nil {
		return nil, err
	}
	return f, nil
}

// measurePrint runs py/calibrate_python.py and fills f's print costs and
// its thread start.
func measurePrint(ctx context.Context, python string, o FrameworkOptions, f *Framework) error {
	dir, err := os.MkdirTemp("", "conclab-calibrate-print-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := WriteFiles(dir); err != nil {
		return err
	}
	out, err := runPython(ctx, python, dir, nil, "calibrate_python.py",
		"--lines", strconv.Itoa(o.Lines), "--repeat", strconv.Itoa(o.Repeat), "--out-dir", dir)
	if err != nil {
		return fmt.Errorf("cpython: MeasureFramework: %w", err)
	}
	var r struct {
		Print  float64 `json:"print_line"`
		Write  float64 `json:"write_line"`
		Async  float64 `json:"async_line"`
		Thread float64 `json:"thread_start"`
	}
	if err := json.Unmarshal(lastLine(out), &r); err != nil {
		return fmt.Errorf("cpython: calibrate_python.py printed %q: %w", tail(string(out), 300), err)
	}
	if r.Print <= 0 || r.Write <= 0 || r.Async <= 0 || r.Thread <= 0 {
		return fmt.Errorf("cpython: calibrate_python.py gave non-positive costs: %s", tail(string(out), 300))
	}
	f.PrintLine, f.PrintWrite, f.AsyncLine = secs(r.Print), secs(r.Write), secs(r.Async)
	f.Cost.ThreadStart = secs(r.Thread)
	return nil
}

// rows adds f's costs to a calibration frame (nothing when f is nil).
func (f *Framework) rows(add func(step string, d time.Duration, held float64, detail string)) {
	if f == nil {
		return
	}
	n := fmt.Sprintf("server CPU per request over %d requests", f.Requests)
	if f.Rounds > 1 {
		n = fmt.Sprintf("server CPU per request, median of %d servers of %d requests", f.Rounds, f.Requests)
	}
	add("framework: uvicorn loop", f.Cost.Loop, 1, "FastAPI async def doing nothing under uvicorn; "+n)
	add("framework: def hand-off", f.Cost.Threadpool, 1, "a def endpoint's cost above the async one (run_in_threadpool); "+n)
	add("framework: gunicorn thread", f.Cost.Thread, 1, "Flask under gunicorn gthread 1w x 1t; "+n)
	add("thread start", f.Cost.ThreadStart, 1, "threading.Thread(...).start() and join(): charged when a pool starts a thread")
	add("print() line", f.PrintLine, 1, "print(f\"doPrint line {i}\"), PYTHONUNBUFFERED=1, to a file: two write(2)s")
	add("os.write line", f.PrintWrite, 0, "one os.write of the line: what the model's own write(2) stands for")
	add("async writer line", f.AsyncLine, 1, "an f-string appended to the writer's list, on the loop")
}

// Costs is c's framework and print costs, or nil when c (or its Framework)
// is nil — what PrintModel and Experiment000Print take.
func (c *Calibration) Costs() *Framework {
	if c == nil {
		return nil
	}
	return c.Framework
}

// Frame is f's costs as a frame, one row per cost: step, cost_ms, gil_held
// (1 when it holds the GIL), detail. A nil f gives an empty frame saying so.
func (f *Framework) Frame() *frame.Frame {
	title := "framework and print costs, this machine"
	if f == nil {
		title += ": not measured (the model pays only its own steps)"
	}
	out := frame.New(title)
	for _, col := range []string{"step", "cost_ms", "gil_held", "detail"} {
		k := frame.Number
		if col == "step" || col == "detail" {
			k = frame.Label
		}
		_ = out.AddColumn(col, k)
	}
	f.rows(func(step string, d time.Duration, held float64, detail string) {
		out.MustAppend(frame.Row{"step": step, "cost_ms": float64(d) / float64(time.Millisecond), "gil_held": held, "detail": detail})
	})
	return out
}

// SourceFramework is the source machine's framework cost, derived from
// source 000's own numbers (its print recap, k6 100 VUs): /dontPrint
// answered 98 req/s at 15.4 ms on average, and 100 / (1 s + 15.4 ms) = 98.5,
// so each VU slept 1 s between requests and the loop was far from busy.
// The VUs start together and stay in step, so each second about 100
// requests meet one event loop at once and the k-th waits for k loop
// turns: a mean of (100 + 1) / 2 x Loop = 15.4 ms gives Loop = 0.30 ms. The
// def hand-off and gunicorn's thread are not in the sources' numbers and
// are taken as this machine's shares of Loop would suggest — the def
// hand-off as large again, Flask's thread a third more, a thread's start
// half of it (an assumption, stated). print()'s per-line costs cannot be derived: the source does not
// say how many lines a request prints.
func SourceFramework() *Framework {
	loop := 300 * time.Microsecond
	return &Framework{Cost: pymodel.FrameworkCost{Loop: loop, Threadpool: loop, Thread: loop * 4 / 3, ThreadStart: loop / 2}}
}
