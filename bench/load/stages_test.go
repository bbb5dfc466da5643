package load

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseStage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Stage
		err  string
	}{
		{"30s:100", Stage{30 * time.Second, 100}, ""},
		{" 1m30s : 0 ", Stage{90 * time.Second, 0}, ""},
		{"500ms:2.5", Stage{500 * time.Millisecond, 2.5}, ""},
		{"30s", Stage{}, "want DURATION:TARGET"},
		{"", Stage{}, "want DURATION:TARGET"},
		{":100", Stage{}, "positive duration"},
		{"0s:100", Stage{}, "positive duration"},
		{"-1s:100", Stage{}, "positive duration"},
		{"soon:100", Stage{}, "positive duration"},
		{"30s:", Stage{}, "want a number ≥ 0"},
		{"30s:-1", Stage{}, "want a number ≥ 0"},
		{"30s:NaN", Stage{}, "want a number ≥ 0"},
		{"30s:+Inf", Stage{}, "want a number ≥ 0"},
		{"30s:many", Stage{}, "want a number ≥ 0"},
		{"30s:1:2", Stage{}, "want a number ≥ 0"},
	} {
		got, err := ParseStage(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseStage(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "stage")):
			t.Errorf("ParseStage(%q) error %v; want one naming the stage and %q", tc.in, err, tc.err)
		}
	}
	if _, err := ParseStages("1s:1", "x"); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("ParseStages: %v", err)
	}
}

// Any input parses to a valid stage or is an error naming it.
func FuzzParseStage(f *testing.F) {
	for _, s := range []string{"30s:100", "1m:0", "1h2m3s:1e3", ":", "0:0", "1ns:1e308"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStage(s)
		if err != nil {
			if !strings.Contains(err.Error(), "stage") {
				t.Errorf("error %q does not name the stage", err)
			}
			return
		}
		if st.Duration <= 0 || st.Target < 0 || math.IsNaN(st.Target) || math.IsInf(st.Target, 0) {
			t.Errorf("ParseStage(%q) = %+v: not a valid stage", s, st)
		}
	})
}

// The series show each stage's level: rows that close while a stage holds
// a level report it exactly, for VUs and for rates (a row's gauge is the
// schedule's level at its end, however late the cut ran); no row is
// beyond the stages.
func TestStagesInSeries(t *testing.T) {
	t.Parallel()
	srv := sleepServer(t, 5*time.Millisecond)
	const iv = 100 * time.Millisecond
	for _, tc := range []struct {
		name  string
		model Model
		gauge string
		holds []struct {
			from, to time.Duration
			level    float64
		}
	}{
		{"vus", RampingVUs{Start: 0, Stages: []Stage{{200 * time.Millisecond, 2}, {time.Second, 2}, {200 * time.Millisecond, 6}, {time.Second, 6}}}, "vus",
			[]struct {
				from, to time.Duration
				level    float64
			}{{300 * time.Millisecond, 1100 * time.Millisecond, 2}, {1500 * time.Millisecond, 2300 * time.Millisecond, 6}}},
		{"rate", RampingRate{Start: 0, Stages: []Stage{{200 * time.Millisecond, 100}, {time.Second, 100}, {200 * time.Millisecond, 300}, {time.Second, 300}}}, "target_rps",
			[]struct {
				from, to time.Duration
				level    float64
			}{{300 * time.Millisecond, 1100 * time.Millisecond, 100}, {1500 * time.Millisecond, 2300 * time.Millisecond, 300}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(context.Background(), Target{URL: srv.URL}, tc.model, Options{Interval: iv})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Series()
			seen := map[float64]int{}
			for i := 0; i < s.Len(); i++ {
				end := time.Duration((s.Float("t_s", i) + s.Float("interval_s", i)) * float64(time.Second))
				g := s.Float(tc.gauge, i)
				for _, h := range tc.holds {
					if end >= h.from && end <= h.to {
						seen[h.level]++
						if g != h.level {
							t.Errorf("row ending at %v (held stage %v): %s = %v", end, h.level, tc.gauge, g)
						}
					}
				}
				if g < 0 || g > 6 && tc.gauge == "vus" || g > 300 {
					t.Errorf("row ending at %v: %s = %v, beyond the stages", end, tc.gauge, g)
				}
			}
			if len(seen) != 2 {
				t.Errorf("no row closed inside each held stage: %v\n%v", seen, s)
			}
		})
	}
	// The open ramp sends exactly its plan: ∫ = 10 + 30 + 40 + 90 = 170.
	res, err := Run(context.Background(), Target{URL: srv.URL},
		RampingRate{Start: 0, Stages: []Stage{{200 * time.Millisecond, 100}, {300 * time.Millisecond, 100}, {200 * time.Millisecond, 300}, {300 * time.Millisecond, 300}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Count() + res.Dropped; n != 170 {
		t.Errorf("sent %d + dropped %d; want the 170 arrivals planned", res.Count(), res.Dropped)
	}
}
