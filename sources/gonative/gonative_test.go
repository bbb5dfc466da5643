package gonative_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/sources/gonative"
	"github.com/conclab/conclab/sources/shape"
)

// A default run (the CPU burst's knobs at the lesson's defaults, the I/O
// burst's wait shortened): the shape, from the knobs.
func TestShape(t *testing.T) {
	k := gonative.Default
	// 60 ms: long beside what a crowded machine adds to each wave (at
	// 30 ms, bounded's ten waves came out at 16.1 waits under a load
	// average of 10, above the band's 15.5).
	k.Wait = 60 * time.Millisecond
	r, err := k.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Len() != 3+len(k.Procs) {
		t.Fatalf("%d rows\n%v", r.Summary.Len(), r.Summary)
	}
	checks := k.Checks(r)
	if err := shape.Err("go-native", checks...); err != nil {
		t.Errorf("%v\n%v", err, r.Summary)
	}
	orderings := 0
	for _, c := range checks {
		if strings.Contains(c.What, " faster than ") {
			orderings++
		}
	}
	if orderings != 2 {
		t.Errorf("%d ordering checks; want goroutines < bounded < serial\n%v", orderings, shape.Frame("checks", checks...))
	}
	turns := r.Turns.Frame(1)
	if turns.Len() != k.Burns {
		t.Fatalf("turns: %d burns\n%v", turns.Len(), turns)
	}
	for _, row := range turns.Rows() {
		if ran := row.Float("ran_ms"); ran < 0.95*float64(k.Burn.Milliseconds()) {
			t.Errorf("burn %v ran %v ms; want its %v", row.Float("burn"), ran, k.Burn)
		}
	}
	if tr := r.Turns.Trace(1); tr.Len() < k.Burns {
		t.Errorf("trace of the slices: %d rows", tr.Len())
	}
}

func TestFanOut(t *testing.T) {
	t.Parallel()
	k := gonative.Knobs{N: 20, Wait: 50 * time.Millisecond, Limit: 5, Burns: 1, Burn: time.Millisecond, Procs: []int{1}}
	first := func(ctx context.Context, urls []string) error {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		errs := make(chan error, len(urls))
		for _, u := range urls {
			go func() { _, err := gonative.Call(ctx, u); errs <- err }()
		}
		for range urls {
			if err := <-errs; err != nil {
				cancel(err)
			}
		}
		return context.Cause(ctx)
	}
	f, err := k.FanOut(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{"all": {1, 20}, "pool 5": {4, 30}, "sequential": {20, 60}, "first error": {0, 19}}
	for _, row := range f.Rows() {
		w, ok := want[row.Text("strategy")]
		if !ok || row.Float("waits") < w[0] || row.Float("waits") > w[1] {
			t.Errorf("%s: %v waits; want %v", row.Text("strategy"), row.Float("waits"), w)
		}
	}
	if f.Len() != 4 || f.Float("errors", 3) != 1 || f.Float("errors", 0) != 0 {
		t.Errorf("\n%v", f)
	}
	if _, err := k.FanOut(context.Background(), func(context.Context, []string) error { return nil }); err == nil {
		t.Error("a firstError that returns nil: no error")
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		k    gonative.Knobs
		want string
	}{
		{gonative.Knobs{N: -1}, "n must"},
		{gonative.Knobs{N: 1, Wait: 0}, "wait"},
		{gonative.Knobs{N: 1, Wait: 1, Limit: 0}, "limit"},
		{gonative.Knobs{N: 1, Wait: 1, Limit: 1, Burns: 0}, "burns"},
		{gonative.Knobs{N: 1, Wait: 1, Limit: 1, Burns: 1, Burn: -1}, "burn must"},
		{gonative.Knobs{N: 1, Wait: 1, Limit: 1, Burns: 1, Burn: 1, Procs: []int{0}}, "procs"},
	} {
		err := c.k.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.k, err, c.want)
		}
		if _, err := c.k.Run(context.Background()); err == nil {
			t.Errorf("%+v: Run ran", c.k)
		}
	}
	if err := gonative.Default.Validate(); err != nil {
		t.Error(errors.Unwrap(err), err)
	}
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	k := gonative.Knobs{N: 100, Wait: 100 * time.Millisecond, Limit: 10, Burns: 20, Burn: 40 * time.Millisecond, Procs: []int{1}}
	f := k.Estimate()
	if w := f.Floats("waves"); w[0] != 1 || w[1] != 10 || w[2] != 100 || w[3] != 20 {
		t.Errorf("waves %v", w)
	}
	if f.Float("floor_ms", 3) != 800 || f.Float("first_ms", 3) != 40 || f.Float("avg_ms", 3) != 420 {
		t.Errorf("cpu row\n%v", f)
	}
	if first := f.Float("turns_first_ms", 3); first != 800-19*10 {
		t.Errorf("turns_first_ms %v", first)
	}
}
