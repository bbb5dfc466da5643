package charts_test

import (
	"fmt"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
)

// A trace frame (bench.Result.Trace) of /async-block: each request queues
// for the loop while the one before it blocks it.
func ExampleWaterfall() {
	f := frame.New("trace")
	for i := 0; i < 3; i++ {
		start := float64(i) * 100
		f.MustAppend(frame.Row{"strategy": "/async-block", "request": i + 1, "thread": "loop queue", "phase": "queue", "start_ms": 0.0, "end_ms": start})
		f.MustAppend(frame.Row{"strategy": "/async-block", "request": i + 1, "thread": "loop", "phase": "io", "start_ms": start, "end_ms": start + 100})
	}
	c := charts.Waterfall(f)
	fmt.Println(c)
	fmt.Println(c.Rows(), c.Phases())
	// Output:
	// chart "Request waterfall": 3 rows, 6 intervals
	// [#1 #2 #3] [queue io]
}

// Two threads taking turns on the GIL, and the loop blocked by a callback.
func ExampleLanes() {
	f := frame.New("trace")
	for k := 0; k < 4; k++ {
		th := fmt.Sprintf("gthread-%d", k%2+1)
		f.MustAppend(frame.Row{"strategy": "flask 1w x 2t", "request": k%2 + 1, "thread": th, "phase": "gil", "start_ms": float64(5 * k), "end_ms": float64(5*k + 5)})
	}
	c := charts.Lanes(f)
	fmt.Println(c.Rows(), c.Phases())
	// Output:
	// [gthread-1 gthread-2] [gil]
}
