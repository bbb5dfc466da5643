package cpython

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

// splitSums checks a MeasureSplit frame's invariants: every (strategy,
// burst) has a row per worker and its counts sum to n.
func splitSums(t *testing.T, f interface {
	Len() int
	Text(string, int) string
	Float(string, int) float64
}, workers map[string]int, n, bursts int) map[string][]int {
	t.Helper()
	per := map[string][]int{}
	for i := 0; i < f.Len(); i++ {
		k := fmt.Sprintf("%s#%d", f.Text("strategy", i), int(f.Float("burst", i)))
		per[k] = append(per[k], int(f.Float("requests", i)))
		if w := int(f.Float("worker", i)); w != len(per[k]) {
			t.Errorf("%s: row for worker %d out of order (want %d)", k, w, len(per[k]))
		}
	}
	for s, w := range workers {
		for b := 1; b <= bursts; b++ {
			k := fmt.Sprintf("%s#%d", s, b)
			sum := 0
			for _, c := range per[k] {
				sum += c
			}
			if len(per[k]) != w || sum != n {
				t.Errorf("%s: split %v; want %d workers summing to %d", k, per[k], w, n)
			}
		}
	}
	if len(per) != len(workers)*bursts {
		t.Errorf("%d (strategy, burst) pairs; want %d", len(per), len(workers)*bursts)
	}
	return per
}

// The real apps and the model, side by side: whatever the split, each
// burst's requests are all counted, once, on the server's workers.
func TestMeasureSplitReal(t *testing.T) {
	needPython(t, "flask", "gunicorn", "fastapi", "uvicorn")
	f, err := MeasureSplit(context.Background(), SplitOptions{Model: true, Calibration: SourceMachine(0),
		Servers: []Server003{{Workers: 2, Threads: 2}, {FastAPI: true, Workers: 2}}, N: 6, Bursts: 2, SumN: 100_000,
		Python: Options{StopGrace: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", f)
	splitSums(t, f, map[string]int{
		"real Flask gunicorn 2w x 2t": 2, "Flask gunicorn 2w x 2t": 2,
		"real FastAPI gunicorn 2w": 2, "FastAPI gunicorn 2w": 2,
	}, 6, 2)
}

// The model alone: balanced turns give each of 3 workers exactly 3 of 9;
// greedy may give any split, but the counts still sum.
func TestMeasureSplitModel(t *testing.T) {
	t.Parallel()
	for _, accept := range []string{strategy.AcceptBalanced, strategy.AcceptGreedy} {
		f, err := MeasureSplit(context.Background(), SplitOptions{ModelOnly: true, Accept: accept, Calibration: SourceMachine(0),
			Servers: []Server003{{Workers: 3, Threads: 5}, {FastAPI: true, Workers: 3}}, N: 9, Bursts: 2, SumN: 40_000})
		if err != nil {
			t.Fatal(err)
		}
		per := splitSums(t, f, map[string]int{"Flask gunicorn 3w x 5t": 3, "FastAPI gunicorn 3w": 3}, 9, 2)
		if accept != strategy.AcceptBalanced {
			continue
		}
		for k, counts := range per {
			if fmt.Sprint(counts) != "[3 3 3]" {
				t.Errorf("balanced %s: split %v; want [3 3 3]", k, counts)
			}
		}
	}
}

func TestMeasureSplitBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		o    SplitOptions
		want string
	}{
		{SplitOptions{N: -1}, "N must be in 1..1000"},
		{SplitOptions{Bursts: 1000}, "Bursts must be in 1..100"},
		{SplitOptions{SumN: -5}, "must not be negative"},
		{SplitOptions{ModelOnly: true}, "ModelOnly needs a Calibration"},
		{SplitOptions{Accept: "round-robin"}, `Accept must be "greedy" or "balanced"`},
		{SplitOptions{Servers: []Server003{{Workers: 0, Threads: 5}}}, "want at least 1"},
	} {
		if _, err := MeasureSplit(context.Background(), c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v; want %q", c.o, err, c.want)
		}
	}
	if _, err := SplitSummary(nil); err == nil {
		t.Error("SplitSummary(nil): no error")
	}
	if _, err := WorkerCounts(nil, "x", 0); err == nil {
		t.Error("WorkerCounts(workers 0): no error")
	}
	if _, err := Experiment003(context.Background(), Options003{Accept: "x"}); err == nil || !strings.Contains(err.Error(), "Accept") {
		t.Errorf("Experiment003(Accept x): %v", err)
	}
}

// countSplit assigns requests to bursts by their first event and refuses a
// trace that does not account for every request.
func TestCountSplit(t *testing.T) {
	t.Parallel()
	ev := func(req int64, worker int, start int64) trace.Event {
		return trace.Event{Request: req, Worker: worker, Phase: trace.Handler, Start: start, End: start + 5}
	}
	evs := []trace.Event{
		{Request: 0, Worker: 1, Phase: trace.Accept, Start: 1, End: 2}, // the acceptor's: no request
		ev(1, 1, 12), ev(1, 1, 11), ev(2, 1, 15), ev(3, 2, 14), // burst 1 (from 10)
		ev(4, 2, 25), ev(5, 2, 26), ev(6, 2, 27), // burst 2 (from 20)
		ev(7, 1, 5), // before the first burst: a probe
	}
	got, err := countSplit(evs, []int64{10, 20}, 2, 3)
	if err != nil || fmt.Sprint(got) != "[[2 1] [0 3]]" {
		t.Errorf("countSplit = %v, %v; want [[2 1] [0 3]]", got, err)
	}
	if _, err := countSplit(evs, []int64{10, 20}, 2, 4); err == nil || !strings.Contains(err.Error(), "want 4") {
		t.Errorf("short burst: %v", err)
	}
	if _, err := countSplit(evs, []int64{10, 20}, 1, 3); err == nil || !strings.Contains(err.Error(), "worker 2 of 1") {
		t.Errorf("worker beyond the server's: %v", err)
	}
}
