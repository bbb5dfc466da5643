package metrics

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/frame"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestRecorderIntervalsMergeLosslessly(t *testing.T) {
	t.Parallel()
	r, err := NewRecorder(t0, Options{Shards: 3, Uncorrected: true})
	if err != nil {
		t.Fatal(err)
	}
	// 10 intervals of 100 ms; interval i gets 100*(i+1) samples of (i+1) ms
	// from 4 concurrent writers, plus one 5xx and one connection error.
	var want int64
	for i := 0; i < 10; i++ {
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < 25*(i+1); k++ {
					d := time.Duration(i+1) * time.Millisecond
					r.Record(w, &Sample{Outcome: OK, Latency: d, Uncorrected: d / 2, BytesIn: 10, BytesOut: 5})
				}
			}()
		}
		wg.Wait()
		r.Record(0, &Sample{Outcome: Status5xx, Latency: time.Millisecond, Uncorrected: time.Millisecond})
		r.Record(1, &Sample{Outcome: Conn, Err: errors.New("connection refused")})
		want += int64(100*(i+1)) + 2
		r.Cut(t0.Add(time.Duration(i+1)*100*time.Millisecond), float64(i))
	}
	res := r.Finish(t0.Add(time.Second), 0, map[string]string{LabelStrategy: "s", "machine": "m"})
	if res.Count() != want {
		t.Fatalf("Count() = %d; want %d", res.Count(), want)
	}
	if len(res.Intervals) != 10 {
		t.Fatalf("%d intervals; want 10 (a Finish at the last Cut adds none)", len(res.Intervals))
	}
	var n, lat int64
	for i, iv := range res.Intervals {
		n += iv.Count()
		lat += iv.Latency.Count
		if got := iv.Count(); got != int64(100*(i+1))+2 {
			t.Errorf("interval %d count = %d; want %d", i, got, 100*(i+1)+2)
		}
		if iv.Errors() != 2 {
			t.Errorf("interval %d errors = %d; want 2", i, iv.Errors())
		}
	}
	if n != res.Count() || lat != res.Latency.Count {
		t.Errorf("intervals add up to %d (%d latencies); totals %d (%d)", n, lat, res.Count(), res.Latency.Count)
	}
	if res.Errors() != 20 || res.Outcomes(Status5xx) != 10 || res.Outcomes(Conn) != 10 {
		t.Errorf("errors=%d 5xx=%d conn=%d; want 20, 10, 10", res.Errors(), res.Outcomes(Status5xx), res.Outcomes(Conn))
	}
	// 5500 samples 1..10 ms weighted by i: the median is 7 ms.
	if med := res.Latency.Med; med < 7*time.Millisecond || med > 7010*time.Microsecond {
		t.Errorf("median = %v; want 7ms", med)
	}
	if res.Latency.Max != 10*time.Millisecond || res.Latency.Min != time.Millisecond {
		t.Errorf("min/max = %v/%v; want exact 1ms/10ms", res.Latency.Min, res.Latency.Max)
	}
	if res.Uncorrected.Max > 5010*time.Microsecond {
		t.Errorf("uncorrected max = %v; want 5ms", res.Uncorrected.Max)
	}
	if len(res.ErrorSamples) != 1 || res.ErrorSamples[0] != "connection refused" {
		t.Errorf("ErrorSamples = %q; want one distinct message", res.ErrorSamples)
	}

	s := res.Series()
	if s.Len() != 10 || s.Float("count", 9) != 1002 || s.Text("strategy", 0) != "s" || s.Text("machine", 3) != "m" {
		t.Errorf("series:\n%v", s)
	}
	sum := 0.0
	for _, c := range s.Floats("count") {
		sum += c
	}
	if sum != res.Summary().Float("count", 0) {
		t.Errorf("series counts add to %v; summary count %v", sum, res.Summary().Float("count", 0))
	}
}

func TestFrames(t *testing.T) {
	t.Parallel()
	mk := func(strategy string, d time.Duration) *Result {
		r, err := NewRecorder(t0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			r.Record(i, &Sample{Outcome: OK, Latency: d, BytesIn: 100})
		}
		return r.Finish(t0.Add(2*time.Second), math.NaN(), map[string]string{LabelStrategy: strategy, LabelLoad: "burst 100"})
	}
	a, b := mk("sync", 10*time.Millisecond), mk("async", 20*time.Millisecond)
	sum := a.Summary()
	cols := strings.Join(sum.Columns(), ",")
	if !strings.HasPrefix(cols, "strategy,workload,load,count,errors,") {
		t.Errorf("summary columns = %s", cols)
	}
	for _, c := range []string{"rps", "elapsed_s", "min_ms", "avg_ms", "med_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "bytes_in", "bytes_out"} {
		if k, ok := sum.KindOf(c); !ok || k != frame.Number {
			t.Errorf("summary lacks number column %s", c)
		}
	}
	if sum.Has("uncorrected_p99_ms") {
		t.Errorf("closed-model summary has uncorrected columns")
	}
	if got := sum.Float("rps", 0); got != 50 {
		t.Errorf("rps = %v; want 100 requests / 2 s = 50", got)
	}
	all := Summaries(a, nil, b)
	if all.Len() != 2 || all.Text("strategy", 1) != "async" || all.Float("med_ms", 1) < 19.9 {
		t.Errorf("Summaries:\n%v", all)
	}
	sorted, err := all.Sort("med_ms", false)
	if err != nil || sorted.Text("strategy", 0) != "sync" {
		t.Errorf("sort by med_ms: %v\n%v", err, sorted)
	}
	d := a.Distribution()
	if d.Len() != len(DistributionPercentiles) || d.Float("latency_ms", d.Len()-1) != 10 {
		t.Errorf("distribution:\n%v", d)
	}
	if !strings.Contains(a.HTML(), "<table") || !strings.Contains(a.String(), "http_req_duration") {
		t.Errorf("HTML/String missing content")
	}
}

func TestEmptyAndBadOptions(t *testing.T) {
	t.Parallel()
	r, err := NewRecorder(t0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Finish(t0, 0, nil)
	if res.Count() != 0 || res.Summary().Len() != 1 || !math.IsNaN(res.Summary().Float("p99_ms", 0)) || res.Distribution().Len() != 0 {
		t.Errorf("empty result frames wrong:\n%v", res.Summary())
	}
	if res.RPS() != 0 || res.Percentile(99) != 0 {
		t.Errorf("empty: rps=%v p99=%v", res.RPS(), res.Percentile(99))
	}
	_ = res.String()
	var zero Result // frames of a zero Result are empty, not a panic
	if zero.Summary().Len() != 1 || zero.Series().Len() != 0 || zero.Distribution().Len() != 0 || zero.HTML() == "" {
		t.Errorf("zero Result frames wrong")
	}
	for _, o := range []Options{{Shards: -1}, {Highest: -1}, {Highest: time.Nanosecond}, {SignificantFigures: 6}} {
		if _, err := NewRecorder(t0, o); err == nil {
			t.Errorf("NewRecorder(%+v): no error", o)
		}
	}
}

func TestClampAndOutcomes(t *testing.T) {
	t.Parallel()
	r, _ := NewRecorder(t0, Options{Highest: time.Second})
	r.Record(0, &Sample{Outcome: OK, Latency: time.Hour})
	r.Record(0, &Sample{Outcome: Interrupted, Err: errors.New("cut")})
	r.Record(-1<<63, &Sample{Outcome: Outcome(42)}) // any shard index is fine
	res := r.Finish(t0.Add(time.Second), 0, nil)
	if res.Count() != 2 || res.Outcomes(Interrupted) != 1 || res.Outcomes(Other) != 1 || len(res.ErrorSamples) != 0 {
		t.Errorf("count=%d interrupted=%d other=%d samples=%q", res.Count(), res.Outcomes(Interrupted), res.Outcomes(Other), res.ErrorSamples)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "above 1s") {
		t.Errorf("warnings = %q; want a clamp warning", res.Warnings)
	}
	for o, want := range map[Outcome]string{OK: "ok", Status4xx: "4xx", Timeout: "timeout", Outcome(99): "Outcome(99)"} {
		if o.String() != want {
			t.Errorf("Outcome(%d).String() = %q; want %q", int(o), o.String(), want)
		}
	}
}

func BenchmarkRecord(b *testing.B) {
	r, _ := NewRecorder(t0, Options{})
	s := &Sample{Outcome: OK, Latency: 3 * time.Millisecond, BytesIn: 100}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			r.Record(i, s)
			i++
		}
	})
}

func TestMaxIntervals(t *testing.T) {
	t.Parallel()
	r, err := NewRecorder(t0, Options{MaxIntervals: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 10; i++ {
		r.Record(0, &Sample{Outcome: OK, Latency: time.Millisecond})
		r.Cut(t0.Add(time.Duration(i)*time.Second), 0)
	}
	res := r.Finish(t0.Add(10*time.Second), 0, nil)
	if len(res.Intervals) != 3 || res.Intervals[2].Length != 8*time.Second || res.Intervals[2].Count() != 8 {
		t.Errorf("intervals = %d, last %v with %d; want 3, the last 8s with 8", len(res.Intervals), res.Intervals[len(res.Intervals)-1].Length, res.Intervals[len(res.Intervals)-1].Count())
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "MaxIntervals") {
		t.Errorf("warnings = %q", res.Warnings)
	}
}

func TestEmptyTailFolded(t *testing.T) {
	t.Parallel()
	r, _ := NewRecorder(t0, Options{})
	r.Record(0, &Sample{Outcome: OK, Latency: time.Millisecond})
	r.Cut(t0.Add(time.Second), 0)
	r.Record(0, &Sample{Outcome: OK, Latency: time.Millisecond})
	r.Cut(t0.Add(2*time.Second), 0)
	res := r.Finish(t0.Add(2100*time.Millisecond), 0, nil) // empty 100 ms tail
	if len(res.Intervals) != 2 || res.Intervals[1].Length != 1100*time.Millisecond || res.Elapsed != 2100*time.Millisecond {
		t.Errorf("intervals %d, last %v, elapsed %v; want 2, 1.1s, 2.1s", len(res.Intervals), res.Intervals[len(res.Intervals)-1].Length, res.Elapsed)
	}
	r, _ = NewRecorder(t0, Options{})
	r.Cut(t0.Add(time.Second), 0)
	r.Record(0, &Sample{Outcome: OK, Latency: time.Millisecond})
	res = r.Finish(t0.Add(1100*time.Millisecond), 0, nil) // a tail with a sample stays
	if len(res.Intervals) != 2 || res.Intervals[1].Count() != 1 {
		t.Errorf("intervals %d; want 2 with the tail's sample in the last", len(res.Intervals))
	}
}
