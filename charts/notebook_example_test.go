package charts_test

import (
	"fmt"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
)

// SourceVsMeasured puts a source's published figure beside the measured
// one, per strategy.
func ExampleSourceVsMeasured() {
	source := frame.Of("source", "strategy", "waits")
	_ = source.Add("/async-block", 10.02)
	_ = source.Add("/async-ok", 1.03)
	measured := frame.Of("measured", "strategy", "waits")
	_ = measured.Add("/async-block", 10.1)
	_ = measured.Add("/async-ok", 1.01)
	fmt.Println(charts.SourceVsMeasured(source, measured, "waits"))
	// Output:
	// chart "Source vs measured: waits": 2 series
}

// Sweep draws y against x, a line per strategy.
func ExampleSweep() {
	f := frame.Of("fan-out", "strategy", "in_flight", "waits")
	_ = f.Add("Go fan-out", 1.0, 100.4)
	_ = f.Add("Go fan-out", 10.0, 10.2)
	_ = f.Add("Go fan-out", 100.0, 1.1)
	fmt.Println(charts.Sweep(f, "in_flight", "waits").LogX().LogY())
	// Output:
	// chart "waits vs in_flight": 1 series
}

// WaterfallRows is Waterfall with a cap on the rows drawn: a trace frame
// of many requests is sampled evenly down to maxRows.
func ExampleWaterfallRows() {
	tr := frame.Of("trace", "strategy", "request", "worker", "thread", "phase", "start_ms", "end_ms")
	for r := 1; r <= 4; r++ {
		_ = tr.Add("/async-block", float64(r), 0.0, "loop", "queue", 0.0, float64(r-1)*100)
		_ = tr.Add("/async-block", float64(r), 0.0, "loop", "handler", float64(r-1)*100, float64(r)*100)
	}
	fmt.Println(charts.WaterfallRows(tr, 2).Title("a staircase"))
	// Output:
	// chart "a staircase": 2 rows, 4 intervals
}
