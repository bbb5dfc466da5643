package charts

import (
	"testing"
	"time"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
)

func TestSeriesName(t *testing.T) {
	t.Parallel()
	sync := map[string]string{"strategy": "sync", "workload": "print", "load": "burst 10"}
	async := map[string]string{"strategy": "asyncio", "workload": "print", "load": "burst 10"}
	none := map[string]string{"strategy": "none", "workload": "no print", "load": "burst 10"}
	expectNone := map[string]string{"strategy": "none", "workload": "no print"}
	for _, c := range []struct {
		labels map[string]string
		sets   []map[string]string
		want   string
	}{
		{sync, []map[string]string{sync, async}, "sync"},
		{sync, []map[string]string{sync, async, none}, "sync · print"},
		// An expected run's workload counts before it has started; its
		// missing load label does not.
		{sync, []map[string]string{expectNone, sync}, "sync · print"},
		{map[string]string{"strategy": "a", "machine": "x"}, []map[string]string{{"strategy": "a", "machine": "x"}, {"strategy": "b", "machine": "y"}}, "a · x"},
		{map[string]string{}, nil, "series"},
	} {
		if got := seriesName(c.labels, c.sets); got != c.want {
			t.Errorf("seriesName(%v, %v) = %q; want %q", c.labels, c.sets, got, c.want)
		}
	}
}

func cut(start time.Duration, n int64, p95 time.Duration) *metrics.Cut {
	iv := &metrics.Interval{Start: start, Length: 100 * time.Millisecond}
	iv.N = n
	iv.Latency.Count, iv.Latency.P95 = n, p95
	return &metrics.Cut{Interval: iv}
}

// A repeat of a run (same labels) replaces its points; Stop draws what
// came since the last redraw, once.
func TestLiveTimelineRepeatAndStop(t *testing.T) {
	lt := NewLiveTimeline().SetEvery(time.Hour)
	// As if it had just drawn: the drawing loop the first row starts waits
	// an hour instead of drawing at once, so every row below is still
	// pending when Stop comes, whenever that goroutine gets to run.
	lt.last = time.Now()
	plan := load.Plan{Labels: map[string]string{"strategy": "sync"}}
	lt.OnStart(plan)
	lt.OnInterval(cut(0, 10, 5*time.Millisecond))
	lt.OnInterval(cut(100*time.Millisecond, 20, 6*time.Millisecond))
	lt.OnStart(plan) // repeat 2
	lt.OnInterval(cut(0, 30, 7*time.Millisecond))
	lt.mu.Lock()
	f := lt.frameLocked()
	lt.mu.Unlock()
	if f.Len() != 1 || f.Float("rps", 0) != 300 || f.Float("p95_ms", 0) != 7 {
		t.Fatalf("after a repeat: %d rows, rps %v, p95 %v; want the repeat's one row (300, 7)", f.Len(), f.Float("rps", 0), f.Float("p95_ms", 0))
	}
	// No publisher: Stop's draw fails with ErrNoPublisher, and it is the only one.
	if err := lt.Stop(); err == nil {
		t.Error("Stop with rows pending and no publisher: want the Show's error")
	}
	if err := lt.Stop(); err != nil {
		t.Errorf("Stop twice: %v", err)
	}
	if n := lt.Draws(); n != 0 {
		t.Errorf("%d live redraws within the hour; want 0", n)
	}
	lt.OnInterval(cut(time.Second, 1, time.Millisecond)) // after Stop: ignored
	lt.mu.Lock()
	n := len(lt.runs[0].t)
	lt.mu.Unlock()
	if n != 1 {
		t.Errorf("a point after Stop was kept (%d points)", n)
	}
}
