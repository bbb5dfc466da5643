package lab_test

import (
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/lab"
)

// A learner guesses each endpoint's batch time in seconds; the lesson
// compares waits (batch time ÷ one wait), so the guess is turned into
// waits and drawn beside the source's table and this machine's run.
func ExampleGuess() {
	guess := map[string]float64{ // seconds for the whole batch
		"/sync-sleep":  1,
		"/async-block": 5,
		"/async-ok":    0, // not guessed yet
	}
	g := lab.Guess(guess).Per(500 * time.Millisecond)
	fmt.Println(g)

	src := frame.Of("source 001: 10 requests, 1 s each", "strategy", "waits")
	src.MustAppend(frame.Row{"strategy": "/sync-sleep", "waits": 1.03})
	src.MustAppend(frame.Row{"strategy": "/async-block", "waits": 10.02})
	run := frame.Of("this machine", "strategy", "errors", "waits")
	run.MustAppend(frame.Row{"strategy": "/sync-sleep", "errors": 0, "waits": 1.01})
	run.MustAppend(frame.Row{"strategy": "/async-block", "errors": 0, "waits": 10.1})
	run.MustAppend(frame.Row{"strategy": "real /async-block", "errors": 0, "waits": 10.2})
	c := charts.Beside("waits", src, run, g)
	fmt.Println(c.SeriesNames())
	// Output:
	// your guess: /async-block 10, /sync-sleep 2 (per 500ms)
	// [source 001 model real CPython your guess]
}

// Little's law turns a guessed response time into the throughput of a
// closed load: X = N / (R + Z).
func ExampleGuessed_Little() {
	g := lab.Guess(map[string]float64{"/dontPrint": 15, "/doPrint": 2000}).In(time.Millisecond)
	fmt.Println(g.Little(100, time.Second))
	// Output:
	// your guess: /doPrint 33.33, /dontPrint 98.52 (by Little's law, 100 users, think 1s)
}
