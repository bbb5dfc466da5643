package bench_test

import (
	"context"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/trace"
)

// A workload is the steps every request does: an I/O wait, CPU work that
// holds the GIL, and CPU work in C code that releases it.
func ExampleSteps() {
	w := bench.Steps(bench.Sleep(5*time.Millisecond), bench.Burn(20*time.Millisecond), bench.BurnNoGIL(80*time.Millisecond))
	fmt.Println(len(w.Steps), "steps; valid:", w.Validate() == nil)
	// Output:
	// 3 steps; valid: true
}

// EventsOf reads one strategy's events back from a result's trace frame
// (which can also be a frame of several results concatenated).
func ExampleEventsOf() {
	strategies, err := bench.Presets("serial")
	if err != nil {
		panic(err)
	}
	res, err := bench.Run(context.Background(), bench.Experiment{
		Strategies: strategies,
		Workload:   bench.Steps(bench.Sleep(time.Millisecond)),
		Load:       load.Burst{N: 3},
	})
	if err != nil {
		panic(err)
	}
	evs := bench.EventsOf(res.Trace, "serial")
	fmt.Println("handlers at once:", trace.MaxOverlap(evs, trace.Handler))
	// Output:
	// handlers at once: 1
}
