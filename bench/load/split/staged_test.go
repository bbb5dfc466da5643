package split

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
)

// runAgents runs m over n agents from one start, logging, and merges the
// logs.
func runAgents(t *testing.T, url string, m load.Model, n int, o load.Options) (*metrics.Result, []*metrics.Result) {
	t.Helper()
	o.StartAt = time.Now().Add(200 * time.Millisecond)
	logs := make([]*bytes.Buffer, n)
	results := make([]*metrics.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range logs {
		logs[i] = &bytes.Buffer{}
		seg, _ := NewSegment(i, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = Run(context.Background(), load.Target{URL: url}, m, o, Agent{Segment: seg, Log: logs[i]})
		}()
	}
	wg.Wait()
	readers := make([]io.Reader, n)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("agent %d: %v", i, err)
		}
		readers[i] = logs[i]
	}
	merged, err := Merge(readers...)
	if err != nil {
		t.Fatal(err)
	}
	return merged, results
}

// A staged run split over 3 agents and merged equals one agent running
// the whole: the same arrivals (sent + dropped, exactly), and in the rows
// where a stage holds its level, the merged gauge is the whole's level
// (each agent's share, added; for ramping VUs the levels split exactly).
func TestStagedSegmentsMerge(t *testing.T) {
	t.Parallel()
	srv, _ := countingServer(t)
	for _, tc := range []struct {
		name  string
		model load.Model
		gauge string
		holds map[float64][2]time.Duration // level: the window of row ends inside its hold
	}{
		{"ramping rate", load.RampingRate{Start: 0, Stages: []load.Stage{{Duration: 200 * time.Millisecond, Target: 90}, {Duration: 800 * time.Millisecond, Target: 90},
			{Duration: 200 * time.Millisecond, Target: 210}, {Duration: 800 * time.Millisecond, Target: 210}}}, "target_rps",
			map[float64][2]time.Duration{90: {350 * time.Millisecond, 850 * time.Millisecond}, 210: {1350 * time.Millisecond, 1850 * time.Millisecond}}},
		{"ramping VUs", load.RampingVUs{Start: 0, Think: 10 * time.Millisecond, Stages: []load.Stage{{Duration: 200 * time.Millisecond, Target: 4},
			{Duration: 800 * time.Millisecond, Target: 4}, {Duration: 200 * time.Millisecond, Target: 7}, {Duration: 800 * time.Millisecond, Target: 7}}}, "vus",
			map[float64][2]time.Duration{4: {350 * time.Millisecond, 850 * time.Millisecond}, 7: {1350 * time.Millisecond, 1850 * time.Millisecond}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := load.Options{Interval: 100 * time.Millisecond}
			merged, agents := runAgents(t, srv.URL, tc.model, 3, o)
			whole, err := load.Run(context.Background(), load.Target{URL: srv.URL}, tc.model, o)
			if err != nil {
				t.Fatal(err)
			}
			var sum int64
			for _, a := range agents {
				sum += a.Count() + a.Dropped
			}
			if merged.Count()+merged.Dropped != sum || merged.Labels["load"] != tc.model.String() {
				t.Errorf("merged %d + %d dropped, %q; the agents %d", merged.Count(), merged.Dropped, merged.Labels["load"], sum)
			}
			if _, open := tc.model.(load.RampingRate); open && merged.Count()+merged.Dropped != whole.Count()+whole.Dropped {
				t.Errorf("merged %d sent + %d dropped; one agent running the whole: %d + %d", merged.Count(), merged.Dropped, whole.Count(), whole.Dropped)
			}
			// On a loaded machine an agent's interval can run long (its cut
			// came late) and then no longer says each row's level: a merged
			// row is checked when every agent cut on time around its end (on
			// a saturated machine, under the race detector, there may be
			// none; the whole run's rows are always checked).
			onTime := func(end time.Duration) bool {
				for _, a := range agents {
					ok := false
					for _, iv := range a.Intervals {
						e := iv.Start + iv.Length + a.Start.Sub(merged.Start)
						if d := e - end; d > -25*time.Millisecond && d < 25*time.Millisecond && iv.Length > 75*time.Millisecond && iv.Length < 125*time.Millisecond {
							ok = true
						}
					}
					if !ok {
						return false
					}
				}
				return true
			}
			for _, res := range []*metrics.Result{merged, whole} {
				s := res.Series()
				seen := map[float64]bool{}
				checked := 0
				for i := 0; i < s.Len(); i++ {
					end := time.Duration((s.Float("t_s", i) + s.Float("interval_s", i)) * float64(time.Second))
					for level, w := range tc.holds {
						if end >= w[0] && end <= w[1] && (res == whole || onTime(end)) {
							seen[level] = true
							checked++
							if g := s.Float(tc.gauge, i); g != level {
								t.Errorf("%s row ending at %v: %s %v; want the held %v", res.Labels["load"], end, tc.gauge, g, level)
							}
						}
					}
				}
				if res == whole && len(seen) != len(tc.holds) {
					t.Errorf("%s: no row inside each hold: %v\n%v", res.Labels["load"], seen, s)
				}
				t.Logf("%s: %d held rows checked", res.Labels["load"], checked)
			}
		})
	}
}
