package strategy

import (
	"context"
	"fmt"

	"github.com/conclab/conclab/bench/pymodel"
)

// Uvicorn is uvicorn running FastAPI/Starlette on the Python model: an
// event loop per worker process; def handlers run on AnyIO's limiter
// (Limiter tokens), async def handlers (Async) on the loop itself. Workers
// > 1 forks that many worker processes sharing the listening socket.
type Uvicorn struct {
	Name    string // row label; "" means "uvicorn Nw def" or "... async def"
	Workers int    // worker processes; 0 means 1
	Limiter int    // AnyIO limiter tokens for def handlers; 0: 40
	Async   bool   // async def handler
	// CPUCall and IOCall say how the handler calls a CPU or an I/O step
	// whose own Call is empty ("" means block).
	CPUCall, IOCall pymodel.Call
	// Accept is how Workers > 1 processes share arriving connections:
	// AcceptGreedy ("": the worker that wakes takes what is pending, as
	// under real gunicorn) or AcceptBalanced (one each in turn).
	Accept string
	Python
}

var _ Strategy = Uvicorn{}

// Label is Name, or "uvicorn Nw def" / "uvicorn Nw async def".
func (u Uvicorn) Label() string {
	if u.Name != "" {
		return u.Name
	}
	kind := "def"
	if u.Async {
		kind = "async def"
	}
	return fmt.Sprintf("uvicorn %dw %s", max(u.Workers, 1), kind)
}

// Validate reports a negative count, an unknown call name or Accept
// policy.
func (u Uvicorn) Validate() error {
	l := u.Label()
	if err := checkCounts(l, "Workers", u.Workers, "Limiter", u.Limiter); err != nil {
		return err
	}
	if err := checkAccept(l, u.Accept); err != nil {
		return err
	}
	if err := checkCalls(l, u.CPUCall, u.IOCall); err != nil {
		return err
	}
	return u.Python.validate(l)
}

// Start starts the server for w and returns once it (and every worker
// process) is ready. The caller must Close it; cancelling ctx closes it too.
func (u Uvicorn) Start(ctx context.Context, w pymodel.Workload, o StartOptions) (Server, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	return startSpec(ctx, u.spec(), w, o)
}

// String describes the strategy in one line.
func (u Uvicorn) String() string { return u.spec().describe() }

func (u Uvicorn) spec() spec {
	s := pythonSpec(u.Label(), kindUvicorn, u.Workers, u.Limiter, u.Async, u.CPUCall, u.IOCall, u.Python)
	s.Accept = u.Accept
	return s
}
