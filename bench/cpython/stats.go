package cpython

import (
	"math"
	"sort"

	"github.com/conclab/conclab/bench/frame"
)

// latencyRow summarises latencies (milliseconds) into the lab's summary
// columns: count, min/avg/med/p90/p95/p99/max_ms. Percentiles are exact
// (nearest rank) since client runs are bounded.
func latencyRow(lat []float64) frame.Row {
	r := frame.Row{"count": len(lat)}
	if len(lat) == 0 {
		return r
	}
	s := append([]float64(nil), lat...)
	sort.Float64s(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	pct := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(len(s)))) - 1
		if i < 0 {
			i = 0
		}
		if i >= len(s) {
			i = len(s) - 1
		}
		return s[i]
	}
	r["min_ms"] = s[0]
	r["avg_ms"] = sum / float64(len(s))
	r["med_ms"] = pct(50)
	r["p90_ms"] = pct(90)
	r["p95_ms"] = pct(95)
	r["p99_ms"] = pct(99)
	r["max_ms"] = s[len(s)-1]
	return r
}

// summaryColumns fixes the column order of client frames.
var summaryColumns = []string{"strategy", "client", "load", "count", "errors", "elapsed_s", "rps",
	"min_ms", "avg_ms", "med_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"}

func newSummaryFrame(name string) *frame.Frame {
	f := frame.New(name)
	for _, c := range summaryColumns {
		k := frame.Number
		if c == "strategy" || c == "client" || c == "load" {
			k = frame.Label
		}
		_ = f.AddColumn(c, k)
	}
	return f
}
