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
		{N: 20, Latency: 50 * time.Millisecond, Clients: s002.Default.Clients},
		{N: 10, Latency: 40 * time.Millisecond, Clients: []s002.Client{{Mode: s002.Threads, Workers: 4}, {Mode: s002.AsyncIO}}},
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
	k := s002.Knobs{N: 10, Latency: 50 * time.Millisecond,
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
