package s002

import (
	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/sources/shape"
)

// Checks are the shape of an Experiment's result (model) with these
// knobs, and of the real rows of a Versus frame (nil: none): every client
// makes its N checks without errors in no less than its waves; on the
// model, from the trace, as many checks at once as the client allows, in
// Waves waves of that size (a pool of 30 over 100 checks: 30, 30, 30, 10).
func (k Knobs) Checks(model *bench.Result, versus *frame.Frame) []shape.Check {
	var out []shape.Check
	for _, c := range k.Clients {
		l := c.Label()
		out = append(out,
			shape.Equal(l+": checks answered", model.Value(l, "count"), k.N),
			shape.Equal(l+": errors", model.Value(l, "errors"), 0),
			shape.AtLeast(l+": waits (≥ its waves)", model.Value(l, "elapsed_s")/k.Latency.Seconds(), 0.95*float64(k.Waves(c))),
			shape.Equal(l+": checks at once", model.MaxOverlap(l, trace.IO), k.AtOnce(c)),
			shape.Equal(l+": waves", model.Waves(l, trace.IO), waveSizes(k.N, k.AtOnce(c))))
		if versus == nil {
			continue
		}
		r := cpython.RealPrefix + l
		el, err := versus.Get("strategy", r, "elapsed_s")
		if err != nil {
			continue
		}
		count, _ := versus.Get("strategy", r, "count")
		errs, _ := versus.Get("strategy", r, "errors")
		out = append(out, shape.Equal(r+": checks answered", count, k.N), shape.Equal(r+": errors", errs, 0),
			shape.AtLeast(r+": waits (≥ its waves)", el/k.Latency.Seconds(), 0.95*float64(k.Waves(c))))
	}
	return out
}

// waveSizes is n split into waves of at most w.
func waveSizes(n, w int) []int {
	var out []int
	for n > 0 {
		out = append(out, min(n, w))
		n -= w
	}
	return out
}
