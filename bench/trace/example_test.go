package trace_test

import (
	"fmt"
	"os"
	"time"

	"github.com/conclab/conclab/bench/trace"
)

// A recorder keeps intervals up to its cap; the facts read them back.
func ExampleRecorder() {
	rec := trace.NewRecorder(1000)
	t0 := time.Unix(0, 0)
	for i := 0; i < 3; i++ {
		req := rec.NextRequest()
		start := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		rec.Add(trace.Event{Request: req, Thread: "loop", Phase: trace.Handler,
			Start: start.UnixNano(), End: start.Add(100 * time.Millisecond).UnixNano()})
	}
	s := rec.Snapshot()
	fmt.Println(len(s.Events), "events,", s.Dropped, "dropped")
	fmt.Println("most at once:", trace.MaxOverlap(s.Events, trace.Handler))
	fmt.Println("waves:", trace.Waves(s.Events, trace.Handler))
	// Output:
	// 3 events, 0 dropped
	// most at once: 1
	// waves: [1 1 1]
}

// WriteChrome writes Chrome's trace event format, which Perfetto UI and
// chrome://tracing open: here two requests' sleeps on two threads.
func ExampleWriteChrome() {
	evs := []trace.Event{
		{Request: 1, Thread: "anyio-1", Phase: trace.IO, Start: 0, End: 1e9},
		{Request: 2, Thread: "anyio-2", Phase: trace.IO, Start: 0, End: 1e9},
	}
	f, err := os.CreateTemp("", "trace-*.json")
	if err != nil {
		panic(err)
	}
	defer os.Remove(f.Name())
	if err := trace.WriteChrome(f, trace.Process{Name: "/sync-sleep", Events: evs}); err != nil {
		panic(err)
	}
	f.Close()
	b, _ := os.ReadFile(f.Name())
	fmt.Println(len(b) > 0, string(b[:15]))
	// Output:
	// true {"traceEvents":
}
