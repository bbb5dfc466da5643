package cpython

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
)

// Source 003's I/O run, model and real in one bench.Run: a Flask worker
// with two threads serves four sleeps in two waves on both sides, the
// FastAPI worker (AnyIO's 40 tokens) in one.
func TestExperiment003IO(t *testing.T) {
	needPython(t, "flask", "gunicorn", "fastapi", "uvicorn")
	const wait = 200 * time.Millisecond
	e, err := Experiment003(context.Background(), Options003{N: 4, Wait: wait, Servers: []Server003{{Workers: 1, Threads: 2}, {FastAPI: true, Workers: 1}},
		Python: Options{StopGrace: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	t.Logf("\n%v", s)
	flask, fast := "Flask gunicorn 1w x 2t", "FastAPI gunicorn 1w"
	want := []string{flask, RealPrefix + flask, fast, RealPrefix + fast}
	if got := s.Texts("strategy"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %v; want %v", got, want)
	}
	el := map[string]float64{}
	for i, l := range want {
		if s.Float("count", i) != 4 || s.Float("errors", i) != 0 {
			t.Errorf("%s: count %v errors %v", l, s.Float("count", i), s.Float("errors", i))
		}
		el[l] = s.Float("elapsed_s", i)
	}
	for _, side := range []string{"", RealPrefix} {
		if el[side+flask] < 2*wait.Seconds()*0.95 {
			t.Errorf("%s%s: %.3fs below two waves of %v", side, flask, el[side+flask], wait)
		}
		if el[side+fast] >= el[side+flask] {
			t.Errorf("%s: FastAPI (%.3fs) not faster than Flask 2 threads (%.3fs)", side, el[side+fast], el[side+flask])
		}
	}
}

// The CPU run with a given calibration starts no calibration and sends
// the sum to /cpu on the real side; every request is answered.
func TestExperiment003CPU(t *testing.T) {
	needPython(t, "flask", "gunicorn", "fastapi", "uvicorn")
	cal := SourceMachine(0)
	e, err := Experiment003(context.Background(), Options003{Mode: ModeCPU, N: 2, SumN: 100_000, Calibration: cal,
		Servers: []Server003{{Workers: 1, Threads: 2}}, Python: Options{StopGrace: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if rp := e.Strategies[1].(Real).RequestPath(); rp != "/cpu?n=100000" {
		t.Errorf("real request path %q", rp)
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < res.Summary.Len(); i++ {
		if res.Summary.Float("count", i) != 2 || res.Summary.Float("errors", i) != 0 {
			t.Errorf("row %d:\n%v", i, res.Summary)
		}
	}
}

func TestExperiment003BadInput(t *testing.T) {
	t.Parallel()
	for _, o := range []Options003{{Mode: "gpu"}, {N: -1}, {Wait: -time.Second}} {
		if _, err := Experiment003(context.Background(), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
