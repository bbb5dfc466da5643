package s001

import (
	"fmt"
	"strings"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/display"
)

// The listing's span in app001.py and its guilty line: the four endpoints,
// from the first decorator to the last return, and the blocking sleep
// inside async def async_block.
const (
	listingFrom  = `@app.get("/sync-sleep")`
	listingTo    = `return {"result": result`
	guiltyInside = `async def async_block`
	guiltyCall   = `time.sleep(`
)

// Listing is the Python under judgment as a lesson shows it: the four
// endpoints of app001.py with their line numbers, the blocking time.sleep
// inside async def marked ◀. An error when the file no longer holds them.
func Listing() (display.Data, error) {
	text, err := Code("app001.py")
	if err != nil {
		return display.Data{}, err
	}
	lines := strings.Split(text, "\n")
	from, to, mark := -1, -1, -1
	for i, l := range lines {
		switch {
		case from < 0 && strings.Contains(l, listingFrom):
			from = i
		case from >= 0 && mark < 0 && strings.Contains(l, guiltyInside):
			for j := i + 1; j < len(lines) && mark < 0; j++ {
				if strings.Contains(lines[j], guiltyCall) {
					mark = j
				}
			}
		case from >= 0 && strings.Contains(l, listingTo):
			to = i
		}
	}
	if from < 0 || to < 0 || mark < 0 {
		return display.Data{}, fmt.Errorf("s001: Listing: app001.py no longer has its four endpoints and the blocking sleep")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "`app001.py`, lines %d–%d (◀ line %d: a blocking sleep inside `async def`)\n\n```python\n", from+1, to+1, mark+1)
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%3d  %s", i+1, lines[i])
		if i == mark {
			b.WriteString("    # ◀")
		}
		b.WriteString("\n")
	}
	b.WriteString("```\n")
	return display.Markdown(b.String()), nil
}

// Lesson is the lessons' experiment with these knobs: each endpoint's model
// beside the real app001.py (Versus, traced), after Validate — a bad knob
// is an error naming it, before anything runs. With endpoints, only those
// (an unknown one is an error naming the four). lab.Run leaves the real
// rows out, with a line saying why, where CPython lacks FastAPI.
func (k Knobs) Lesson(endpoints ...string) (bench.Experiment, error) {
	if err := k.Validate(); err != nil {
		return bench.Experiment{}, err
	}
	e := k.Versus(cpython.Options{Trace: true})
	if len(endpoints) == 0 {
		return e, nil
	}
	keep := map[string]bool{}
	for _, ep := range endpoints {
		if _, err := k.Strategy(ep); err != nil {
			return bench.Experiment{}, err
		}
		keep[ep] = true
	}
	all := e.Strategies
	e.Strategies = nil
	for _, s := range all {
		if keep[strings.TrimPrefix(s.Label(), cpython.RealPrefix)] {
			e.Strategies = append(e.Strategies, s)
		}
	}
	e.Name += ": " + strings.Join(endpoints, ", ")
	return e, nil
}

// Concurrency is what a run's trace says about each row beside the
// arithmetic: strategy, handlers_at_once (most handlers running at once),
// waits_at_once (most sleeps at once; the model traces its sleeps, the
// real app only its handlers), threads (distinct threads that ran the
// handlers), waves (elapsed ÷ Wait, measured) and est_waves (Waves). A
// column the row's trace cannot tell is NaN.
func (k Knobs) Concurrency(res *bench.Result) *frame.Frame {
	f := frame.Of(fmt.Sprintf("source 001: %d requests at once, measured beside the estimate", k.N),
		"strategy", "handlers_at_once", "waits_at_once", "threads", "waves", "est_waves")
	if res == nil || res.Summary == nil {
		return f
	}
	for _, row := range res.Summary.Texts("strategy") {
		ep := strings.TrimPrefix(row, cpython.RealPrefix)
		r := frame.Row{"strategy": row, "handlers_at_once": nil, "waits_at_once": nil, "threads": nil,
			"waves": res.Value(row, "elapsed_s") / k.Wait.Seconds(), "est_waves": nil}
		if _, err := k.Strategy(ep); err == nil {
			r["est_waves"] = k.Waves(ep)
		}
		threads := map[string]bool{}
		io := false
		for _, ev := range res.Events(row) {
			switch ev.Phase {
			case trace.Handler:
				threads[ev.Thread] = true
			case trace.IO:
				io = true
			}
		}
		if len(threads) > 0 {
			r["handlers_at_once"] = res.MaxOverlap(row, trace.Handler)
			r["threads"] = len(threads)
		}
		if io {
			r["waits_at_once"] = res.MaxOverlap(row, trace.IO)
		}
		f.MustAppend(r)
	}
	return f
}
