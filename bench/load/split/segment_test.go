package split

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
)

func TestParseSegment(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    string // String(); "" is the whole run
		frac    float64
		wantErr bool
	}{
		{"", "", 1, false},
		{"0/1", "", 1, false},
		{"0/3", "0/3", 1.0 / 3, false},
		{"2/3", "2/3", 1.0 / 3, false},
		{" 1 / 4 ", "1/4", 0.25, false},
		{"0:1/3", "0/3", 1.0 / 3, false},
		{"1/3:2/3", "1/3", 1.0 / 3, false},
		{"0.5:1", "1/2", 0.5, false},
		{"0:2/3", "0:2/3", 2.0 / 3, false},
		{"3/3", "", 0, true},
		{"-1/3", "", 0, true},
		{"1/0", "", 0, true},
		{"a/3", "", 0, true},
		{"1", "", 0, true},
		{"2/3:1/3", "", 0, true},
		{"0:3/2", "", 0, true},
		{"0:1/3000001", "", 0, true},
	} {
		s, err := ParseSegment(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseSegment(%q) error %v; want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if s.String() != tc.want || s.Fraction() != tc.frac {
			t.Errorf("ParseSegment(%q) = %q (%v); want %q (%v)", tc.in, s, s.Fraction(), tc.want, tc.frac)
		}
	}
}

// The shares of N segments add up to the whole for every quantity: no
// rounding drift, whatever v and N.
func TestSegmentScaleSums(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 10, 64, 1000} {
		for _, v := range []int64{0, 1, 2, 5, 7, 10, 99, 1001, 123457, 1e8, 1 << 40} {
			var sum, lo, hi int64 = 0, v, 0
			for i := 0; i < n; i++ {
				s, err := NewSegment(i, n)
				if err != nil {
					t.Fatal(err)
				}
				x := s.Scale(v)
				sum += x
				lo, hi = min(lo, x), max(hi, x)
			}
			if sum != v {
				t.Errorf("N=%d v=%d: shares add up to %d", n, v, sum)
			}
			if hi-lo > 1 {
				t.Errorf("N=%d v=%d: shares range %d..%d; want within one of each other", n, v, lo, hi)
			}
		}
	}
	// Uneven segments tile too.
	var sum int64
	for _, spec := range []string{"0:1/6", "1/6:1/2", "1/2:0.9", "0.9:1"} {
		s, err := ParseSegment(spec)
		if err != nil {
			t.Fatal(err)
		}
		sum += s.Scale(1001)
	}
	if sum != 1001 {
		t.Errorf("uneven segments: %d; want 1001", sum)
	}
}

// Every arrival of the whole schedule goes to exactly one segment, at its
// time in the whole schedule: the union of the segments' due times is the
// whole's, for constant, Poisson and ramping pacers.
func TestSegmentPacerPartitions(t *testing.T) {
	dueTimes := func(p load.Pacer, limit int) []time.Duration {
		var out []time.Duration
		for hits := int64(0); len(out) < limit; hits++ {
			wait, stop := p.Pace(0, hits)
			if stop {
				break
			}
			out = append(out, wait)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		whole func() load.Pacer
	}{
		{"constant", func() load.Pacer { return load.ConstantPacer{PerSecond: 1000, Duration: time.Second} }},
		{"poisson", func() load.Pacer { return load.NewPoissonPacer(1000, time.Second, 7) }},
		{"stages", func() load.Pacer {
			return load.StagesPacer{Start: 100, Stages: []load.Stage{{Duration: 500 * time.Millisecond, Target: 2000}, {Duration: 500 * time.Millisecond, Target: 0}}}
		}},
	} {
		for _, n := range []int{1, 3, 7} {
			whole := dueTimes(tc.whole(), 1<<20)
			count := map[time.Duration]int{}
			for _, d := range whole {
				count[d]++
			}
			total := 0
			for i := 0; i < n; i++ {
				seg, _ := NewSegment(i, n)
				got := dueTimes(&segmentPacer{whole: tc.whole(), seg: seg}, 1<<20)
				total += len(got)
				for j, d := range got {
					if j > 0 && d < got[j-1] {
						t.Fatalf("%s N=%d segment %d: due times go back at %d", tc.name, n, i, j)
					}
					count[d]--
				}
			}
			if total != len(whole) {
				t.Errorf("%s N=%d: segments send %d arrivals; the whole %d", tc.name, n, total, len(whole))
			}
			for d, c := range count {
				if c != 0 {
					t.Errorf("%s N=%d: due time %v left %d times", tc.name, n, d, c)
					break
				}
			}
		}
	}
}

// planned is the requests a closed model's share plans (load's rule:
// VUs × Iterations, or Total, whichever is smaller; an empty share none).
func planned(m load.Model) int64 {
	switch m := m.(type) {
	case load.Closed:
		n := int64(0)
		if m.Iterations > 0 {
			n = int64(m.VUs) * int64(m.Iterations)
		}
		if m.Total > 0 && (n == 0 || int64(m.Total) < n) {
			n = int64(m.Total)
		}
		return n
	case load.Idle:
		return 0
	}
	panic(fmt.Sprintf("planned: %T", m))
}

// The planned requests of a closed model's segments add up to the whole's,
// for every mix of VUs, Iterations and Total, also with fewer VUs than
// segments: a segment without VUs is Idle, and Total is split along the
// VUs so no share of it is stranded there.
func TestSegmentClosedSharesAddUp(t *testing.T) {
	t.Parallel()
	for _, base := range []load.Closed{
		{VUs: 1, Total: 3},
		{VUs: 2, Total: 10},
		{VUs: 3, Iterations: 2},
		{VUs: 2, Iterations: 5, Total: 7},
		{VUs: 7, Iterations: 1, Total: 100},
		{VUs: 5, Total: 1},
	} {
		for _, vus := range []int{base.VUs, base.VUs + 4} {
			m := base
			m.VUs = vus
			want := planned(m)
			for _, n := range []int{1, 2, 3, 4, 7, 10} {
				var sum int64
				for i := 0; i < n; i++ {
					seg, _ := NewSegment(i, n)
					sm, err := seg.Apply(m)
					if err != nil {
						t.Fatal(err)
					}
					if _, idle := sm.(load.Idle); seg.Scale(int64(m.VUs)) == 0 && !idle {
						t.Errorf("%v over %d: segment %d has no VUs but is %v", m, n, i, sm)
					}
					sum += planned(sm)
				}
				if sum != want {
					t.Errorf("%v over %d segments: shares plan %d requests; the whole %d", m, n, sum, want)
				}
			}
		}
	}
}

// Any tiling of [0, 1) by FROM:TO segments, with mixed denominators, owns
// every arrival exactly once, and each segment's count of its arrivals
// (ownedBefore, which plans an open model) is the number it owns.
func TestSegmentMixedTilingsOwnOnce(t *testing.T) {
	for _, tiling := range [][]string{
		{"0:1/2", "1/2:2/3", "2/3:1"},
		{"0:1/3", "1/3:1/2", "1/2:1"},
		{"0:0.1", "0.1:1/7", "1/7:0.5", "1/2:999/1000", "0.999:1"},
		{"0/3", "1/3:1/2", "1/2:5/6", "5/6:1"},
		{"0/1"},
		{"0/2", "1/4:1/2", "2/4", "3/4"}, // overlapping on purpose: checked below
	} {
		segs := make([]Segment, len(tiling))
		for i, spec := range tiling {
			var err error
			if segs[i], err = ParseSegment(spec); err != nil {
				t.Fatal(err)
			}
		}
		tiles := true
		if tiling[0] == "0/2" {
			tiles = false // 0/2 is [0, 1/2), overlapping 1/4:1/2
		}
		const arrivals = 3000
		owners := make([]int, arrivals)
		for i, seg := range segs {
			owned := int64(0)
			for n := int64(0); n < arrivals; n++ {
				if seg.owns(n) {
					owners[n]++
					owned++
				}
				if n%97 == 0 || n == arrivals-1 {
					if got := seg.ownedBefore(n + 1); got != owned {
						t.Fatalf("%v segment %s: ownedBefore(%d) = %d; owns %d", tiling, tiling[i], n+1, got, owned)
					}
				}
			}
			// Low discrepancy: every segment's count is within a few of its fraction.
			if d := float64(owned) - seg.Fraction()*arrivals; d > 5 || d < -5 {
				t.Errorf("%v segment %s: owns %d of %d; want about %.1f", tiling, tiling[i], owned, arrivals, seg.Fraction()*arrivals)
			}
		}
		bad := 0
		for _, c := range owners {
			if c != 1 {
				bad++
			}
		}
		if tiles && bad != 0 {
			t.Errorf("%v: %d of %d arrivals owned by no segment or by two", tiling, bad, arrivals)
		}
		if !tiles && bad == 0 {
			t.Errorf("%v: overlapping segments own every arrival once", tiling)
		}
	}
	// The counts are exact for long schedules too (O(log m), not a scan).
	seg, _ := ParseSegment("1/3:0.7")
	whole := int64(1e12)
	var sum int64
	for _, spec := range []string{"0:1/3", "1/3:0.7", "0.7:1"} {
		s, _ := ParseSegment(spec)
		sum += s.ownedBefore(whole)
	}
	if sum != whole {
		t.Errorf("counts over 1e12 arrivals add up to %d", sum)
	}
	if got, want := seg.ownedBefore(whole), int64(float64(whole)*(0.7-1.0/3)); got < want-100 || got > want+100 { // discrepancy O(log m)
		t.Errorf("1/3:0.7 owns %d of 1e12; want about %d", got, want)
	}
}

// A ramp's VU level split over segments adds up to the whole's level at
// every instant, and each share's Max is the most it runs.
func TestSegmentRampLevels(t *testing.T) {
	t.Parallel()
	m := load.RampingVUs{Start: 5, Stages: []load.Stage{{Duration: time.Second, Target: 17}, {Duration: time.Second, Target: 3}}}
	whole := load.StagesVUs{Start: m.Start, Stages: m.Stages}
	for _, n := range []int{2, 3, 4, 7, 40} {
		shares := make([]load.VUSchedule, n)
		for i := range shares {
			seg, _ := NewSegment(i, n)
			sm, err := seg.Apply(m)
			if err != nil {
				t.Fatal(err)
			}
			if r, ok := sm.(load.RampingVUs); ok {
				shares[i] = r.Schedule
			}
		}
		rng := rand.New(rand.NewSource(int64(n)))
		for trial := 0; trial < 200; trial++ {
			at := time.Duration(rng.Int63n(int64(2 * time.Second)))
			w, _ := whole.VUs(at)
			sum := 0
			for i, sh := range shares {
				if sh == nil {
					continue // an empty share: Idle
				}
				v, _ := sh.VUs(at)
				if v > sh.Max() {
					t.Fatalf("N=%d segment %d at %v: %d VUs, above its Max %d", n, i, at, v, sh.Max())
				}
				sum += v
			}
			if sum != w {
				t.Fatalf("N=%d at %v: segments run %d VUs; the whole %d", n, at, sum, w)
			}
		}
	}
}

func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1) }))
	t.Cleanup(srv.Close)
	return srv, &n
}

func hasWarning(res *metrics.Result, sub string) bool {
	for _, w := range res.Warnings {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

// Run: N segments of a model send, together, exactly the requests of the
// whole.
func TestRunSegmentsAddUp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		model load.Model
		n     int
		want  int64
	}{
		{"closed total", load.Closed{VUs: 7, Total: 101}, 3, 101},
		{"closed iterations", load.Closed{VUs: 5, Iterations: 4}, 3, 20},
		{"closed 1 VU over 3", load.Closed{VUs: 1, Iterations: 5}, 3, 5},
		{"closed 1 VU total over 3", load.Closed{VUs: 1, Total: 3}, 3, 3},
		{"closed 2 VUs total over 3", load.Closed{VUs: 2, Total: 10}, 3, 10},
		{"closed 2 VUs iterations and total over 5", load.Closed{VUs: 2, Iterations: 4, Total: 7}, 5, 7},
		{"burst", load.Burst{N: 10}, 4, 10},
		{"sequential", load.Sequential{N: 11}, 2, 11},
		{"open", load.Open{Rate: 200, Duration: 300 * time.Millisecond}, 3, 60},
		{"ramping rate", load.RampingRate{Start: 0, Stages: []load.Stage{{Duration: 200 * time.Millisecond, Target: 400}, {Duration: 200 * time.Millisecond, Target: 0}}}, 3, 80},
	} {
		srv, served := countingServer(t)
		var sum, dropped int64
		empty := 0
		for i := 0; i < tc.n; i++ {
			seg, _ := NewSegment(i, tc.n)
			res, err := Run(context.Background(), load.Target{URL: srv.URL}, tc.model, load.Options{}, Agent{Segment: seg})
			if err != nil {
				t.Fatalf("%s segment %v: %v", tc.name, seg, err)
			}
			sum += res.Count()
			dropped += res.Dropped
			if res.Count() == 0 && res.Dropped == 0 {
				empty++
				if !hasWarning(res, "no share") {
					t.Errorf("%s segment %v: empty, without a warning: %q", tc.name, seg, res.Warnings)
				}
			}
			if want := tc.model.String() + " segment " + seg.String(); res.Labels["load"] != want {
				t.Errorf("%s: load label %q; want %q", tc.name, res.Labels["load"], want)
			}
		}
		// An open model's arrival that a loaded machine could not start
		// before the planned end is dropped, never sent late: sent + dropped
		// is the exact invariant.
		open := strings.HasPrefix(tc.name, "open") || strings.HasPrefix(tc.name, "ramping")
		if sum+dropped != tc.want || served.Load() != sum || (dropped != 0 && !open) {
			t.Errorf("%s over %d segments: %d requests counted, %d dropped, %d served; want %d", tc.name, tc.n, sum, dropped, served.Load(), tc.want)
		}
		if tc.name == "closed 1 VU over 3" && empty != 2 {
			t.Errorf("%s: %d empty segments; want 2", tc.name, empty)
		}
	}
}

// A ramp split over two segments: each agent's VU gauge is its share of
// the whole's level, ending at its share of the last target.
func TestRunSegmentRamp(t *testing.T) {
	t.Parallel()
	srv, _ := countingServer(t)
	m := load.RampingVUs{Stages: []load.Stage{{Duration: 300 * time.Millisecond, Target: 5}}, Think: 20 * time.Millisecond}
	for i, want := range []float64{2, 3} {
		seg, _ := NewSegment(i, 2)
		res, err := Run(context.Background(), load.Target{URL: srv.URL}, m, load.Options{}, Agent{Segment: seg})
		if err != nil {
			t.Fatal(err)
		}
		// The ramp reaches its last VU at its very end, which the last
		// series tick may or may not see: the split's exact levels are
		// TestSegmentRampLevels'; here, the share is never passed.
		gauges := res.Series().Floats("vus")
		if len(gauges) == 0 || res.Count() == 0 {
			t.Errorf("segment %v: gauges %v, %d requests; want a series and requests", seg, gauges, res.Count())
		}
		for _, g := range gauges {
			if g > want {
				t.Errorf("segment %v: gauge %v above its share %v", seg, g, want)
			}
		}
	}
}
