package s003_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/sources/s003"
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

// The source's rows are the registry's presets, literal for literal.
func TestModelsArePresets(t *testing.T) {
	t.Parallel()
	for _, c := range append(append([]s003.Stack(nil), s003.Default.IO...), s003.Default.CPU...) {
		m := c.Model("")
		p, err := strategy.Preset(m.Label())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, m) {
			t.Errorf("preset %q = %#v; the source's literal %#v", m.Label(), p, m)
		}
	}
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	f := s003.Default.Estimate(2)
	io := f.Where("workload", "io")
	if got := io.Floats("waves"); !reflect.DeepEqual(got, []float64{2, 1, 1}) {
		t.Errorf("I/O waves %v; want [2 1 1]", got)
	}
	cpu := f.Where("workload", "cpu")
	// 2.5 s a sum: one worker 25 s; two workers on two cores 12.5 s at best.
	if got := cpu.Floats("elapsed_s"); !reflect.DeepEqual(got, []float64{25, 12.5, 25, 12.5}) {
		t.Errorf("CPU elapsed_s %v; want [25 12.5 25 12.5]", got)
	}
	k := s003.Default
	k.N, k.IO = 12, []s003.Stack{{Workers: 2, Threads: 4}}
	if got := k.Estimate(8).Where("workload", "io").Floats("waves"); !reflect.DeepEqual(got, []float64{2}) {
		t.Errorf("12 over 2w x 4t: waves %v; want [2]", got)
	}
}

// The model's shape, derived from the knobs (not the source's numbers).
func TestShapeModel(t *testing.T) {
	t.Parallel()
	for _, k := range []s003.Knobs{
		{N: 10, Wait: 100 * time.Millisecond, SumN: 1, Burn: 30 * time.Millisecond, IO: s003.Default.IO, CPU: s003.Default.CPU},
		{N: 6, Wait: 80 * time.Millisecond, SumN: 1, Burn: 20 * time.Millisecond,
			IO: []s003.Stack{{Workers: 1, Threads: 2}, {FastAPI: true, Workers: 1}}, CPU: []s003.Stack{{Workers: 3, Threads: 2}}},
	} {
		io, err := bench.Run(context.Background(), k.IOExperiment())
		if err != nil {
			t.Fatal(err)
		}
		cpu, err := bench.Run(context.Background(), k.CPUExperiment())
		if err != nil {
			t.Fatal(err)
		}
		checks := append(k.IOChecks(io), k.CPUChecks(cpu, k.Burn.Seconds())...)
		if err := shape.Err("source 003", checks...); err != nil {
			t.Errorf("%v\n%v", err, shape.Frame("checks", checks...))
		}
	}
}

// Free-threaded, no process takes a GIL and the burns overlap.
func TestShapeFreeThreaded(t *testing.T) {
	t.Parallel()
	k := s003.Knobs{N: 4, Wait: time.Millisecond, SumN: 1, Burn: 20 * time.Millisecond, CPU: []s003.Stack{{Workers: 1, Threads: 4}}, FreeThreaded: true}
	res, err := bench.Run(context.Background(), k.CPUExperiment())
	if err != nil {
		t.Fatal(err)
	}
	if err := shape.Err("free-threaded", k.CPUChecks(res, k.Burn.Seconds())...); err != nil {
		t.Error(err)
	}
}

// Model and real apps, I/O and CPU, in one bench.Run each: the same shape.
func TestShapeVersus(t *testing.T) {
	needPython(t, "flask", "gunicorn", "fastapi", "uvicorn")
	// 500 ms waits: one wave against two is 500 ms apart, more than a
	// crowded machine adds to a fresh real server's first requests (at
	// 200 ms, real FastAPI's one wave took 0.85 s under a load average of
	// 14, beyond Flask's two).
	k := s003.Knobs{N: 4, Wait: 500 * time.Millisecond, SumN: 100_000, IO: []s003.Stack{{Workers: 1, Threads: 2}, {FastAPI: true, Workers: 1}},
		CPU: []s003.Stack{{Workers: 1, Threads: 2}, {FastAPI: true, Workers: 2}}}
	o := cpython.Options{StopGrace: time.Second}
	io, err := bench.Run(context.Background(), k.IOVersus(o))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"flask 1w x 2t", "real flask 1w x 2t", "fastapi 1w", "real fastapi 1w"}
	if got := io.Summary.Texts("strategy"); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %v; want %v", got, want)
	}
	cost := s003.SourceSumCost(k.SumN)
	cpu, err := bench.Run(context.Background(), k.CPUVersus(cost, 1, o))
	if err != nil {
		t.Fatal(err)
	}
	if rp := k.CPUVersus(cost, 1, o).Strategies[1].(cpython.Real).RequestPath(); rp != "/cpu?n=100000" {
		t.Errorf("real request path %q", rp)
	}
	checks := append(k.IOChecks(io), k.CPUChecks(cpu, cost.Seconds())...)
	if err := shape.Err("source 003 versus", checks...); err != nil {
		t.Errorf("%v\n%v", err, shape.Frame("checks", checks...))
	}
	// The real one-thread-a-wave Flask takes two waves, FastAPI one.
	if io.Value("real flask 1w x 2t", "elapsed_s") < 2*0.95*k.Wait.Seconds() || io.Value("real fastapi 1w", "elapsed_s") >= io.Value("real flask 1w x 2t", "elapsed_s") {
		t.Errorf("real I/O rows:\n%v", io.Summary)
	}
}

// The split, real and modelled, through bench.Run's bursts: whatever the
// draw, each burst's requests are all counted, once, on the server's
// workers; balanced turns give each of three workers exactly its share.
func TestSplit(t *testing.T) {
	needPython(t, "flask", "gunicorn", "fastapi", "uvicorn")
	k := s003.Knobs{N: 6, SumN: 100_000, Wait: time.Second}
	servers := []s003.Stack{{Workers: 2, Threads: 2}, {FastAPI: true, Workers: 2}, {Workers: 2, Threads: 2, ReusePort: true}}
	e, err := k.SplitExperiment(s003.Splits{Stacks: servers, Bursts: 2, Cost: 5 * time.Millisecond, Python: cpython.Options{StopGrace: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	split, err := s003.Split(res, k.N, servers...)
	if err != nil {
		t.Fatal(err)
	}
	if split.Len() != 2*len(servers)*2*2 { // sides x servers x bursts x workers
		t.Errorf("%d rows:\n%v", split.Len(), split)
	}
	checks := s003.SplitChecks(split, k.N, servers...)
	if len(checks) != 2*len(servers) {
		t.Errorf("%d checks; want one per server and side", len(checks))
	}
	if err := shape.Err("split", checks...); err != nil {
		t.Errorf("%v\n%v", err, split)
	}
	sum, err := s003.SplitSummary(split)
	if err != nil {
		t.Fatal(err)
	}
	if b := s003.Busiest(sum); b.Len() != 2*len(servers) {
		t.Errorf("Busiest:\n%v", b)
	}
}

func TestSplitBalanced(t *testing.T) {
	t.Parallel()
	k := s003.Knobs{N: 9, SumN: 1, Wait: time.Second, Accept: strategy.AcceptBalanced}
	servers := []s003.Stack{{Workers: 3, Threads: 5}, {FastAPI: true, Workers: 3}}
	e, err := k.SplitExperiment(s003.Splits{Stacks: servers, Bursts: 2, Model: true, Cost: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	split, err := s003.Split(res, k.N, servers...)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string][]float64{}
	for _, r := range split.Rows() {
		key := fmt.Sprintf("%s#%v", r.Text("strategy"), r["burst"])
		per[key] = append(per[key], r.Float("requests"))
	}
	for key, counts := range per {
		if fmt.Sprint(counts) != "[3 3 3]" {
			t.Errorf("balanced %s: split %v; want [3 3 3]", key, counts)
		}
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k    s003.Knobs
		want string
	}{
		{s003.Knobs{N: 0, Wait: time.Second, SumN: 1}, "knob n must be"},
		{s003.Knobs{N: 1, Wait: 0, SumN: 1}, "knob wait must be"},
		{s003.Knobs{N: 1, Wait: time.Second, SumN: 1, IO: []s003.Stack{{Workers: 0, Threads: 1}}}, "Workers must be"},
		{s003.Knobs{N: 1, Wait: time.Second, SumN: 1, CPU: []s003.Stack{{FastAPI: true, Workers: 2, Serve: "hypercorn"}}}, "Serve must be"},
	} {
		if err := c.k.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.k, err, c.want)
		}
	}
	if _, err := s003.SplitSummary(nil); err == nil {
		t.Error("SplitSummary(nil): no error")
	}
	if _, err := (s003.Knobs{N: 2, SumN: 1, Wait: time.Second}).SplitExperiment(s003.Splits{Bursts: 1000}); err == nil {
		t.Error("1000 bursts: no error")
	}
}
