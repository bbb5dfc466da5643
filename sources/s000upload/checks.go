package s000upload

import (
	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/sources/shape"
)

// Checks are the shape of an Experiment (or Versus) result with these
// knobs and costs c: every row, model and real, without errors (and with
// Iterations, every VU's uploads answered); on the model one GIL holder at
// a time in each process, every asyncio conversion inside a blocked loop,
// its loop blocked for at least most of a conversion at a time; and where
// the arithmetic (Estimate) puts asyncio far behind the others (three
// times their avg: a margin a busy machine taking a core away does not
// close), asyncio the slowest.
func (k Knobs) Checks(res *bench.Result, c *Costs) []shape.Check {
	var out []shape.Check
	has := map[string]bool{}
	for _, s := range res.Summary.Texts("strategy") {
		has[s] = true
	}
	var models []string
	for _, name := range k.strategies() {
		for _, row := range []string{name, cpython.RealPrefix + name} {
			if !has[row] {
				continue
			}
			out = append(out, shape.Equal(row+": errors", res.Value(row, "errors"), 0))
			if k.Iterations > 0 {
				out = append(out, shape.Equal(row+": uploads answered", res.Value(row, "count"), k.VUs*k.Iterations))
			}
		}
		if !has[name] {
			continue
		}
		models = append(models, name)
		out = append(out, shape.Equal(name+": GIL holders at once in a process", res.MaxOverlapPerWorker(name, trace.GIL), 1))
		if name == AsyncIO {
			// The conversion's steps on the loop (a spooled upload's
			// writes run on AnyIO's threads, not the loop).
			var loop []trace.Event
			for _, e := range res.Events(name) {
				if e.Thread == pymodel.LoopThread {
					loop = append(loop, e)
				}
			}
			in, all := trace.Within(loop, trace.CPUNoGIL, trace.LoopBlocked)
			out = append(out, shape.True("asyncio: every conversion step on the loop inside a blocked loop", in == all && all > 0),
				shape.AtLeast("asyncio: longest blocked loop / a conversion", res.Value(name, "loop_blocked_max_ms")/(c.Image().Seconds()*1000), 0.8))
		}
	}
	est := k.Estimate(c)
	a, err := est.Get("strategy", AsyncIO, "avg_ms")
	clear := err == nil && has[AsyncIO] && len(models) > 1
	for _, name := range models {
		if v, err := est.Get("strategy", name, "avg_ms"); name != AsyncIO && (err != nil || a < 3*v) {
			clear = false
		}
	}
	if clear {
		out = append(out, shape.Equal("slowest (avg), model", shape.Slowest(res.Summary, "avg_ms", models...), AsyncIO))
	}
	return out
}
