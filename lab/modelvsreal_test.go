package lab

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/sources/s001"
)

func summary(rows ...frame.Row) *frame.Frame {
	f := frame.New("s")
	_ = f.AddColumn("strategy", frame.Label)
	_ = f.AddColumn("elapsed_s", frame.Number)
	for _, r := range rows {
		f.MustAppend(r)
	}
	return f
}

// A row agrees only within the tolerance: 10 % off agrees at ±10 %, 11 %
// does not, NaN never does. b is 11 % off but no pair is clearly ordered
// the other way round (a is a tie on the model side): ordering only.
func TestAgree(t *testing.T) {
	t.Parallel()
	f := summary(
		frame.Row{"strategy": "a", "elapsed_s": 1.0}, frame.Row{"strategy": "real a", "elapsed_s": 1.1},
		frame.Row{"strategy": "b", "elapsed_s": 1.0}, frame.Row{"strategy": "real b", "elapsed_s": 0.89},
		frame.Row{"strategy": "c", "elapsed_s": 2.0}, frame.Row{"strategy": "real c", "elapsed_s": math.NaN()},
	)
	a, err := Agree("t", f, 0.10, "elapsed_s")
	if err != nil {
		t.Fatal(err)
	}
	if a.Agree != 1 || a.Ordering != 1 || a.Total != 3 || a.Line() != "1 of 3 agree within ±10 %; 1 agree in ordering only" {
		t.Errorf("agree %d, ordering %d of %d, line %q", a.Agree, a.Ordering, a.Total, a.Line())
	}
	if got := strings.Join(a.Disagreeing(), ","); got != "c elapsed_s" {
		t.Errorf("disagreeing %q; want c elapsed_s", got)
	}
	if err := a.Err(); err == nil || !strings.Contains(err.Error(), "on c elapsed_s (") {
		t.Errorf("Err() = %v", err)
	}
	if v := a.Frame.Text("verdict", 1); !strings.HasPrefix(v, "ordering only") || !strings.Contains(v, "-11 %") {
		t.Errorf("verdict %q", v)
	}
	if v := a.Frame.Text("verdict", 2); !strings.HasPrefix(v, "disagrees") {
		t.Errorf("verdict %q", v)
	}
}

// Ordering only, or a clear reversal: the verdict per pair and metric.
func TestAgreeOrdering(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                  string
		model, real           [3]float64 // pairs x, y, z
		agree, ordering, fail int
		disagreeing           string
	}{
		// Reality is 10x slower everywhere, in the model's order.
		{"same order, values off", [3]float64{1, 2, 4}, [3]float64{10, 20, 40}, 0, 3, 0, ""},
		// x and z swap places clearly: both reversed; y is a near tie with nothing.
		{"clear reversal", [3]float64{1, 2, 4}, [3]float64{40, 20, 10}, 0, 0, 3, "x elapsed_s,y elapsed_s,z elapsed_s"},
		// x and y are a near tie in the model (5 %): no reversal whatever reality says.
		{"model near tie", [3]float64{1, 1.05, 4}, [3]float64{30, 20, 80}, 0, 3, 0, ""},
		// All agree within ±10 %.
		{"all agree", [3]float64{1, 2, 4}, [3]float64{1.05, 1.9, 4.2}, 3, 0, 0, ""},
	} {
		f := summary(
			frame.Row{"strategy": "x", "elapsed_s": tc.model[0]}, frame.Row{"strategy": "real x", "elapsed_s": tc.real[0]},
			frame.Row{"strategy": "y", "elapsed_s": tc.model[1]}, frame.Row{"strategy": "real y", "elapsed_s": tc.real[1]},
			frame.Row{"strategy": "z", "elapsed_s": tc.model[2]}, frame.Row{"strategy": "real z", "elapsed_s": tc.real[2]},
		)
		a, err := Agree(tc.name, f, 0.10, "elapsed_s")
		if err != nil {
			t.Fatal(err)
		}
		if a.Agree != tc.agree || a.Ordering != tc.ordering || a.Total-a.Agree-a.Ordering != tc.fail {
			t.Errorf("%s: agree %d, ordering only %d, failing %d; want %d, %d, %d\n%v", tc.name, a.Agree, a.Ordering, a.Total-a.Agree-a.Ordering, tc.agree, tc.ordering, tc.fail, a.Frame)
		}
		if got := strings.Join(a.Disagreeing(), ","); got != tc.disagreeing {
			t.Errorf("%s: disagreeing %q; want %q", tc.name, got, tc.disagreeing)
		}
		if (a.Err() != nil) != (tc.fail > 0) {
			t.Errorf("%s: Err() = %v with %d failing", tc.name, a.Err(), tc.fail)
		}
	}
}

// A lone pair has nothing to be ordered against.
func TestAgreeLonePair(t *testing.T) {
	t.Parallel()
	f := summary(frame.Row{"strategy": "x", "elapsed_s": 1.0}, frame.Row{"strategy": "real x", "elapsed_s": 3.0})
	a, err := Agree("lone", f, 0.10, "elapsed_s")
	if err != nil {
		t.Fatal(err)
	}
	if a.Ordering != 0 || a.Err() == nil {
		t.Errorf("lone pair 3x off: ordering %d, Err %v; want 0 and an error", a.Ordering, a.Err())
	}
}

func TestAgreeBadInput(t *testing.T) {
	t.Parallel()
	pair := summary(frame.Row{"strategy": "a", "elapsed_s": 1.0}, frame.Row{"strategy": "real a", "elapsed_s": 1.0})
	tests := []struct {
		name    string
		f       *frame.Frame
		tol     float64
		metrics []string
		want    string
	}{
		{"nil", nil, 0.1, []string{"elapsed_s"}, "nil summary"},
		{"no metrics", pair, 0.1, nil, "no metrics"},
		{"zero tolerance", pair, 0, []string{"elapsed_s"}, "tolerance"},
		{"missing metric", pair, 0.1, []string{"p95_ms"}, `no number column "p95_ms"`},
		{"lone model", summary(frame.Row{"strategy": "a", "elapsed_s": 1.0}), 0.1, []string{"elapsed_s"}, `"a" has no real row "real a"`},
		{"lone real", summary(frame.Row{"strategy": "real a", "elapsed_s": 1.0}), 0.1, []string{"elapsed_s"}, `"real a" has no model row "a"`},
		{"duplicate", summary(frame.Row{"strategy": "a", "elapsed_s": 1.0}, frame.Row{"strategy": "a", "elapsed_s": 1.0}), 0.1, []string{"elapsed_s"}, "twice"},
	}
	for _, tc := range tests {
		_, err := Agree("t", tc.f, tc.tol, tc.metrics...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error with %q", tc.name, err, tc.want)
		}
	}
}

// An experiment whose strategies do not pair is refused before anything
// starts; a real strategy this machine cannot run is skipped.
func TestModelVsRealRefusesAndSkips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lone := bench.Experiment{Strategies: []strategy.Strategy{strategy.Uvicorn{Name: "x"}}, Workload: bench.Steps(bench.Sleep(time.Millisecond))}
	if _, err := ModelVsReal(ctx, lone, 0.1, "elapsed_s"); err == nil || !strings.Contains(err.Error(), `"x" has no real row`) {
		t.Errorf("lone strategy: %v", err)
	}
	k := s001.Default
	k.N, k.Wait = 1, time.Millisecond
	e := k.Versus(cpython.Options{Python: "/no/such/python3"})
	a, err := ModelVsReal(ctx, e, 0.1, "elapsed_s")
	if a != nil || err != nil {
		t.Errorf("unavailable CPython: %v, %v; want nil, nil (skipped)", a, err)
	}
	if a.Line() != "skipped" || a.Err() != nil || a.Disagreeing() != nil {
		t.Errorf("nil Agreement: %q, %v, %v", a.Line(), a.Err(), a.Disagreeing())
	}
	a, err = ModelVsRealOf(ctx, "t", func(context.Context) (*frame.Frame, error) {
		return nil, &cpython.MissingError{Python: "p", Modules: []string{"aiohttp"}, Distributions: []string{"aiohttp"}}
	}, 0.1, "elapsed_s")
	if a != nil || err != nil {
		t.Errorf("ModelVsRealOf unavailable: %v, %v; want nil, nil", a, err)
	}
	boom := errors.New("boom")
	if _, err := ModelVsRealOf(ctx, "t", func(context.Context) (*frame.Frame, error) { return nil, boom }, 0.1, "elapsed_s"); !errors.Is(err, boom) {
		t.Errorf("failed run: %v", err)
	}
}

// ModelVsReal on real CPython: one bench.Run, the pair found, one verdict
// per metric, and an error exactly when a row disagrees.
func TestModelVsRealRuns(t *testing.T) {
	k := s001.Default
	k.N, k.Wait = 5, 100*time.Millisecond
	e := k.Versus(cpython.Options{StopGrace: time.Second})
	if err := (cpython.Real{App: k.App()}).Available(context.Background()); errors.Is(err, cpython.ErrUnavailable) {
		t.Skip(err)
	}
	var keep []strategy.Strategy
	for _, s := range e.Strategies {
		if strings.HasSuffix(s.Label(), s001.AsyncOK) {
			keep = append(keep, s)
		}
	}
	e.Strategies = keep
	a, err := ModelVsReal(context.Background(), e, SleepTolerance, "elapsed_s", "count")
	if a == nil {
		t.Fatalf("no agreement: %v", err)
	}
	if a.Total != 2 || a.Frame.Len() != 2 || a.Result == nil || a.Result.Summary.Len() != 2 {
		t.Fatalf("agreement:\n%v", a.Frame)
	}
	if a.Frame.Float("agree", 1) != 1 {
		t.Errorf("count differs between model and real:\n%v", a.Frame)
	}
	if err != nil {
		t.Errorf("err %v: a verdict is not an error", err)
	}
	if (a.Err() != nil) != (a.Agree < a.Total) {
		t.Errorf("Err() %v with %d of %d agreeing", a.Err(), a.Agree, a.Total)
	}
}

// A comparison that disagrees is returned, not failed: its verdicts are
// shown, Err names the rows, and the call's own error stays nil.
func TestModelVsRealOfDisagreementIsAVerdict(t *testing.T) {
	t.Parallel()
	f := summary(
		frame.Row{"strategy": "x", "elapsed_s": 1.0}, frame.Row{"strategy": "real x", "elapsed_s": 4.0},
		frame.Row{"strategy": "y", "elapsed_s": 4.0}, frame.Row{"strategy": "real y", "elapsed_s": 1.0})
	a, err := ModelVsRealOf(context.Background(), "reversed", func(context.Context) (*frame.Frame, error) { return f, nil }, 0.1, "elapsed_s")
	if err != nil || a == nil {
		t.Fatalf("ModelVsRealOf = %v, %v; want the agreement and no error", a, err)
	}
	if a.Agree != 0 || a.Ordering != 0 || a.Total != 2 {
		t.Errorf("agree %d, ordering %d of %d; want 0, 0 of 2\n%v", a.Agree, a.Ordering, a.Total, a.Frame)
	}
	if e := a.Err(); e == nil || !strings.Contains(e.Error(), "x elapsed_s, y elapsed_s") {
		t.Errorf("Err() = %v; want both rows named", e)
	}
}

// Run leaves out the real strategies that cannot run and runs the model's.
func TestRunSkipsUnavailableReal(t *testing.T) {
	t.Parallel()
	k := s001.Default
	k.N, k.Wait = 2, 10*time.Millisecond
	res, err := Run(context.Background(), k.Versus(cpython.Options{Python: "/no/such/python3"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Summary.Texts("strategy"), ","); got != "/sync-sleep,/async-block,/async-ok,/offload" {
		t.Errorf("rows %s; want the model's only", got)
	}
	only := bench.Experiment{Strategies: []strategy.Strategy{cpython.Real{App: s001.Default.App(), Options: cpython.Options{Python: "/no/such/python3"}}}}
	if _, err := Run(context.Background(), only); err == nil || !strings.Contains(err.Error(), "no strategy can run") {
		t.Errorf("nothing to run: %v", err)
	}
}
