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
