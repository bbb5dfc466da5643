package lab_test

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/lab"
)

// Shape checks the shape of source 001's finding on measured figures: the
// blocked loop serialises ten 1 s requests, the awaited sleep does not.
func ExampleShape() {
	err := lab.Shape("source 001",
		lab.Between("/async-block elapsed_s", 10.02, 9.5, 11),
		lab.Less("/async-ok is faster than /async-block", 1.01, 10.02),
		lab.Equal("errors", 0, 0),
	)
	fmt.Println(err)
	// Output:
	// source 001
	// check                                  got            want            holds
	// /async-block elapsed_s                 10.02          9.50 … 11           1
	// /async-ok is faster than /async-block  1.01 vs 10.02  first < second      1
	// errors                                 0              0                   1
	// 3 of 3 checks hold
	// <nil>
}

// A check that fails makes Shape return an error naming it; a NaN (a
// figure that could not be measured) never satisfies a bound.
func ExampleShape_failed() {
	err := lab.Shape("source 003",
		lab.AtLeast("2 workers speed-up", 1.1, 1.6),
		lab.AtMost("errors", math.NaN(), 0),
		lab.True("rows in order", true),
	)
	fmt.Println(err)
	// Output:
	// source 003
	// check               got   want    holds
	// 2 workers speed-up  1.10  ≥ 1.60      0
	// errors              NaN   ≤ 0         0
	// rows in order       true  true        1
	// 1 of 3 checks hold
	// source 003's shape did NOT hold: 2 workers speed-up (got 1.10, want ≥ 1.60); errors (got NaN, want ≤ 0)
}

// Each constructor states its claim in the want column.
func ExampleCheck() {
	for _, c := range []lab.Check{
		lab.Equal("slowest", "/doPrint", "/doPrint"),
		lab.AtLeast("waves", 3, 3),
		lab.AtMost("p95_ms", 250, 200),
		lab.Between("ratio", 1.04, 0.9, 1.1),
		lab.Less("order", 1, 2),
		lab.True("in order", false),
	} {
		fmt.Printf("%-8s %-10s %-14s %v\n", c.What, c.Got, c.Want, c.Holds)
	}
	// Output:
	// slowest  /doPrint   /doPrint       true
	// waves    3          ≥ 3            true
	// p95_ms   250        ≤ 200          false
	// ratio    1.04       0.9 … 1.10     true
	// order    1 vs 2     first < second true
	// in order false      true           false
}

// Agree pairs model rows "X" with real rows "real X" of a summary and
// gives each pair and metric a verdict.
func ExampleAgree() {
	f := frame.New("summary")
	_ = f.AddColumn("strategy", frame.Label)
	for _, r := range []frame.Row{
		{"strategy": "/async-block", "elapsed_s": 10.0}, {"strategy": "real /async-block", "elapsed_s": 10.4},
		{"strategy": "/async-ok", "elapsed_s": 1.0}, {"strategy": "real /async-ok", "elapsed_s": 1.3},
		{"strategy": "/offload", "elapsed_s": 1.0}, {"strategy": "real /offload", "elapsed_s": 12.0},
	} {
		f.MustAppend(r)
	}
	a, err := lab.Agree("source 001", f, 0.10, "elapsed_s")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Line())
	for _, v := range a.Frame.Texts("verdict") {
		fmt.Println(v)
	}
	fmt.Println(a.Err())
	// Output:
	// 1 of 3 agree within ±10 %; 1 agree in ordering only
	// agrees: elapsed_s model 10, real 10.40 (+4 %), within ±10 %
	// ordering only: elapsed_s model 1, real 1.30 (+30 %), beyond ±10 %; no other row is clearly ordered the other way
	// disagrees: elapsed_s model 1, real 12 (+1100 %), beyond ±10 %
	// source 001: model and real CPython disagree beyond ±10 % and in ordering on /offload elapsed_s (1 of 3 agree within ±10 %; 1 agree in ordering only)
}

// ModelVsReal runs one experiment holding model and real strategies (here
// source 001's) and shows the verdicts; a sleep-based comparison such as
// this one returns a.Err() to fail on a row that agrees neither within the
// tolerance nor in ordering. It skips (nil, nil) without real CPython.
func ExampleModelVsReal() {
	a, err := lab.ModelVsReal(context.Background(), cpython.Experiment001(time.Second, 10, cpython.Options{}), cpython.SleepTolerance, "elapsed_s")
	if err != nil {
		fmt.Println(err)
		return
	}
	if a != nil {
		fmt.Println(a.Line())
	}
	if err := a.Err(); err != nil {
		fmt.Println(err)
	}
}

// ModelVsRealOf takes a comparison that is not one bench.Run: source 002's
// clients, modelled and real.
func ExampleModelVsRealOf() {
	a, err := lab.ModelVsRealOf(context.Background(), "source 002", func(ctx context.Context) (*frame.Frame, error) {
		return cpython.Versus002(ctx, cpython.Options{}, 200*time.Millisecond, cpython.Clients002(100))
	}, cpython.SleepTolerance, "elapsed_s")
	if err != nil {
		fmt.Println(err)
		return
	}
	if a != nil {
		fmt.Println(a.Line())
	}
}

// Slowest names the slowest of some rows, for a Shape check on the order
// the source found.
func ExampleSlowest() {
	f := frame.New("summary")
	_ = f.AddColumn("strategy", frame.Label)
	for _, r := range []frame.Row{
		{"strategy": "/doPrint", "avg_ms": 9.0}, {"strategy": "real /doPrint", "avg_ms": 40.0},
		{"strategy": "/dontPrint", "avg_ms": 1.0}, {"strategy": "real /dontPrint", "avg_ms": 12.0},
	} {
		f.MustAppend(r)
	}
	err := lab.Shape("source 000 print",
		lab.Equal("slowest on the model", lab.Slowest(f, "avg_ms", "/doPrint", "/dontPrint"), "/doPrint"),
		lab.Equal("slowest for real", lab.Slowest(f, "avg_ms", "real /doPrint", "real /dontPrint"), "real /doPrint"),
	)
	fmt.Println(err)
	// Output:
	// source 000 print
	// check                 got            want           holds
	// slowest on the model  /doPrint       /doPrint           1
	// slowest for real      real /doPrint  real /doPrint      1
	// 2 of 2 checks hold
	// <nil>
}

// Run runs an experiment read by its shape: source 000's print order on
// the model and, where CPython is installed, for real.
func ExampleRun() {
	res, err := lab.Run(context.Background(), cpython.Experiment000Print(1000, 10, 2*time.Second, nil, cpython.Options{}))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := res.Summary
	err = lab.Shape("source 000 print",
		lab.Equal("slowest on the model", lab.Slowest(s, "avg_ms", cpython.Endpoints000Print...), cpython.DoPrint),
		lab.Equal("slowest for real", lab.Slowest(s, "avg_ms", "real /doPrint", "real /doPrintAsync", "real /dontPrint"), "real /doPrint"),
	)
	fmt.Println(err)
}
