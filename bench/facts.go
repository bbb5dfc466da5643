package bench

import (
	"fmt"
	"strings"

	"github.com/conclab/conclab/bench/trace"
)

// The trace's exact facts about one strategy of a result, for a notebook's
// shape check: how many intervals of a phase ran at once, in which waves,
// and how many lay inside another phase's intervals (bench/trace's
// MaxOverlap, MaxOverlapPerWorker, Waves and Within on that strategy's
// events). A strategy the result does not hold is a programming error in
// the cell: these panic with a *StrategyError naming it and the strategies
// the result has (the kernel shows it as the cell's error), never a silent
// zero.

// StrategyError is a strategy a Result does not hold.
type StrategyError struct {
	Strategy string
	Known    []string
}

func (e *StrategyError) Error() string {
	return fmt.Sprintf("bench: the result has no strategy %q (strategies: %s)", e.Strategy, strings.Join(e.Known, ", "))
}

// Events are strategy's traced intervals (empty when it was not traced);
// an unknown strategy panics with a *StrategyError.
func (r *Result) Events(strategy string) []trace.Event { return r.events(strategy) }

func (r *Result) events(strategy string) []trace.Event {
	for i, n := range r.names {
		if n == strategy {
			if i < len(r.Traces) {
				return r.Traces[i].Events
			}
			return nil
		}
	}
	panic(&StrategyError{Strategy: strategy, Known: append([]string(nil), r.names...)})
}

// MaxOverlap is the most intervals of phase p that strategy's trace has
// at once (e.g. handlers running at once).
func (r *Result) MaxOverlap(strategy string, p trace.Phase) int {
	return trace.MaxOverlap(r.events(strategy), p)
}

// MaxOverlapPerWorker is MaxOverlap within each worker process, the
// largest over the workers (e.g. GIL holders at once in one process: 1).
func (r *Result) MaxOverlapPerWorker(strategy string, p trace.Phase) int {
	return trace.MaxOverlapPerWorker(r.events(strategy), p)
}

// Waves is the sizes of the waves of phase p in strategy's trace: a wave
// begins with an interval that had to wait for another to end (a pool of
// 40 threads given 100 sleeps: [40 40 20]).
func (r *Result) Waves(strategy string, p trace.Phase) []int {
	return trace.Waves(r.events(strategy), p)
}

// Within counts strategy's intervals of phase inner, and how many of them
// lie inside an interval of phase outer of the same thread (e.g. sleeps
// inside a blocked loop).
func (r *Result) Within(strategy string, inner, outer trace.Phase) (inside, total int) {
	return trace.Within(r.events(strategy), inner, outer)
}

// Value is the summary's number in column col for strategy: what a cell
// compares. An unknown strategy panics with a *StrategyError, an unknown
// column with the summary's *frame.ColumnError.
func (r *Result) Value(strategy, col string) float64 {
	for i, n := range r.names {
		if n == strategy {
			return r.Summary.Float(col, i)
		}
	}
	panic(&StrategyError{Strategy: strategy, Known: append([]string(nil), r.names...)})
}
