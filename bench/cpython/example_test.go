package cpython_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
)

// The sleep arithmetic of source 001 on the source's 8-CPU laptop: 100
// requests to /sync-sleep take three waves of AnyIO's 40 threads; /offload
// goes through asyncio's default executor of min(32, 8+4) = 12 threads.
func ExampleArithmetic001() {
	for _, ep := range cpython.Endpoints001 {
		fmt.Println(ep, cpython.Arithmetic001(ep, 100, time.Second, 8))
	}
	// Output:
	// /sync-sleep 3s
	// /async-block 1m40s
	// /async-ok 1s
	// /offload 9s
}

// Agreement states, row by row, whether the model and the real run agree.
func ExampleAgreement() {
	model := frame.New("model")
	model.MustAppend(frame.Row{"strategy": "/sync-sleep", "elapsed_s": 3.0})
	real := frame.New("real")
	real.MustAppend(frame.Row{"strategy": "/sync-sleep", "elapsed_s": 3.1, "elapsed_s_fixed": 0.1})
	a, err := cpython.Agreement("model vs real", model, real, "strategy", []string{"elapsed_s"}, cpython.SleepTolerance)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Text("verdict", 0))
	fmt.Println(cpython.AllAgree(a))
	// Output:
	// agrees: model 3, real 3.10 elapsed_s (+ 0.1 fixed cost of the real stack), within ±10 %
	// true
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
	// burn=10ms:block
	// burn=90ms:nogil:block
	// sleep=5ms:await
}

// A missing interpreter is a *MissingError that names the Debian packages
// and matches ErrUnavailable, so a notebook can skip the real-CPython part.
func ExampleMissingError() {
	_, err := cpython.Detect(context.Background(), "/nonexistent/python3")
	var me *cpython.MissingError
	fmt.Println(errors.Is(err, cpython.ErrUnavailable), errors.As(err, &me), me.Debian)
	// Output:
	// true true [python3]
}

// Running source 001's app on real CPython and its bench client against it.
// (Not run as a test: it needs Debian's python3-fastapi, python3-uvicorn and
// python3-httpx; the package's tests exercise it where they are installed.)
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
// test: it needs python3-pil.)
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

// Source 002's pool of 30 on the model, traced: 100 checks in four waves.
func ExampleTrace002() {
	f, err := cpython.Trace002(context.Background(), 100*time.Millisecond, []cpython.Case002{{Mode: cpython.Threads, Workers: 30, N: 100}})
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Unique("strategy"), f.Where("phase", "io").Len(), "checks")
	// Output:
	// [ThreadPoolExecutor 30] 100 checks
}

// The real app traced by its middleware: a burst on real uvicorn, as a
// trace frame to draw beside the model's (charts.Waterfall). Skipped where
// Python or FastAPI is missing.
func ExampleTraceBurst() {
	f, err := cpython.TraceBurst(context.Background(), cpython.Options{}, cpython.App001(100*time.Millisecond), "/async-block", 3, "real /async-block")
	if errors.Is(err, cpython.ErrUnavailable) {
		fmt.Println("[real /async-block] 3 handlers on [loop]") // what it prints with Python
		return
	}
	if err != nil {
		panic(err)
	}
	h := f.Where("phase", "handler")
	fmt.Println(f.Unique("strategy"), h.Len(), "handlers on", h.Unique("thread"))
	// Output:
	// [real /async-block] 3 handlers on [loop]
}
