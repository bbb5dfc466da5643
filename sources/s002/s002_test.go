package s002_test

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/sources/s002"
	"github.com/conclab/conclab/sources/shape"
)

func TestMain(m *testing.M) {
	if code, ok := pymodel.WorkerMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	f := s002.Default.Estimate()
	if got := f.Floats("waves"); !reflect.DeepEqual(got, []float64{100, 1, 4, 1}) {
		t.Errorf("waves %v; want [100 1 4 1]", got)
	}
	if got := f.Floats("elapsed_s"); got[0] < 19.99 || got[0] > 20.01 || got[2] < 0.799 || got[2] > 0.801 {
		t.Errorf("elapsed_s %v; want 20 s sequential, 0.8 s for the pool of 30", got)
	}
	if tbl := s002.Table(); tbl.Float("elapsed_max_s", 1) != 8.5 || tbl.Float("elapsed_min_s", 1) != 3 {
		t.Errorf("the pool of 100 is 8.5 s first, then 3–6 s:\n%v", tbl)
	}
}

// The modelled clients' shape, through bench.Run: a pool's waves exactly,
// for knobs other than the source's too.
func TestShapeModel(t *testing.T) {
	t.Parallel()
	for _, k := range []s002.Knobs{
		// 300 ms a check: a pool's checks all start while its first waits,
		// even when a crowded machine delays a thread's start (at 50 ms,
		// "checks at once" came out 13 of 20 under a load average of 6).
		{N: 20, Latency: 300 * time.Millisecond, Clients: s002.Default.Clients},
		{N: 10, Latency: 300 * time.Millisecond, Clients: []s002.Client{{Mode: s002.Threads, Workers: 4}, {Mode: s002.AsyncIO}}},
	} {
		res, err := bench.Run(context.Background(), k.Experiment())
		if err != nil {
			t.Fatal(err)
		}
		if err := shape.Err("source 002", k.Checks(res, nil)...); err != nil {
			t.Errorf("%v\n%v", err, shape.Frame("checks", k.Checks(res, nil)...))
		}
	}
	if err := (s002.Knobs{N: 1, Latency: time.Second, Clients: []s002.Client{{Mode: "bulk"}}}).Validate(); err == nil || !strings.Contains(err.Error(), "bulk") {
		t.Errorf("unknown mode: %v", err)
	}
}

// Model and real clients side by side: one row per client and side, every
// check counted, the shape on both sides, the real rows with their
// client's CPU and RSS.
func TestShapeVersus(t *testing.T) {
	env, err := cpython.Detect(context.Background(), "")
	if err == nil {
		err = env.Require("fastapi", "uvicorn", "requests", "aiohttp")
	}
	if errors.Is(err, cpython.ErrUnavailable) {
		t.Skip(err)
	}
	k := s002.Knobs{N: 10, Latency: 300 * time.Millisecond, // see TestShapeModel
		Clients: []s002.Client{{Mode: s002.Sequential}, {Mode: s002.Threads, Workers: 5}, {Mode: s002.AsyncIO}}}
	f, model, err := k.Versus(context.Background(), cpython.Options{StopGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if f.Len() != 6 {
		t.Fatalf("%d rows; want 6\n%v", f.Len(), f)
	}
	checks := k.Checks(model, f)
	if len(checks) != 3*5+3*3 {
		t.Errorf("%d checks; want the real rows' too", len(checks))
	}
	if err := shape.Err("source 002 versus", checks...); err != nil {
		t.Errorf("%v\n%v", err, f)
	}
	for _, c := range k.Clients {
		cpu, err := f.Get("strategy", cpython.RealPrefix+c.Label(), "cpu_s")
		rss, err2 := f.Get("strategy", cpython.RealPrefix+c.Label(), "rss_mb")
		if err != nil || err2 != nil || !(cpu > 0) || !(rss > 0) {
			t.Errorf("%s: cpu_s %v rss_mb %v (%v, %v)", c.Label(), cpu, rss, err, err2)
		}
	}
}

// A def downstream caps every client at its 40 tokens: waves ⌈N / min(at
// once, 40)⌉, in the estimate and on the model.
func TestDefDownstream(t *testing.T) {
	t.Parallel()
	k := s002.Knobs{N: 100, Latency: 200 * time.Millisecond, Downstream: s002.DownstreamDef, Clients: s002.Default.Clients}
	if got := k.Estimate().Floats("waves"); !reflect.DeepEqual(got, []float64{100, 3, 4, 3}) {
		t.Errorf("def downstream waves %v; want [100 3 4 3]", got)
	}
	if k.Path() != "/health-def" || s002.Default.Path() != "/health" {
		t.Errorf("paths %q, %q", k.Path(), s002.Default.Path())
	}
	// 400 ms per check: the twelve all start while the first still waits,
	// even when a crowded machine delays a thread's start by a few hundred
	// ms (at 40 ms one finished before the last started: 11 at once).
	m := s002.Knobs{N: 12, Latency: 400 * time.Millisecond, Downstream: s002.DownstreamDef,
		Clients: []s002.Client{{Mode: s002.Threads, Workers: 12}, {Mode: s002.AsyncIO}}}
	if m.Waves(m.Clients[1]) != 1 {
		t.Fatalf("12 checks under 40 tokens: one wave")
	}
	res, err := bench.Run(context.Background(), m.Experiment())
	if err != nil {
		t.Fatal(err)
	}
	if err := shape.Err("def downstream", m.Checks(res, nil)...); err != nil {
		t.Error(err)
	}
	if err := (s002.Knobs{N: 1, Latency: time.Second, Clients: s002.Default.Clients, Downstream: "sync"}).Validate(); err == nil || !strings.Contains(err.Error(), `s002: downstream must be "async def" or "def", got "sync"`) {
		t.Errorf("bad downstream: %v", err)
	}
	if err := (s002.Knobs{N: 10, Latency: -time.Second, Clients: s002.Default.Clients}).Validate(); err == nil || !strings.Contains(err.Error(), "s002: latency (the downstream's wait) must be in (0, 1m], got -1s") {
		t.Errorf("a negative latency: %v", err)
	}
	if err := (s002.Knobs{N: 10, Latency: time.Second, Clients: []s002.Client{{Mode: s002.Threads, Workers: -3}}}).Validate(); err == nil || !strings.Contains(err.Error(), "s002: pools: ") || !strings.Contains(err.Error(), "max_workers must be in 1..1000, got -3") {
		t.Errorf("a negative pool: %v", err)
	}
	if err := (s002.Knobs{N: -1, Latency: time.Second, Clients: s002.Default.Clients}).Validate(); err == nil || !strings.Contains(err.Error(), "s002: calls (health checks per client) must be in 1..10000, got -1") {
		t.Errorf("negative N: %v", err)
	}
}

func TestEstimateCPUAndTableRange(t *testing.T) {
	t.Parallel()
	f := s002.Default.EstimateCPU(s002.CallCPU{Requests: 2 * time.Millisecond, AIOHTTP: time.Millisecond})
	if got := f.Floats("cpu_s"); !reflect.DeepEqual(got, []float64{0.2, 0.2, 0.2, 0.1}) {
		t.Errorf("cpu floor %v; want N × c: [0.2 0.2 0.2 0.1]", got)
	}
	if got := f.Floats("waits"); !reflect.DeepEqual(got, []float64{100, 1, 4, 1}) {
		t.Errorf("waits %v", got)
	}
	low, high := s002.TableRange()
	if low.Float("waits", 1) != 15 || high.Float("waits", 1) != 42.5 || low.Float("waits", 0) != high.Float("waits", 0) {
		t.Errorf("the pool of 100: 3 s (15 waits) to 8.5 s (42.5 waits):\n%v\n%v", low, high)
	}
	if !strings.HasPrefix(low.Name, "source 002 (low)") || !strings.Contains(f.Name, "estimate") {
		t.Errorf("names %q, %q", low.Name, f.Name)
	}
}

// The source's run on the model at its defaults (100 checks of 200 ms; the
// sequential client takes 20 s): the shape the lesson shows.
func TestDefaultModel(t *testing.T) {
	if testing.Short() {
		t.Skip("20 s: the sequential client's 100 waits")
	}
	t.Parallel()
	res, err := bench.Run(context.Background(), s002.Default.Experiment())
	if err != nil {
		t.Fatal(err)
	}
	if err := shape.Err("source 002 at its defaults", s002.Default.Checks(res, nil)...); err != nil {
		t.Error(err)
	}
}

// The clients' CPU per call, measured for real: positive, and aiohttp's
// gathered calls cost no more than ten times requests' per call.
func TestMeasureCallCPU(t *testing.T) {
	env, err := cpython.Detect(context.Background(), "")
	if err == nil {
		err = env.Require("fastapi", "uvicorn", "requests", "aiohttp")
	}
	if errors.Is(err, cpython.ErrUnavailable) {
		t.Skip(err)
	}
	c, err := s002.MeasureCallCPU(context.Background(), cpython.Options{StopGrace: time.Second}, 20)
	if err != nil {
		t.Fatal(err)
	}
	if c.Requests <= 0 || c.AIOHTTP <= 0 {
		t.Errorf("%+v", c)
	}
	if len(c.Costs()) != 2 {
		t.Errorf("costs %v", c.Costs())
	}
}

// The sweep's curves are over the pool size W, not the checks at once
// (which N caps).
func TestSweep(t *testing.T) {
	t.Parallel()
	k := s002.Knobs{N: 20, Latency: 100 * time.Millisecond, Clients: s002.Pools(10, 50)}
	real := frameOf(t, "real ThreadPoolExecutor(10)", "real ThreadPoolExecutor(50)")
	f, err := k.Sweep(real)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Floats("workers"); !reflect.DeepEqual(got, []float64{10, 50, 10, 50}) {
		t.Errorf("workers %v; want the pool sizes, estimate then real\n%v", got, f)
	}
	if got := f.Floats("waits"); got[0] != 2 || got[1] != 1 {
		t.Errorf("estimate waits %v", got)
	}
}

func frameOf(t *testing.T, names ...string) *frame.Frame {
	t.Helper()
	f := frame.Of("real", "strategy", "errors", "waits", "cpu_s")
	for i, n := range names {
		f.MustAppend(frame.Row{"strategy": n, "errors": 0, "waits": float64(2 - i), "cpu_s": 0.01})
	}
	return f
}
