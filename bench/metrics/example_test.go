package metrics_test

import (
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

func Example() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec, err := metrics.NewRecorder(start, metrics.Options{})
	if err != nil {
		panic(err)
	}
	// Ten requests of 1..10 ms in the first second, one 503 in the next.
	for i := 1; i <= 10; i++ {
		rec.Record(i, &metrics.Sample{Outcome: metrics.OK, Latency: time.Duration(i) * time.Millisecond})
	}
	rec.Cut(start.Add(time.Second), 1)
	rec.Record(0, &metrics.Sample{Outcome: metrics.Status5xx, Latency: 50 * time.Millisecond})
	res := rec.Finish(start.Add(2*time.Second), 1, map[string]string{metrics.LabelStrategy: "sync"})

	sum, _ := res.Summary().Select("strategy", "count", "errors", "rps", "med_ms", "max_ms")
	fmt.Print(sum)
	series, _ := res.Series().Select("t_s", "count", "errors", "max_ms")
	fmt.Print(series)
	// Output:
	// summary
	// strategy  count  errors  rps   med_ms  max_ms
	// sync         11       1  5.50    6.00      50
	// series
	// t_s  count  errors  max_ms
	//   0     10       0      10
	//   1      1       1      50
}

// Results of several runs, labelled by strategy, combine into one frame to
// sort, filter or chart.
func ExampleSummaries() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(strategy string, latency time.Duration) *metrics.Result {
		rec, _ := metrics.NewRecorder(start, metrics.Options{})
		for i := 0; i < 100; i++ {
			rec.Record(i, &metrics.Sample{Outcome: metrics.OK, Latency: latency})
		}
		return rec.Finish(start.Add(time.Second), 0, map[string]string{metrics.LabelStrategy: strategy})
	}
	all := metrics.Summaries(run("sync", 40*time.Millisecond), run("asyncio", 10*time.Millisecond))
	fastest, _ := all.Sort("avg_ms", false)
	table, _ := fastest.Select("strategy", "count", "rps", "avg_ms")
	fmt.Print(table)
	// Output:
	// summary
	// strategy  count  rps  avg_ms
	// asyncio     100  100      10
	// sync        100  100      40
}

// Thresholds pass or fail a result, as k6's do in CI: a percentile, an
// error rate, a throughput.
func ExampleResult_CheckThresholds() {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec, _ := metrics.NewRecorder(start, metrics.Options{})
	for i := 1; i <= 99; i++ {
		rec.Record(i, &metrics.Sample{Outcome: metrics.OK, Latency: time.Duration(i) * time.Millisecond})
	}
	rec.Record(0, &metrics.Sample{Outcome: metrics.Status5xx, Latency: time.Millisecond})
	res := rec.Finish(start.Add(time.Second), 0, nil)

	ts, err := metrics.ParseThresholds("p95<200ms", "p(99)<50", "errors<1%", "rps>=100")
	if err != nil {
		panic(err)
	}
	for _, tr := range res.CheckThresholds(ts...) {
		fmt.Println(tr.Threshold, tr.Passed, tr.Measured())
	}
	fmt.Println("passed:", res.Passed())
	// Output:
	// p95<200ms true p(95)=94.04ms
	// p(99)<50 false p(99)=98.04ms
	// errors<1% false errors=1.00%
	// rps>=100 true rps=100.0
	// passed: false
}
