package strategy

import (
	"context"
	"fmt"

	"github.com/conclab/conclab/bench/pymodel"
)

// GoProcessPool is Go's net/http handing every portable step (sleep, cpu,
// burn, image) to a pool of Workers worker processes, as a Python
// ProcessPoolExecutor would, without a GIL in the parent; steps that are
// not portable (a cell's Go function) run on the request's goroutine.
type GoProcessPool struct {
	Name    string // row label; "" means "go process pool"
	Workers int    // worker processes; 0: one per CPU
}

var _ Strategy = GoProcessPool{}

// Label is Name, or "go process pool".
func (p GoProcessPool) Label() string { return orDefault(p.Name, "go process pool") }

// Validate reports a negative Workers.
func (p GoProcessPool) Validate() error { return checkCounts(p.Label(), "Workers", p.Workers) }

// Start starts the pool's processes and the server for w. The caller must
// Close it; cancelling ctx closes it too.
func (p GoProcessPool) Start(ctx context.Context, w pymodel.Workload, o StartOptions) (Server, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return startSpec(ctx, p.spec(), w, o)
}

// String describes the strategy in one line.
func (p GoProcessPool) String() string {
	if p.Workers > 0 {
		return fmt.Sprintf("%s: go process pool of %d", p.Label(), p.Workers)
	}
	return p.Label() + ": go process pool, one worker per CPU"
}

func (p GoProcessPool) spec() spec {
	return spec{Name: p.Label(), Kind: kindGoProcessPool, ProcessWorkers: p.Workers}
}
