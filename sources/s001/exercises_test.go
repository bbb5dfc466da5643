package s001_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/sources/s001"
)

// Exercise 3 on the model and the real app: the def dependency's connects
// run side by side (one wave while N fits the tokens), the async def
// one's one after another (N connects at least).
func TestDependencies(t *testing.T) {
	needPython(t, append(cpython.FastAPIModules, "httpx", "requests")...)
	k := s001.Knobs{N: 6, Wait: 80 * time.Millisecond, Limiter: 40, CPUs: 2}
	e, err := k.Dependencies()
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	est := k.DependenciesEstimate()
	if est.Float("waves", 0) != 1 || est.Float("waves", 1) != 6 {
		t.Errorf("estimate\n%v", est)
	}
	for _, row := range []string{s001.DepDef, "real " + s001.DepDef, s001.DepAsync, "real " + s001.DepAsync} {
		if res.Value(row, "errors") != 0 || res.Value(row, "count") != 6 {
			t.Errorf("%s: %v errors of %v\n%v", row, res.Value(row, "errors"), res.Value(row, "count"), res.Summary)
		}
	}
	for _, p := range []string{"", "real "} {
		def, blocking := res.Value(p+s001.DepDef, "elapsed_s"), res.Value(p+s001.DepAsync, "elapsed_s")
		if blocking < 6*0.08 || def >= blocking {
			t.Errorf("%s: def dependency %.3f s, async def %.3f s; want the async one >= 6 connects and slower", p, def, blocking)
		}
	}
	if res.MaxOverlap(s001.DepAsync, "io") != 1 || res.MaxOverlap(s001.DepDef, "io") != 6 {
		t.Errorf("model connects at once: async %d, def %d; want 1 and 6", res.MaxOverlap(s001.DepAsync, "io"), res.MaxOverlap(s001.DepDef, "io"))
	}
}

// Exercise 4, a burst of 4 and a request alone on each server, model and
// real: every way takes at least its calls in a row (in turn: 4
// latencies; requests inside async def in a burst: 16). On the model,
// gathered calls are shorter than calls in turn. On the real apps, where a
// loaded machine adds more than three latencies of Python work (CI saw a
// gathered request alone take 0.30 s against 0.22 s in turn), the API
// stand-in counts the calls at once instead: gathered ones overlap, calls
// in turn do not, and requests inside async def run one call at a time
// for the whole burst.
func TestExternalAPI(t *testing.T) {
	needPython(t, append(cpython.FastAPIModules, "httpx", "requests")...)
	const lat = 0.15 // seconds
	a := s001.API{Calls: 4, Latency: time.Duration(lat * float64(time.Second))}
	k := s001.Knobs{N: 4, Wait: time.Second, Limiter: 40, CPUs: 2}
	run, err := k.ExternalAPI(a)
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), run.Experiment())
	if err != nil {
		t.Fatal(err)
	}
	alone := run.Alone()
	if alone.Len() != 8 {
		t.Fatalf("alone: %d rows, want a model and a real row per endpoint\n%v", alone.Len(), alone)
	}
	for _, p := range []string{"", "real "} {
		took := map[string]float64{}
		for _, ep := range s001.APIEndpoints() {
			if res.Value(p+ep, "errors") != 0 || res.Value(p+ep, "count") != 4 {
				t.Errorf("%s%s: %v errors of %v", p, ep, res.Value(p+ep, "errors"), res.Value(p+ep, "count"))
			}
			r, err := alone.Lookup("strategy", p+ep)
			if err != nil || r.Float("errors") != 0 {
				t.Fatalf("alone %s%s: %v %v", p, ep, r, err)
			}
			took[ep] = r.Float("elapsed_s")
			if ep != s001.APIHttpxGather && took[ep] < 4*lat {
				t.Errorf("alone %s%s: %.3f s, less than its 4 calls in a row", p, ep, took[ep])
			}
		}
		model := p == ""
		if g := took[s001.APIHttpxGather]; g < lat || model && g >= took[s001.APIHttpxInTurn] {
			t.Errorf("alone %s: gathered %.3f s, in turn %.3f s", p, g, took[s001.APIHttpxInTurn])
		}
		gather, inTurn := res.Value(p+s001.APIHttpxGather, "elapsed_s"), res.Value(p+s001.APIHttpxInTurn, "elapsed_s")
		if inTurn < 4*lat || gather < lat || model && gather >= inTurn {
			t.Errorf("burst %s: gathered %.3f s, in turn %.3f s", p, gather, inTurn)
		}
		if blocking := res.Value(p+s001.APIRequestsAsync, "elapsed_s"); blocking < 16*lat {
			t.Errorf("burst %s: requests in async def %.3f s, want >= 16 latencies", p, blocking)
		}
	}
	atOnce := run.AtOnce()
	t.Logf("%v", atOnce)
	if atOnce.Len() != 4 {
		t.Fatalf("calls at once: %d rows, want one per real app\n%v", atOnce.Len(), atOnce)
	}
	for _, c := range []struct {
		ep                           string
		aloneMin, aloneMax, burstMax int
		burstMin                     int
	}{
		{s001.APIRequestsAsync, 1, 1, 1, 1}, // the loop is blocked: one call at a time
		{s001.APIRequestsDef, 1, 1, 4, 1},
		{s001.APIHttpxInTurn, 1, 1, 4, 1},
		{s001.APIHttpxGather, 2, 4, 16, 2},
	} {
		r, err := atOnce.Lookup("strategy", "real "+c.ep)
		if err != nil {
			t.Fatalf("calls at once of real %s: %v\n%v", c.ep, err, atOnce)
		}
		if a, b := int(r.Float("alone")), int(r.Float("burst")); a < c.aloneMin || a > c.aloneMax || b < c.burstMin || b > c.burstMax {
			t.Errorf("real %s: %d calls at once alone (want %d..%d), %d in the burst (want %d..%d)",
				c.ep, a, c.aloneMin, c.aloneMax, b, c.burstMin, c.burstMax)
		}
	}
	est := s001.Knobs{N: 50, Limiter: 40}.ExternalAPIEstimate(s001.API{Calls: 10, Latency: 100 * time.Millisecond})
	for i, want := range []float64{500, 20, 10, 1} {
		if est.Float("calls_in_a_row", i) != want {
			t.Errorf("estimate row %d: %v calls in a row, want %v\n%v", i, est.Float("calls_in_a_row", i), want, est)
		}
	}
	if one := run.Estimate(1); one.Float("calls_in_a_row", 0) != 4 || one.Float("calls_in_a_row", 3) != 1 {
		t.Errorf("Estimate(1)\n%v", one)
	}
}

// The first wave on a fresh real server: both bursts are read, each has
// N requests' handlers on N distinct threads (N within the tokens), and
// the second reuses the first's threads.
func TestFirstWave(t *testing.T) {
	needPython(t, cpython.FastAPIModules...)
	k := s001.Knobs{N: 5, Wait: 100 * time.Millisecond, Limiter: 40, CPUs: 2}
	e, err := k.FirstWave()
	if err != nil {
		t.Fatal(err)
	}
	res, err := bench.Run(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	f := k.FirstWaveExtra(res)
	r, err := f.Lookup("strategy", "real "+s001.SyncSleep)
	if err != nil {
		t.Fatalf("%v\n%v", err, f)
	}
	if r.Float("threads_first") != 5 || r.Float("new_threads_second") != 0 || r.Float("first_s") < 0.1 || r.Float("second_s") < 0.1 {
		t.Errorf("first wave\n%v", f)
	}
}

func TestExerciseKnobsNameTheNotebooksKnobs(t *testing.T) {
	t.Parallel()
	if _, err := s001.Default.Hundred(-1); err == nil || !strings.Contains(err.Error(), "n100 (exercise 2's burst) must be in 1..10000, got -1") {
		t.Errorf("Hundred(-1): %v", err)
	}
	if h, err := s001.Default.Hundred(100); err != nil || h.N != 100 || h.Wait != 20*time.Millisecond {
		t.Errorf("Hundred(100) = %+v, %v", h, err)
	}
	bad := s001.Default
	bad.N = 0
	for name, err := range map[string]error{
		"deps": func() error { _, err := bad.Dependencies(); return err }(),
		"api":  func() error { _, err := bad.ExternalAPI(s001.API{Calls: 10, Latency: time.Millisecond}); return err }(),
		"calls": func() error {
			_, err := s001.Default.ExternalAPI(s001.API{Calls: 0, Latency: time.Millisecond})
			return err
		}(),
		"latency": func() error { _, err := s001.Default.ExternalAPI(s001.API{Calls: 1, Latency: -1}); return err }(),
		"first":   func() error { _, err := bad.FirstWave(); return err }(),
	} {
		want := map[string]string{"calls": "calls must be", "latency": "latency must be"}[name]
		if want == "" {
			want = "s001: n (requests sent at once) must be"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", name, err, want)
		}
	}
}
