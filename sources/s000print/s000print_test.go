package s000print_test

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/calib"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/sources/internal/knob"
	"github.com/conclab/conclab/sources/s000print"
	"github.com/conclab/conclab/sources/shape"
)

func TestMain(m *testing.M) {
	if code, ok := pymodel.WorkerMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func needPython(t *testing.T, mods ...string) {
	t.Helper()
	env, err := cpython.Detect(context.Background(), "")
	if err == nil {
		err = env.Require(mods...)
	}
	if errors.Is(err, cpython.ErrUnavailable) {
		t.Skipf("real CPython unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Little's law on the source's table: 1.0 s of think time for
// /doPrintAsync and /dontPrint (100/70.8 − 0.411, 100/98 − 0.0154), 1.3 s
// for /doPrint (100/29 − 2.16).
func TestImpliedThink(t *testing.T) {
	t.Parallel()
	z := s000print.ImpliedThink().Floats("think_s")
	if math.Abs(z[0]-1.288) > 0.001 || math.Abs(z[1]-1.001) > 0.001 || math.Abs(z[2]-1.005) > 0.001 {
		t.Errorf("implied think %v s; want 1.288, 1.001, 1.005", z)
	}
}

// The closed loop's arithmetic: 100 VUs thinking 1 s on a loop that takes
// 34.5 ms a request saturate it at 29 req/s, R = 100 x 34.5 ms - 1 s.
func TestEstimate(t *testing.T) {
	t.Parallel()
	c := s000print.Costs{Framework: pymodel.FrameworkCost{Loop: 500 * time.Microsecond}, PrintLine: 3400 * time.Nanosecond}
	k := s000print.Default
	f := k.Estimate(&c)
	if s := f.Float("service_ms", 0); math.Abs(s-34.5) > 1e-9 {
		t.Errorf("/doPrint service %v ms; want 34.5", s)
	}
	if r, x := f.Float("avg_ms", 0), f.Float("rps", 0); math.Abs(r-2450) > 1e-6 || math.Abs(x-1/0.0345) > 1e-6 || f.Float("saturated", 0) != 1 {
		t.Errorf("/doPrint avg %v ms, %v req/s; want 2450 ms, 29 req/s, saturated", r, x)
	}
	if x := f.Float("rps", 2); math.Abs(x-100/1.0005) > 1e-6 || f.Float("saturated", 2) != 0 {
		t.Errorf("/dontPrint %v req/s; want 100 / 1.0005 s", x)
	}
}

// The model's shape at a small load, and with the real app beside it.
func TestShape(t *testing.T) {
	needPython(t, cpython.FastAPIModules...)
	k := s000print.Knobs{VUs: 10, Duration: 1500 * time.Millisecond, Think: 10 * time.Millisecond, Lines: 2000}
	res, err := bench.Run(context.Background(), k.Versus(nil, cpython.Options{StopGrace: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	checks := k.Checks(res)
	if err := shape.Err("source 000 print", checks...); err != nil {
		t.Errorf("%v\n%v", err, res.Summary)
	}
	if len(checks) != 5 {
		t.Errorf("%d checks; want the real order too", len(checks))
	}
}

// Under PYTHONUNBUFFERED=1 a print() is two write(2)s, counted by the
// kernel; buffered, far fewer than one.
func TestMeasureWrites(t *testing.T) {
	needPython(t)
	w, err := s000print.MeasureWrites(context.Background(), cpython.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Unbuffered != 2 || !(w.Buffered < 0.1) {
		t.Errorf("writes per print %+v; want 2 unbuffered, under 0.1 buffered", w)
	}
}

// The registered part measures, and Costs read it back.
func TestCalibration(t *testing.T) {
	needPython(t, cpython.FastAPIModules...)
	tb, err := calib.Measure(context.Background(), calib.Options{Quick: true}, calib.FrameworkPart, s000print.Part)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s000print.CostsFrom(tb)
	if err != nil {
		t.Fatal(err)
	}
	if c.PrintLine <= c.PrintWrite || c.AsyncLine <= 0 || c.Framework.Loop <= 0 {
		t.Errorf("costs %+v: want print() above one write, an append and a loop cost\n%v", c, tb)
	}
}

// The bytes a request prints: "doPrint line 0\n" .. "doPrint line 11\n".
func TestRequestBytes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		path  string
		lines int
		want  int
	}{
		{s000print.DoPrint, 1, 15},
		{s000print.DoPrint, 12, 12*14 + 10 + 2*2},
		{s000print.DoPrint, 1000, 1000*14 + 10 + 90*2 + 900*3},
		{s000print.DoPrintAsync, 1, 20},
		{s000print.DontPrint, 1000, 0},
	} {
		if got := s000print.RequestBytes(tt.path, tt.lines); got != tt.want {
			t.Errorf("RequestBytes(%s, %d) = %d; want %d", tt.path, tt.lines, got, tt.want)
		}
	}
}

// Knobs out of range are errors naming the knob, from Validate and from a
// run of the experiment.
func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		k    s000print.Knobs
		want string
	}{
		{s000print.Knobs{VUs: -1, Duration: time.Second, Lines: 1}, "vus"},
		{s000print.Knobs{VUs: 1, Duration: 0, Lines: 1}, "duration"},
		{s000print.Knobs{VUs: 1, Duration: time.Second, Lines: 0}, "lines"},
		{s000print.Knobs{VUs: 1, Duration: time.Second, Lines: 1, Think: -time.Second}, "think"},
		{s000print.Knobs{VUs: 1, Duration: time.Second, Lines: 1, Destination: "tty"}, "destination"},
		{s000print.Knobs{VUs: 1, Duration: time.Second, Lines: 1, Destination: s000print.SlowPipe}, "pipeRate"},
	} {
		err := tt.k.Validate()
		var ke *knob.Error
		if !errors.As(err, &ke) || ke.Knob != tt.want || !strings.Contains(err.Error(), "knob "+tt.want+" ") {
			t.Errorf("%+v: Validate() = %v; want an error naming the lesson's knob %s", tt.k, err, tt.want)
		}
		if _, err := bench.Run(context.Background(), tt.k.Experiment(nil)); err == nil || !strings.Contains(err.Error(), "knob "+tt.want+" ") {
			t.Errorf("%+v: run = %v; want an error naming %s", tt.k, err, tt.want)
		}
	}
}

// Into a slow pipe, /doPrint's loop waits for the reader: one line a
// request, 20 VUs thinking 50 ms, a reader taking 300 B/s (20 lines of 15
// bytes a second) saturates it once the pipe's 4 KiB are full; and the model, with the same knobs, is
// far slower than into a file.
func TestSlowPipe(t *testing.T) {
	k := s000print.Knobs{VUs: 20, Duration: 2 * time.Second, Think: 50 * time.Millisecond, Lines: 1,
		Destination: s000print.SlowPipe, PipeRate: 300, Endpoints: []string{s000print.DoPrint}}
	est := k.Estimate(nil)
	if s := est.Float("service_ms", 0); math.Abs(s-50) > 1e-9 || est.Float("saturated", 0) != 1 {
		t.Errorf("slow pipe estimate %v", est)
	}
	slow, err := bench.Run(context.Background(), k.Experiment(nil))
	if err != nil {
		t.Fatal(err)
	}
	k.Destination = s000print.File
	fast, err := bench.Run(context.Background(), k.Experiment(nil))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := slow.Value(s000print.DoPrint, "rps"), fast.Value(s000print.DoPrint, "rps"); !(a < b/3) {
		t.Errorf("into the slow pipe %v req/s, into a file %v req/s; want the pipe far slower\n%v\n%v", a, b, slow.Summary, fast.Summary)
	}
}
