package cpython

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
)

// maxOverlap is the most intervals of phase open at once for one strategy
// of a trace frame.
func maxOverlap(f *frame.Frame, strategy, phase string) int {
	g := f.Where("strategy", strategy).Where("phase", phase)
	best := 0
	for i := 0; i < g.Len(); i++ {
		n := 0
		t := g.Float("start_ms", i)
		for j := 0; j < g.Len(); j++ {
			if g.Float("start_ms", j) <= t && g.Float("end_ms", j) > t {
				n++
			}
		}
		best = max(best, n)
	}
	return best
}

// waves is trace.Waves of one strategy's phase in a trace frame.
func waves(f *frame.Frame, strategy, phase string) []int {
	return trace.Waves(bench.EventsOf(f, strategy), phase)
}

// Source 002's clients on the model: a pool of 30 makes 100 checks in four
// waves; the sequential client one at a time; gather all at once.
func TestTrace002(t *testing.T) {
	t.Parallel()
	f, err := Trace002(context.Background(), 100*time.Millisecond, []Case002{
		{Mode: Sequential, N: 4}, {Mode: Threads, Workers: 30, N: 100}, {Mode: AsyncIO, N: 100},
	})
	if err != nil {
		t.Fatal(err)
	}
	seq, pool, all := Client002Label(Sequential, 0), Client002Label(Threads, 30), Client002Label(AsyncIO, 0)
	if got := waves(f, pool, "io"); !slices.Equal(got, []int{30, 30, 30, 10}) {
		t.Errorf("%s: waves of checks %v; want [30 30 30 10]", pool, got)
	}
	if got := maxOverlap(f, seq, "io"); got != 1 {
		t.Errorf("%s: %d checks at once; want 1", seq, got)
	}
	if got := waves(f, all, "io"); !slices.Equal(got, []int{100}) {
		t.Errorf("%s: waves %v; want [100]", all, got)
	}
}

// Source 004 on the model: posts sent one at a time never overlap in the
// app, whatever the app; aiohttp's do.
func TestModel004Traced(t *testing.T) {
	t.Parallel()
	sum, tr, err := Model004Traced(context.Background(), "", 20*time.Millisecond, 6)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < sum.Len(); i++ {
		name := sum.Text("strategy", i)
		got := maxOverlap(tr, name, "handler")
		if sum.Text("client", i) == "aiohttp client" {
			if got < 2 {
				t.Errorf("%s: %d handlers at once; want the posts to overlap", name, got)
			}
		} else if got != 1 {
			t.Errorf("%s: %d handlers at once; want 1 (one post at a time)", name, got)
		}
	}
}

// The real app's middleware traces what the model's trace shows: on
// uvicorn, a burst of 100 on /sync-sleep runs at most 40 handlers at once
// (AnyIO's limiter), in three waves; /async-block's handlers never overlap.
func TestTraceBurstReal(t *testing.T) {
	needPython(t, "fastapi", "uvicorn")
	t.Parallel()
	wait := 300 * time.Millisecond
	f, err := TraceBurst(context.Background(), Options{}, App001(wait), "/sync-sleep", 100, "real /sync-sleep")
	if err != nil {
		t.Fatal(err)
	}
	if got := maxOverlap(f, "real /sync-sleep", "handler"); got != 40 {
		t.Errorf("real /sync-sleep: %d handlers at once; want 40", got)
	}
	if got := waves(f, "real /sync-sleep", "handler"); !slices.Equal(got, []int{40, 40, 20}) {
		t.Errorf("real /sync-sleep: waves %v; want [40 40 20]", got)
	}
	threads := map[string]bool{}
	h := f.Where("phase", "handler")
	for i := 0; i < h.Len(); i++ {
		threads[h.Text("thread", i)] = true
	}
	if len(threads) != 40 || !threads["anyio-1"] || !threads["anyio-40"] {
		t.Errorf("real /sync-sleep ran on %d threads (%v); want anyio-1 .. anyio-40", len(threads), threads)
	}
	if n := f.Where("phase", "queue").Len(); n != 100 {
		t.Errorf("queue intervals = %d; want 100", n)
	}
	b, err := TraceBurst(context.Background(), Options{}, App001(50*time.Millisecond), "/async-block", 6, "real /async-block")
	if err != nil {
		t.Fatal(err)
	}
	if got := maxOverlap(b, "real /async-block", "handler"); got != 1 {
		t.Errorf("real /async-block: %d handlers at once; want 1", got)
	}
	if got := b.Where("phase", "handler").Where("thread", "loop").Len(); got != 6 {
		t.Errorf("real /async-block: %d handlers on the loop; want 6", got)
	}
}
