package shape_test

import (
	"fmt"
	"math"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/sources/shape"
)

func show(c shape.Check) {
	fmt.Printf("%s: got %s, want %s, holds %v\n", c.What, c.Got, c.Want, c.Holds)
}

// Equal compares numbers of any kind by value, other values deeply.
func ExampleEqual() {
	show(shape.Equal("handlers at once", 1, 1.0))
	show(shape.Equal("waves", []int{40, 40, 20}, []int{40, 40, 20}))
	show(shape.Equal("slowest", "/doPrint", "/dontPrint"))
	// Output:
	// handlers at once: got 1, want 1, holds true
	// waves: got [40 40 20], want [40 40 20], holds true
	// slowest: got /doPrint, want /dontPrint, holds false
}

// AtLeast, AtMost and Between are bounds; a NaN never holds.
func ExampleBetween() {
	show(shape.AtLeast("waits", 9.7, 9.5))
	show(shape.AtMost("speed-up", 2.6, 2.5))
	show(shape.Between("waits", 1.02, 0.9, 1.5))
	show(shape.Between("waits", math.NaN(), 0.9, 1.5))
	// Output:
	// waits: got 9.70, want ≥ 9.50, holds true
	// speed-up: got 2.60, want ≤ 2.50, holds false
	// waits: got 1.02, want 0.9 … 1.50, holds true
	// waits: got NaN, want 0.9 … 1.50, holds false
}

// Less orders two figures; True states a fact computed in the cell.
func ExampleLess() {
	show(shape.Less("GIL wait: 2 workers < 1 worker", 120, 410))
	show(shape.True("the first error cancels the rest", true))
	// Output:
	// GIL wait: 2 workers < 1 worker: got 120 vs 410, want first < second, holds true
	// the first error cancels the rest: got true, want true, holds true
}

// Show checks the shape of source 001's finding on measured figures: the
// blocked loop serialises ten 1 s requests, the awaited sleep does not.
func ExampleShow() {
	err := shape.Show("source 001",
		shape.Between("/async-block elapsed_s", 10.02, 9.5, 11),
		shape.Less("/async-ok is faster than /async-block", 1.01, 10.02),
		shape.Equal("errors", 0, 0),
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

// A check that fails makes Show return an error naming it; a NaN (a
// figure that could not be measured) never satisfies a bound.
func ExampleShow_failed() {
	err := shape.Show("source 003",
		shape.AtLeast("2 workers speed-up", 1.1, 1.6),
		shape.AtMost("errors", math.NaN(), 0),
		shape.True("rows in order", true),
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
	for _, c := range []shape.Check{
		shape.Equal("slowest", "/doPrint", "/doPrint"),
		shape.AtLeast("waves", 3, 3),
		shape.AtMost("p95_ms", 250, 200),
		shape.Between("ratio", 1.04, 0.9, 1.1),
		shape.Less("order", 1, 2),
		shape.True("in order", false),
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
	err := shape.Show("source 000 print",
		shape.Equal("slowest on the model", shape.Slowest(f, "avg_ms", "/doPrint", "/dontPrint"), "/doPrint"),
		shape.Equal("slowest for real", shape.Slowest(f, "avg_ms", "real /doPrint", "real /dontPrint"), "real /doPrint"),
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
