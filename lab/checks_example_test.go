package lab_test

import (
	"fmt"
	"math"

	"github.com/conclab/conclab/lab"
)

func show(c lab.Check) { fmt.Printf("%s: got %s, want %s, holds %v\n", c.What, c.Got, c.Want, c.Holds) }

// Equal compares numbers of any kind by value, other values deeply.
func ExampleEqual() {
	show(lab.Equal("handlers at once", 1, 1.0))
	show(lab.Equal("waves", []int{40, 40, 20}, []int{40, 40, 20}))
	show(lab.Equal("slowest", "/doPrint", "/dontPrint"))
	// Output:
	// handlers at once: got 1, want 1, holds true
	// waves: got [40 40 20], want [40 40 20], holds true
	// slowest: got /doPrint, want /dontPrint, holds false
}

// AtLeast, AtMost and Between are bounds; a NaN never holds.
func ExampleBetween() {
	show(lab.AtLeast("waits", 9.7, 9.5))
	show(lab.AtMost("speed-up", 2.6, 2.5))
	show(lab.Between("waits", 1.02, 0.9, 1.5))
	show(lab.Between("waits", math.NaN(), 0.9, 1.5))
	// Output:
	// waits: got 9.70, want ≥ 9.50, holds true
	// speed-up: got 2.60, want ≤ 2.50, holds false
	// waits: got 1.02, want 0.9 … 1.50, holds true
	// waits: got NaN, want 0.9 … 1.50, holds false
}

// Less orders two figures; True states a fact computed in the cell.
func ExampleLess() {
	show(lab.Less("GIL wait: 2 workers < 1 worker", 120, 410))
	show(lab.True("the first error cancels the rest", true))
	// Output:
	// GIL wait: 2 workers < 1 worker: got 120 vs 410, want first < second, holds true
	// the first error cancels the rest: got true, want true, holds true
}
