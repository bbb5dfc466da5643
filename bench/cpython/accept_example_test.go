package cpython_test

import (
	"context"
	"fmt"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/strategy"
)

// The model alone (no real CPython needed), its two workers taking turns
// (the balanced "what if"): every burst of 4 is split 2/2. With the default
// greedy accept, as real gunicorn, the split would be a draw.
func ExampleMeasureSplit() {
	f, err := cpython.MeasureSplit(context.Background(), cpython.SplitOptions{
		ModelOnly: true, Accept: strategy.AcceptBalanced, Calibration: cpython.SourceMachine(0),
		Servers: []cpython.Server003{{Workers: 2, Threads: 5}}, N: 4, Bursts: 2, SumN: 10_000,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := cpython.SplitSummary(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range s.Rows() {
		fmt.Println(r.Text("strategy"), r.Float("burst"), r.Text("split"), r.Float("busiest"))
	}
	// Output:
	// Flask gunicorn 2w x 5t 1 2/2 0.5
	// Flask gunicorn 2w x 5t 2 2/2 0.5
}

// SplitSummary writes each burst's split busiest worker first.
func ExampleSplitSummary() {
	f := frame.Of("bursts", cpython.SplitColumns[0], cpython.SplitColumns[1], cpython.SplitColumns[2], cpython.SplitColumns[3])
	for w, n := range []int{1, 7, 2} {
		f.Add("real Flask gunicorn 3w x 5t", 1, w+1, n)
	}
	s, err := cpython.SplitSummary(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Text("split", 0), s.Float("busiest", 0))
	// Output: 7/2/1 0.7
}

// WorkerCounts reads a burst's split from a trace frame (a bench.Result's
// Trace): requests per worker process.
func ExampleWorkerCounts() {
	tr := frame.Of("trace", "strategy", "request", "worker", "thread", "phase", "start_ms", "end_ms")
	tr.Add("flask 2w x 5t", 1, 1, "thread-1", "handler", 0.0, 10.0)
	tr.Add("flask 2w x 5t", 1, 1, "thread-1", "cpu", 1.0, 9.0)
	tr.Add("flask 2w x 5t", 2, 2, "thread-1", "handler", 0.0, 10.0)
	tr.Add("flask 2w x 5t", 3, 1, "thread-2", "handler", 0.0, 20.0)
	counts, err := cpython.WorkerCounts(tr, "flask 2w x 5t", 2)
	fmt.Println(counts, err)
	// Output: [2 1] <nil>
}
