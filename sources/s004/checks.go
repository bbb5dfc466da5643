package s004

import (
	"strings"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/cpython"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/sources/shape"
)

// Checks are the shape of a Run or Versus summary with these knobs, and of
// the model apps' traces (nil: not checked): on every row, model and real,
// all N rows landed; the clients that post one at a time leave them in
// order and take at least N inserts (each post's own costs come on top,
// more on a busy machine); aiohttp's client is faster than the sync client on the
// same app and side; in the apps' traces one handler at a time for the
// one-at-a-time clients and at least two at once for aiohttp's.
func (k Knobs) Checks(summary, traces *frame.Frame) []shape.Check {
	var out []shape.Check
	el := map[string]float64{}
	for _, r := range summary.Rows() {
		el[r.Text("strategy")] = r.Float("elapsed_s")
	}
	for _, r := range summary.Rows() {
		name := r.Text("strategy")
		waits := r.Float("elapsed_s") / k.Delay.Seconds()
		out = append(out, shape.Equal(name+": rows (no errors)", r.Float("rows")-r.Float("errors"), k.N))
		if !strings.Contains(name, ClientLabel(AiohttpClient)) {
			out = append(out, shape.AtLeast(name+": waits (≥ N)", waits, 0.95*float64(k.N)),
				shape.Equal(name+": rows in order", r.Float("in_order"), 1))
			continue
		}
		sync := strings.Replace(name, ClientLabel(AiohttpClient), ClientLabel(SyncClient), 1)
		if s, ok := el[sync]; ok {
			out = append(out, shape.Less(name+" faster than "+sync, r.Float("elapsed_s"), s))
		}
	}
	if traces == nil {
		return out
	}
	for _, name := range summary.Texts("strategy") {
		if strings.HasPrefix(name, cpython.RealPrefix) {
			continue
		}
		most := trace.MaxOverlap(bench.EventsOf(traces, name), trace.Handler)
		if strings.Contains(name, ClientLabel(AiohttpClient)) {
			out = append(out, shape.AtLeast(name+": handlers at once in the app", float64(most), 2))
		} else {
			out = append(out, shape.Equal(name+": handlers at once in the app", most, 1))
		}
	}
	return out
}
