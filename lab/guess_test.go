package lab_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/lab"
)

func TestGuessFrames(t *testing.T) {
	t.Parallel()
	g := map[string]float64{"/a": 2, "/b": 0, "/c": 0.5}
	for _, tc := range []struct {
		name   string
		guess  lab.Guessed
		metric string
		want   map[string]float64 // row → value; rows absent are not in the frame
	}{
		{"as given", lab.Guess(g), "elapsed_s", map[string]float64{"/a": 2, "/c": 0.5}},
		{"seconds per wait", lab.Guess(g).Per(500 * time.Millisecond), "waits", map[string]float64{"/a": 4, "/c": 1}},
		{"ms per wait", lab.Guess(map[string]float64{"/a": 250}).In(time.Millisecond).Per(100 * time.Millisecond), "waits", map[string]float64{"/a": 2.5}},
		{"seconds to ms", lab.Guess(g).In(time.Second), "avg_ms", map[string]float64{"/a": 2000, "/c": 500}},
		{"ms to seconds", lab.Guess(map[string]float64{"/a": 250}).In(time.Millisecond), "elapsed_s", map[string]float64{"/a": 0.25}},
		{"ms left alone on a unitless metric", lab.Guess(map[string]float64{"/a": 250}).In(time.Millisecond), "waits", map[string]float64{"/a": 250}},
		// X = N / (R + Z): 10 / (2 + 0.5) = 4; 10 / (0.5 + 0.5) = 10.
		{"Little", lab.Guess(g).Little(10, 500*time.Millisecond), "rps", map[string]float64{"/a": 4, "/c": 10}},
		{"Little in ms", lab.Guess(map[string]float64{"/a": 1500}).In(time.Millisecond).Little(5, time.Second), "rps", map[string]float64{"/a": 2}},
		{"Little's rates are not rescaled", lab.Guess(map[string]float64{"/a": 1500}).In(time.Millisecond).Little(5, time.Second), "rps_ms", map[string]float64{"/a": 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := tc.guess.FrameFor(tc.metric)
			if f.Name != "your guess" {
				t.Errorf("name %q", f.Name)
			}
			if f.Len() != len(tc.want) {
				t.Fatalf("%d rows, want %d:\n%v", f.Len(), len(tc.want), f)
			}
			for row, want := range tc.want {
				got, err := f.Get("strategy", row, tc.metric)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("%s = %v, want %v", row, got, want)
				}
			}
		})
	}
}

func TestGuessIsAValue(t *testing.T) {
	t.Parallel()
	in := map[string]float64{"/a": 2}
	g := lab.Guess(in)
	in["/a"] = 7 // the learner's map changing later does not change the guess
	_ = g.Per(time.Second)
	if v, ok := g.Value("/a"); !ok || v != 2 {
		t.Errorf("Value = %v %v, want 2 true", v, ok)
	}
	if _, ok := g.Value("/none"); ok {
		t.Error("a row never guessed reads as guessed")
	}
	if got := lab.Guess(map[string]float64{"/b": 0, "/a": 1, "/c": 3}).Rows(); !slices.Equal(got, []string{"/a", "/c"}) {
		t.Errorf("Rows = %v", got)
	}
}

func TestGuessBadKnobsAreNaNNotPanics(t *testing.T) {
	t.Parallel()
	g := lab.Guess(map[string]float64{"/a": 1})
	for name, d := range map[string]lab.Guessed{"Per(0)": g.Per(0), "Little(0 users)": g.Little(0, time.Second), "Little(negative)": lab.Guess(map[string]float64{"/a": -2}).Little(1, time.Second)} {
		if v, _ := d.Value("/a"); !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN", name, v)
		}
	}
}

func TestGuessBesideMeasurement(t *testing.T) {
	t.Parallel()
	run := frame.Of("burst", "strategy", "errors", "elapsed_s")
	run.MustAppend(frame.Row{"strategy": "/a", "errors": 0, "elapsed_s": 1.02})
	run.MustAppend(frame.Row{"strategy": "/b", "errors": 0, "elapsed_s": 9.9})
	c := charts.Beside("elapsed_s", run, lab.Guess(map[string]float64{"/b": 5, "/a": 0}))
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"measured", "your guess"}; !slices.Equal(c.SeriesNames(), want) {
		t.Errorf("series %v, want %v", c.SeriesNames(), want)
	}
	if notes := strings.Join(c.Notes(), "\n"); !strings.Contains(notes, "no your guess figure for /a") {
		t.Errorf("notes %q", notes)
	}
	empty := charts.Beside("elapsed_s", run, lab.Guess(map[string]float64{"/a": 0}))
	if notes := strings.Join(empty.Notes(), "\n"); !strings.Contains(notes, "your guess: no figure yet") {
		t.Errorf("notes %q", notes)
	}
}
