// Package tracecheck holds the trace assertions the lab's CPU-parallelism
// tests share (bench/pymodel, bench/strategy): exact facts of a burst's
// trace that hold whatever else the machine runs.
package tracecheck

import (
	"testing"

	"github.com/conclab/conclab/bench/trace"
)

// AllAtOnce checks that the burst's n steps were traced as exactly n runs
// of phase p, one a step (no hand-offs split them), all open at one
// instant. Every request starts its step long before the first has burnt
// its CPU, on any machine, so steps that nothing serialises overlap.
func AllAtOnce(t testing.TB, evs []trace.Event, p trace.Phase, n int) {
	t.Helper()
	if got := len(trace.Filter(evs, p)); got != n {
		t.Errorf("%s runs = %d; want %d, one a step", p, got, n)
	}
	if got := trace.MaxOverlap(evs, p); got != n {
		t.Errorf("%s runs at once = %d; want %d", p, got, n)
	}
}

// NoGIL checks that no GIL was held or waited for.
func NoGIL(t testing.TB, evs []trace.Event) {
	t.Helper()
	if got := len(trace.Filter(evs, trace.GIL)) + len(trace.Filter(evs, trace.GILWait)); got != 0 {
		t.Errorf("%d GIL and GIL-wait intervals; want none without a GIL", got)
	}
}
