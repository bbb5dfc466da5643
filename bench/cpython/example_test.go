package cpython_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
)

// Versus001 pairs every endpoint's model with the real app: one bench.Run
// drives both.
func ExampleVersus001() {
	for _, s := range cpython.Versus001(time.Second, cpython.Options{}) {
		fmt.Println(s.Label())
	}
	// Output:
	// /sync-sleep
	// real /sync-sleep
	// /async-block
	// real /async-block
	// /async-ok
	// real /async-ok
	// /offload
	// real /offload
}

// Experiment001 is the whole comparison; bench.Run runs it (lab.ModelVsReal
// runs it and gives the verdicts).
func ExampleExperiment001() {
	e := cpython.Experiment001(200*time.Millisecond, 10, cpython.Options{})
	fmt.Println(e.Load, len(e.Strategies))
	res, err := bench.Run(context.Background(), e)
	if errors.Is(err, cpython.ErrUnavailable) {
		return // no real CPython here
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Summary.Texts("strategy"))
}

// A Real strategy is one source app on this machine's CPython; it goes in
// an Experiment beside any model strategy.
func ExampleReal() {
	r := cpython.Real{Name: "real /async-ok", App: cpython.App001(100 * time.Millisecond), Endpoint: cpython.AsyncOK}
	fmt.Println(r.Label(), r.RequestPath(), r.Validate())
	// Output: real /async-ok /async-ok <nil>
}

// Experiment003 builds source 003's run for a mode: the source's servers,
// the model beside each real one.
func ExampleExperiment003() {
	e, err := cpython.Experiment003(context.Background(), cpython.Options003{Mode: cpython.ModeIO, Wait: time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range e.Strategies {
		fmt.Println(s.Label())
	}
	// Output:
	// Flask gunicorn 1w x 5t
	// real Flask gunicorn 1w x 5t
	// Flask gunicorn 1w x 10t
	// real Flask gunicorn 1w x 10t
	// FastAPI gunicorn 1w
	// real FastAPI gunicorn 1w
}

// Experiment000Print is the print recap; the model's printer is opened and
// closed by each start.
func ExampleExperiment000Print() {
	e := cpython.Experiment000Print(100, 10, 5*time.Second, nil, cpython.Options{})
	fmt.Println(e.Load)
	for _, s := range e.Strategies {
		fmt.Println(s.Label())
	}
	// Output:
	// 10 VUs 5s
	// /doPrint
	// real /doPrint
	// /doPrintAsync
	// real /doPrintAsync
	// /dontPrint
	// real /dontPrint
}

// Experiment000Upload needs Pillow to draw the image both sides upload.
func ExampleExperiment000Upload() {
	ctx := context.Background()
	e, err := cpython.Experiment000Upload(ctx, cpython.Options000Upload{
		Calibration: cpython.SourceMachine(0.2), ImageSize: cpython.ImageSize{Width: 640, Height: 360},
		VUs: 4, Duration: time.Second, Think: 100 * time.Millisecond,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(e.Strategies), e.Request.Files[0].Field)
}

// Versus002 runs source 002's clients: modelled and as real Python processes.
func ExampleVersus002() {
	f, err := cpython.Versus002(context.Background(), cpython.Options{}, 50*time.Millisecond, cpython.Clients002(20))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Texts("strategy"))
}

// Versus004 runs source 004's clients against both apps, modelled and real.
func ExampleVersus004() {
	f, err := cpython.Versus004(context.Background(), cpython.Options{}, nil, 20*time.Millisecond, 26)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Texts("order"))
}

// Trace002 shows a pool's waves on the modelled client.
func ExampleTrace002() {
	f, err := cpython.Trace002(context.Background(), 20*time.Millisecond, []cpython.Client002{{Mode: cpython.Threads, Workers: 3, N: 6}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Unique("strategy"))
	// Output: [ThreadPoolExecutor 3]
}

func ExampleArithmetic001() {
	fmt.Println(cpython.Arithmetic001(cpython.Offload, 100, time.Second, 8))
	// Output: 9s
}

// An app is a value: a notebook can read the source it runs and change its
// knobs before starting it.
func ExampleApp003Flask() {
	app := cpython.App003Flask(2, 5, cpython.ModeCPU, 10*time.Second, 10_000_000)
	fmt.Println(app.Name, app.Server, app.Module, app.Env["CONCLAB_N"])
	fmt.Println(app.Validate())
	// Output:
	// Flask gunicorn 2w x 5t gunicorn app003_flask:app 10000000
	// <nil>
}

// The source's machine as the model should run it, and the steps it builds.
func ExampleSourceMachine() {
	c := cpython.SourceMachine(0.1)
	fmt.Println(c.CPUs, c.Image, c.SumSquaresCost(10_000_000))
	for _, s := range c.Handlers000()["asyncio"].Steps {
		fmt.Println(s.Label())
	}
	// Output:
	// 8 100ms 2.5s
	// convert_image[burn=10ms burn=90ms:nogil]:block
	// sleep=5ms:await
}

// The source's stated 100 ms per image, cut as this machine's measured
// pipeline is, with each step's held share: one model step per real step,
// sent to the executor as one call.
func ExampleCalibration_WithImageCosts() {
	here := &cpython.Calibration{Image: 800 * time.Millisecond, ImageStepCosts: []cpython.StepCost{
		{Name: "decode", CPU: 200 * time.Millisecond, GILHeld: 0.1},
		{Name: "convert RGB", CPU: 100 * time.Millisecond},
		{Name: "rotate 180 x4", CPU: 400 * time.Millisecond},
		{Name: "encode", CPU: 100 * time.Millisecond, GILHeld: 0.5},
	}}
	src := cpython.SourceMachine(0).WithImageCosts(here)
	fmt.Println(src.ConvertImageStep(pymodel.ThreadExecutor))
	// Output:
	// convert_image[burn=25ms:held=0.1 burn=12.5ms:nogil burn=50ms:nogil burn=12.5ms:held=0.5]:thread_executor
}

// A missing interpreter or module is a *MissingError that matches
// ErrUnavailable, so a notebook can skip the real-CPython part; for a module
// it names the PyPI distribution and how to make conclab's environment.
func ExampleMissingError() {
	_, err := cpython.Detect(context.Background(), "/nonexistent/python3")
	var me *cpython.MissingError
	fmt.Println(errors.Is(err, cpython.ErrUnavailable), errors.As(err, &me))
	env := &cpython.Env{Python: ".venv/bin/python", Packages: map[string]string{"fastapi": "0.163.2"}}
	fmt.Println(env.Require("fastapi", "PIL"))
	// Output:
	// true true
	// cpython: .venv/bin/python cannot import PIL (PyPI: pillow); conclab's environment has them: run `bash scripts/setup.sh`
}

// Running source 001's app on real CPython and its bench client against it.
// (Not run as a test: it needs conclab's Python environment with FastAPI,
// uvicorn and httpx; the package's tests exercise it.)
func ExampleServer() {
	ctx := context.Background()
	srv := cpython.NewServer(cpython.App001(time.Second), cpython.Options{})
	if err := srv.Start(ctx); errors.Is(err, cpython.ErrUnavailable) {
		fmt.Println("skipping real CPython:", err)
		return
	} else if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	f, err := cpython.Bench001(ctx, cpython.Options{}, cpython.SyncSleep, srv.URL()+cpython.SyncSleep, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f)
}

// Calibrating the model with this machine's real costs. (Not run as a
// test: it needs Pillow from conclab's environment.)
func ExampleCalibrate() {
	cal, err := cpython.Calibrate(context.Background(), cpython.CalibrateOptions{})
	if errors.Is(err, cpython.ErrUnavailable) {
		cal = cpython.SourceMachine(0.1) // fall back to the source's stated costs
	} else if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cal.Frame())
}

// Model000 runs source 000's upload on the model of the source's own
// machine: 8 CPUs, 100 ms an image, k6's 20 VUs with sleep(1).
func ExampleModel000() {
	e, err := cpython.Model000(cpython.SourceMachine(0.2), 20, 10*time.Second, time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Load)
	for _, s := range e.Strategies {
		fmt.Println(s.Label(), e.Workloads[s.Label()].Label())
	}
	// Output:
	// 20 VUs 10s think 1s
	// sync upload_sync
	// asyncio upload_asyncio
	// ThreadPool upload_threadpool
	// ProcessPool upload_processpool
}

// Client002Label names source 002's clients as their rows and traces do.
func ExampleClient002Label() {
	for _, c := range cpython.Clients002(100) {
		fmt.Println(cpython.Client002Label(c.Mode, c.Workers))
	}
	// Output:
	// sequential (requests)
	// ThreadPoolExecutor 100
	// ThreadPoolExecutor 30
	// asyncio + aiohttp
}

// Model004Traced runs source 004's apps and clients on the model (SQLite
// when dsn is ""): the summary has each client's time and row order, the
// trace each request's phases.
func ExampleModel004Traced() {
	summary, traces, err := cpython.Model004Traced(context.Background(), "", 100*time.Millisecond, 26)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(summary.Len() > 0, traces.Len() > 0)
}

// CalibrateSum measures the sum of squares with real CPython; without the
// interpreter it fails with a *MissingError.
func ExampleCalibrateSum() {
	_, err := cpython.CalibrateSum(context.Background(), "/nonexistent/python3", 1_000_000)
	fmt.Println(errors.Is(err, cpython.ErrUnavailable))
	// Output: true
}
