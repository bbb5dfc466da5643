package s000print

import (
	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/sources/shape"
)

// Checks are the shape of an Experiment or Versus result: no errors on any
// row; /doPrint the slowest on the model (and for real, when res has the
// real rows); on the model every /doPrint write inside a blocked loop, and
// more of the loop blocked per request than /dontPrint's. Orders and trace
// facts only: how far /doPrint falls behind depends on Lines, the think
// time and this machine (Estimate says by how much it should).
func (k Knobs) Checks(res *bench.Result) []shape.Check {
	var out []shape.Check
	rows := res.Summary.Texts("strategy")
	errs := 0.0
	for _, r := range rows {
		errs += res.Value(r, "errors")
	}
	out = append(out, shape.Equal("errors, every row", errs, 0),
		shape.Equal("slowest (avg), model", shape.Slowest(res.Summary, "avg_ms", Endpoints()...), DoPrint))
	has := map[string]bool{}
	for _, r := range rows {
		has[r] = true
	}
	if has[cpython.RealPrefix+DoPrint] {
		var real []string
		for _, ep := range Endpoints() {
			real = append(real, cpython.RealPrefix+ep)
		}
		out = append(out, shape.Equal("slowest (avg), real", shape.Slowest(res.Summary, "avg_ms", real...), cpython.RealPrefix+DoPrint))
	}
	in, all := res.Within(DoPrint, trace.Write, trace.LoopBlocked)
	blocked := func(s string) float64 { return res.Value(s, "loop_blocked_ms") / res.Value(s, "count") }
	out = append(out, shape.True("every /doPrint write inside a blocked loop", in == all && all > 0),
		shape.Less("loop blocked per request: /dontPrint below /doPrint", blocked(DontPrint), blocked(DoPrint)))
	return out
}
