package charts

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/conclab/conclab/bench/frame"
)

type guessFramer map[string]float64

func (g guessFramer) FrameFor(metric string) *frame.Frame {
	f := frame.Of("your guess", "strategy", metric)
	for _, k := range []string{"/a", "/b"} {
		if v, ok := g[k]; ok {
			f.MustAppend(frame.Row{"strategy": k, metric: v})
		}
	}
	return f
}

func besideFrames() (src, est, run *frame.Frame) {
	src = frame.Of("source 001: ten requests", "strategy", "waits")
	src.MustAppend(frame.Row{"strategy": "/a", "waits": 1.03})
	src.MustAppend(frame.Row{"strategy": "/b", "waits": 10.02})
	est = frame.Of("source 001 estimated: ten requests", "strategy", "waits")
	est.MustAppend(frame.Row{"strategy": "/a", "waits": 1})
	est.MustAppend(frame.Row{"strategy": "/b", "waits": 10})
	est.MustAppend(frame.Row{"strategy": "/c", "waits": 1})
	run = frame.Of("source 001: 10 requests at once", "strategy", "errors", "waits")
	run.MustAppend(frame.Row{"strategy": "/a", "errors": 0, "waits": 1.1})
	run.MustAppend(frame.Row{"strategy": "real /a", "errors": 0, "waits": 1.2})
	run.MustAppend(frame.Row{"strategy": "/b", "errors": 0, "waits": 10.1})
	run.MustAppend(frame.Row{"strategy": "/c", "errors": 0, "waits": 1.05})
	return src, est, run
}

func ys(c *Chart, name string) []float64 {
	for _, s := range c.series {
		if s.name == name {
			return s.ys
		}
	}
	return nil
}

func sameFloats(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && got[i] != want[i]) {
			return false
		}
	}
	return true
}

func TestBesideGroupsRowsAndRoles(t *testing.T) {
	t.Parallel()
	src, est, run := besideFrames()
	c := Beside("waits", src, est, run, guessFramer{"/b": 8})
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"/a", "/b", "/c"}; !slices.Equal(c.categories, want) {
		t.Errorf("categories %v, want %v", c.categories, want)
	}
	if want := []string{"source 001", "estimate", "model", "real CPython", "your guess"}; !slices.Equal(c.SeriesNames(), want) {
		t.Errorf("series %v, want %v", c.SeriesNames(), want)
	}
	nan := math.NaN()
	for name, want := range map[string][]float64{
		"source 001":   {1.03, 10.02, nan},
		"estimate":     {1, 10, 1},
		"model":        {1.1, 10.1, 1.05},
		"real CPython": {1.2, nan, nan},
		"your guess":   {nan, 8, nan},
	} {
		if got := ys(c, name); !sameFloats(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	notes := strings.Join(c.Notes(), "\n")
	for _, want := range []string{"no source 001 figure for /c", "no real CPython figure for /b, /c", "no your guess figure for /a, /c"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
}

func TestBesideProblemsAndNotes(t *testing.T) {
	t.Parallel()
	src, _, run := besideFrames()
	noReal := run.Filter(func(r frame.Row) bool { return !strings.HasPrefix(r.Text("strategy"), RealPrefix) })
	for _, tc := range []struct {
		name     string
		chart    *Chart
		problem  string // "" when the chart draws
		series   []string
		noteHave string
	}{
		{"no metric", Beside("", src), "no metric", nil, ""},
		{"wrong type", Beside("waits", src, 3), "side 2 is a int", nil, ""},
		{"no side has it", Beside("avg_ms", src, run), `no side has a number column "avg_ms"`, nil, ""},
		{"nil side noted", Beside("waits", (*frame.Frame)(nil), src), "", []string{"source 001"}, "side 1 is nil"},
		{"missing column noted", Beside("errors", src, run), "", []string{"model", "real CPython"}, `has no number column "errors"`},
		{"measured without real rows", Beside("waits", noReal), "", []string{"measured"}, ""},
		{"two runs told apart", Beside("waits", noReal, noReal), "", []string{"measured #1", "measured #2"}, ""},
		{"empty guess noted", Beside("waits", noReal, guessFramer{}), "", []string{"measured", "your guess"}, "your guess: no figure yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.chart.Err()
			if tc.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tc.problem) {
					t.Fatalf("Err() = %v, want it to say %q", err, tc.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tc.chart.SeriesNames(), tc.series) {
				t.Errorf("series %v, want %v", tc.chart.SeriesNames(), tc.series)
			}
			if tc.noteHave != "" && !strings.Contains(strings.Join(tc.chart.Notes(), "\n"), tc.noteHave) {
				t.Errorf("notes %q lack %q", tc.chart.Notes(), tc.noteHave)
			}
		})
	}
}

func TestBesideRendersEveryForm(t *testing.T) {
	t.Parallel()
	src, est, run := besideFrames()
	d := Beside("waits", src, est, run).Render()
	for _, mime := range []string{MIMEType, "text/html", "image/svg+xml", "text/plain"} {
		if _, ok := d.Data[mime]; !ok {
			t.Errorf("no %s in the bundle", mime)
		}
	}
	svg := Beside("waits", src, est, run).SVG()
	for _, s := range []string{"real CPython", "estimate", "/c"} {
		if !strings.Contains(svg, s) {
			t.Errorf("SVG lacks %q", s)
		}
	}
}
