package trace_test

import (
	"fmt"

	"github.com/conclab/conclab/bench/trace"
)

// Four sleeps on a pool of two threads: two at once, in two waves.
func ExampleWaves() {
	ms := int64(1_000_000)
	var evs []trace.Event
	for r := int64(1); r <= 4; r++ {
		start := (r - 1) / 2 * 100 * ms
		evs = append(evs, trace.Event{Request: r, Thread: fmt.Sprint("t", r%2), Phase: trace.IO, Start: start, End: start + 100*ms})
	}
	fmt.Println("at once:", trace.MaxOverlap(evs, trace.IO))
	fmt.Println("waves:", trace.Waves(evs, trace.IO))
	// Output:
	// at once: 2
	// waves: [2 2]
}

// One request's CPU step split into two runs where another thread took the
// GIL in between: its total is the step's.
func ExamplePerRequest() {
	ms := int64(1_000_000)
	evs := []trace.Event{
		{Request: 1, Phase: trace.CPU, Start: 0, End: 5 * ms},
		{Request: 2, Phase: trace.CPU, Start: 5 * ms, End: 10 * ms},
		{Request: 1, Phase: trace.CPU, Start: 10 * ms, End: 13 * ms},
	}
	fmt.Println(trace.PerRequest(evs, trace.CPU))
	// Output:
	// map[1:8ms 2:5ms]
}
