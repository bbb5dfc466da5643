package strategy

import (
	"context"
	"fmt"

	"github.com/conclab/conclab/bench/pymodel"
)

// Gunicorn is gunicorn's gthread worker running Flask on the Python model:
// Workers prefork processes (real processes sharing the listening socket)
// of Threads threads each, def handlers, no event loop.
type Gunicorn struct {
	Name    string // row label; "" means "gunicorn Nw x Mt"
	Workers int    // prefork worker processes; 0 means 1
	Threads int    // gthread threads per worker; 0 means 1
	// CPUCall and IOCall say how the handler calls a CPU or an I/O step
	// whose own Call is empty ("" means block).
	CPUCall, IOCall pymodel.Call
	// Accept is how the workers share arriving connections: AcceptGreedy
	// (""; real gunicorn: the worker that wakes takes what is pending) or
	// AcceptBalanced (the "what if": one each in turn).
	Accept string
	Python
}

var _ Strategy = Gunicorn{}

// Label is Name, or "gunicorn Nw x Mt".
func (g Gunicorn) Label() string {
	if g.Name != "" {
		return g.Name
	}
	return fmt.Sprintf("gunicorn %dw x %dt", max(g.Workers, 1), max(g.Threads, 1))
}

// Validate reports a negative count, an unknown call name or Accept
// policy.
func (g Gunicorn) Validate() error {
	l := g.Label()
	if err := checkCounts(l, "Workers", g.Workers, "Threads", g.Threads); err != nil {
		return err
	}
	if err := checkAccept(l, g.Accept); err != nil {
		return err
	}
	if err := checkCalls(l, g.CPUCall, g.IOCall); err != nil {
		return err
	}
	return g.Python.validate(l)
}

// Start starts the server for w and returns once every worker process is
// ready. The caller must Close it; cancelling ctx closes it too.
func (g Gunicorn) Start(ctx context.Context, w pymodel.Workload, o StartOptions) (Server, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return startSpec(ctx, g.spec(), w, o)
}

// String describes the strategy in one line.
func (g Gunicorn) String() string { return g.spec().describe() }

func (g Gunicorn) spec() spec {
	s := pythonSpec(g.Label(), kindGunicorn, g.Workers, g.Threads, false, g.CPUCall, g.IOCall, g.Python)
	s.Accept = g.Accept
	return s
}
