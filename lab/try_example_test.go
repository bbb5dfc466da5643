package lab_test

import (
	"fmt"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/lab"
	"github.com/conclab/conclab/widgets"
)

// A "try it" with one control. Headless (here: no display publisher, so
// the table is printed) it runs once with the controls' values; in a
// notebook every change of the slider runs the burst again.
func ExampleTry() {
	strategies, _ := bench.Presets("goroutines")
	requests := widgets.NewIntSlider("requests", 5, 1, 40)
	err := lab.Try{
		Controls: []widgets.Widget{requests},
		Columns:  []string{"strategy", "count", "errors"},
		Experiment: func() (bench.Experiment, error) {
			return bench.Experiment{Name: "burst", Strategies: strategies,
				Workload: bench.Steps(bench.Sleep(time.Millisecond)), Load: load.Burst{N: requests.Value()}}, nil
		},
	}.Show()
	fmt.Println(err)
	// Output:
	// burst
	// strategy    count  errors
	// goroutines      5       0
	//
	// <nil>
}
