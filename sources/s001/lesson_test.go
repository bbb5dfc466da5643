package s001_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/sources/s001"
)

func TestListingMarksTheBlockingSleep(t *testing.T) {
	t.Parallel()
	d, err := s001.Listing()
	if err != nil {
		t.Fatal(err)
	}
	md, _ := d.Data["text/markdown"].(string)
	var marked []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasSuffix(l, "# ◀") {
			marked = append(marked, l)
		}
	}
	if len(marked) != 1 || !strings.Contains(marked[0], "time.sleep(") {
		t.Fatalf("marked lines %q; want the one time.sleep inside async def", marked)
	}
	for _, ep := range s001.Endpoints() {
		if !strings.Contains(md, `@app.get("`+ep+`")`) {
			t.Errorf("listing lacks %s", ep)
		}
	}
	// The mark is the line after "async def async_block".
	if i := strings.Index(md, "async def async_block"); i < 0 || !strings.Contains(md[i:], marked[0]) {
		t.Errorf("the mark is not inside async_block:\n%s", md)
	}
}

func TestLessonRefusesBadKnobs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		k    s001.Knobs
		want string
	}{
		{"negative n", s001.Knobs{N: -1, Wait: time.Second, Limiter: 40, CPUs: 8}, "s001: n (requests sent at once) must be in 1..10000, got -1"},
		{"no wait", s001.Knobs{N: 10, Wait: 0, Limiter: 40, CPUs: 8}, "s001: wait must be"},
		{"no tokens", s001.Knobs{N: 10, Wait: time.Second, Limiter: 0, CPUs: 8}, "s001: tokens (AnyIO's limiter) must be"},
		{"no cpus", s001.Knobs{N: 10, Wait: time.Second, Limiter: 40, CPUs: 0}, "s001: cpus must be"},
	} {
		if _, err := tc.k.Lesson(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	e, err := s001.Default.Lesson()
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Strategies) != 2*len(s001.Endpoints()) {
		t.Errorf("%d strategies; want a model and a real row per endpoint", len(e.Strategies))
	}
	one, err := s001.Default.Lesson(s001.Offload)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Strategies) != 2 || one.Strategies[0].Label() != s001.Offload || one.Strategies[1].Label() != "real "+s001.Offload {
		t.Errorf("Lesson(/offload): %d strategies", len(one.Strategies))
	}
	if _, err := s001.Default.Lesson("/nope"); err == nil || !strings.Contains(err.Error(), `unknown endpoint "/nope"`) {
		t.Errorf("Lesson(/nope): err = %v", err)
	}
}

// Concurrency on a model run: what the trace says matches the arithmetic
// for every endpoint, with knobs other than the source's.
func TestConcurrencyMatchesTheArithmetic(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the model")
	}
	k := s001.Knobs{N: 8, Wait: 60 * time.Millisecond, Limiter: 3, CPUs: 1} // executor: min(32, 1+4) = 5
	res, err := bench.Run(context.Background(), k.Experiment())
	if err != nil {
		t.Fatal(err)
	}
	f := k.Concurrency(res)
	want := map[string][2]float64{ // waits at once, estimated waves
		s001.SyncSleep: {3, 3}, s001.AsyncBlock: {1, 8}, s001.AsyncOK: {8, 1}, s001.Offload: {5, 2},
	}
	for ep, w := range want {
		got, err := f.Lookup("strategy", ep)
		if err != nil {
			t.Fatal(err)
		}
		if got.Float("waits_at_once") != w[0] || got.Float("est_waves") != w[1] {
			t.Errorf("%s: waits at once %v, est waves %v; want %v", ep, got.Float("waits_at_once"), got.Float("est_waves"), w)
		}
		if got.Float("waves") < 0.95*w[1] {
			t.Errorf("%s: measured %.2f waves, fewer than the %v the arithmetic allows", ep, got.Float("waves"), w[1])
		}
	}
}

// Knobs out of range give an estimate, not a panic (Validate names them).
func TestEstimateOutOfRangeDoesNotPanic(t *testing.T) {
	t.Parallel()
	for _, k := range []s001.Knobs{{N: 10, Wait: time.Second, Limiter: 0, CPUs: 8}, {N: -1, Wait: time.Second, Limiter: 40, CPUs: 0}} {
		if f := k.Estimate(); f.Len() != len(s001.Endpoints()) {
			t.Errorf("%+v: %d rows", k, f.Len())
		}
		if k.Validate() == nil {
			t.Errorf("%+v: Validate passed", k)
		}
	}
}
