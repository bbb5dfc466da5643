package s001_test

import (
	"context"
	"errors"
	"math"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/sources/s001"
	"github.com/conclab/conclab/sources/shape"
)

func TestMain(m *testing.M) {
	if code, ok := pymodel.WorkerMain(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// needPython skips where the pinned environment (or a module) is missing.
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

func TestEstimate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		k     s001.Knobs
		waves []float64
	}{
		{s001.Default, []float64{1, 10, 1, 1}},
		{s001.Knobs{N: 100, Wait: time.Second, Limiter: 40, CPUs: 8}, []float64{3, 100, 1, 9}},
		{s001.Knobs{N: 10, Wait: time.Second, Limiter: 5, CPUs: 2}, []float64{2, 10, 1, 2}},
	}
	for _, tc := range tests {
		f := tc.k.Estimate()
		if got := f.Floats("waves"); !reflect.DeepEqual(got, tc.waves) {
			t.Errorf("%+v: waves %v; want %v", tc.k, got, tc.waves)
		}
		if got, want := f.Float("elapsed_s", 1), tc.waves[1]*tc.k.Wait.Seconds(); got != want {
			t.Errorf("%+v: /async-block elapsed_s %v; want %v", tc.k, got, want)
		}
	}
}

// The model's literals are the registry's presets: one meaning per name.
func TestStrategiesArePresets(t *testing.T) {
	t.Parallel()
	for _, s := range s001.Default.Strategies() {
		p, err := strategy.Preset(s.Label())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, s) {
			t.Errorf("preset %q = %#v; the source's literal %#v", s.Label(), p, s)
		}
	}
	if _, err := s001.Default.Strategy("/nope"); err == nil {
		t.Error("Strategy(/nope): no error")
	}
	if err := (s001.Knobs{N: 0, Wait: time.Second, Limiter: 40, CPUs: 8}).Validate(); err == nil {
		t.Error("N 0 validated")
	}
}

// The model's shape holds for knobs other than the source's too: derived
// from them, never hard-coded.
func TestShapeModel(t *testing.T) {
	t.Parallel()
	for _, k := range []s001.Knobs{
		{N: 10, Wait: 100 * time.Millisecond, Limiter: 40, CPUs: 8},
		{N: 30, Wait: 50 * time.Millisecond, Limiter: 8, CPUs: 2},
	} {
		res, err := bench.Run(context.Background(), k.Experiment())
		if err != nil {
			t.Fatal(err)
		}
		if err := shape.Err("source 001", k.Checks(res)...); err != nil {
			t.Errorf("%+v: %v\n%v", k, err, shape.Frame("checks", k.Checks(res)...))
		}
	}
}

// Model and real app side by side, traced: the same shape on both, the
// real limiter and executor following the knobs (CONCLAB_LIMITER,
// CONCLAB_CPUS).
func TestShapeVersus(t *testing.T) {
	needPython(t, cpython.FastAPIModules...)
	k := s001.Knobs{N: 12, Wait: 200 * time.Millisecond, Limiter: 5, CPUs: 2}
	res, err := bench.Run(context.Background(), k.Versus(cpython.Options{Trace: true, StopGrace: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	checks := k.Checks(res)
	if len(checks) < 20 {
		t.Errorf("%d checks; want the real rows' too", len(checks))
	}
	if err := shape.Err("source 001 versus", checks...); err != nil {
		t.Errorf("%v\n%v", err, shape.Frame("checks", checks...))
	}
}

// The book's httpx client's requests go through bench/metrics: every
// request counted, rps over all of them, a 404 a 4xx error with its
// latency, and the pool the server used in threads.
func TestBenchRecordsThroughMetrics(t *testing.T) {
	needPython(t, "fastapi", "uvicorn", "httpx")
	k := s001.Default
	k.Wait = 50 * time.Millisecond
	srv := cpython.NewServer(k.App(), cpython.Options{StopGrace: time.Second})
	ctx := context.Background()
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	f, err := s001.Bench(ctx, cpython.Options{}, s001.AsyncOK, srv.URL()+s001.AsyncOK+"?s=0.05", 5)
	if err != nil {
		t.Fatal(err)
	}
	if f.Float("count", 0) != 5 || f.Float("errors", 0) != 0 || f.Float("threads", 0) != 1 {
		t.Errorf("count %v errors %v threads %v; want 5, 0, 1", f.Float("count", 0), f.Float("errors", 0), f.Float("threads", 0))
	}
	if rps := f.Float("rps", 0); math.Abs(rps-5/f.Float("elapsed_s", 0)) > 1e-9 {
		t.Errorf("rps %v; want count / elapsed_s", rps)
	}
	if f.Float("min_ms", 0) < 50 || f.Float("min_ms", 0) > f.Float("p95_ms", 0) || f.Float("p95_ms", 0) > f.Float("max_ms", 0) {
		t.Errorf("latencies out of order or below the 50 ms wait:\n%v", f)
	}
	if f.Text("python", 0) == "" || f.Text("client", 0) != "bench001" {
		t.Errorf("environment or client columns missing:\n%v", f)
	}
	g, err := s001.Bench(ctx, cpython.Options{}, "404", srv.URL()+"/nope", 3)
	if err != nil {
		t.Fatal(err)
	}
	if g.Float("count", 0) != 3 || g.Float("errors_4xx", 0) != 3 || g.Text("error_kinds", 0) != "http404" || math.IsNaN(g.Float("avg_ms", 0)) {
		t.Errorf("404s:\n%v", g)
	}
}
