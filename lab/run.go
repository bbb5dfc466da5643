package lab

import (
	"context"
	"fmt"
	"strings"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/strategy"
)

// Run runs e with bench.Run, leaving out the real strategies this machine
// cannot run: when a strategy with an Available(ctx) error method (bench/
// cpython's Real) reports a missing interpreter or package, one line
// "skipped: ..." names them and how to make conclab's environment, and the
// other strategies run alone. For experiments read by their shape rather
// than by ModelVsReal's figures (source 000's print order, a real
// waterfall beside the model's). An experiment left with no strategy is
// an error.
func Run(ctx context.Context, e bench.Experiment) (*bench.Result, error) {
	e, err := runnable(ctx, e)
	if err != nil {
		return nil, err
	}
	return bench.Run(ctx, e)
}

// runnable is e without the real strategies this machine cannot run, said
// in a line (see Run).
func runnable(ctx context.Context, e bench.Experiment) (bench.Experiment, error) {
	var keep []strategy.Strategy
	var left []string
	var why error
	for _, s := range e.Strategies {
		if av, ok := s.(interface{ Available(context.Context) error }); ok {
			if err := av.Available(ctx); err != nil {
				left = append(left, s.Label())
				why = err
				continue
			}
		}
		keep = append(keep, s)
	}
	if len(left) > 0 {
		line := fmt.Sprintf("skipped %s: %v", strings.Join(left, ", "), why)
		if err := show(line, line); err != nil {
			return e, err
		}
	}
	if len(keep) == 0 {
		return e, fmt.Errorf("lab: Run %q: no strategy can run here (%v)", e.Name, why)
	}
	e.Strategies = keep
	return e, nil
}
