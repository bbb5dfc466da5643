package charts_test

import (
	"testing"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/metrics"
	"github.com/conclab/conclab/charts"
)

// TestMetricsFrames draws the frames bench/metrics really returns (from its
// recorder fed with samples, no network), two strategies concatenated the
// way a notebook does.
func TestMetricsFrames(t *testing.T) {
	t.Parallel()
	run := func(strategy string, lat time.Duration) *metrics.Result {
		start := time.Unix(1_700_000_000, 0)
		rec, err := metrics.NewRecorder(start, metrics.Options{Shards: 1})
		if err != nil {
			t.Fatal(err)
		}
		for sec := 0; sec < 3; sec++ {
			for i := 0; i < 50; i++ {
				rec.Record(0, &metrics.Sample{Outcome: metrics.OK, Latency: lat + time.Duration(i)*lat/50})
			}
			rec.Cut(start.Add(time.Duration(sec+1)*time.Second), 0)
		}
		return rec.Finish(start.Add(3*time.Second), 0, map[string]string{"strategy": strategy})
	}
	a, b := run("sync", 100*time.Millisecond), run("goroutines", 2*time.Millisecond)
	concat := func(name string, x, y *frame.Frame) *frame.Frame {
		f, err := frame.Concat(name, x, y)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	summary := concat("summary", a.Summary(), b.Summary())
	series := concat("series", a.Series(), b.Series())
	dist := concat("distribution", a.Distribution(), b.Distribution())
	for _, c := range []*charts.Chart{
		charts.Throughput(summary), charts.Latency(summary).LogY(),
		charts.OverTime(series, "rps"), charts.OverTime(series, "p99_ms"),
		charts.CDF(dist).LogX(),
	} {
		if err := c.Err(); err != nil {
			t.Errorf("%s: %v", c, err)
		}
		if got := c.SeriesNames(); c.String() != "" && len(got) == 2 && (got[0] != "sync" || got[1] != "goroutines") {
			t.Errorf("%s: series %q; want sync, goroutines", c, got)
		}
	}
	if err := charts.Breakdown(summary).Err(); err == nil {
		t.Error("Breakdown of a client-side summary (no server columns) did not say so")
	}
}
