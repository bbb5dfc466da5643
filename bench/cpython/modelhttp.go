package cpython

import (
	"context"
	"fmt"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

// startModel starts the model as a bench/strategy HTTP server (prefork
// workers are real processes there), so the same client can drive model
// and reality. The caller must Close it.
func startModel(ctx context.Context, st strategy.Strategy, steps []pymodel.Step) (*strategy.Server, error) {
	return startModelTraced(ctx, st, steps, 0)
}

// startModelTraced is startModel recording a trace of up to traceEvents
// events (0: none).
func startModelTraced(ctx context.Context, st strategy.Strategy, steps []pymodel.Step, traceEvents int) (*strategy.Server, error) {
	srv, err := strategy.New(st, pymodel.Workload{Name: st.Name, Steps: steps})
	if err != nil {
		return nil, fmt.Errorf("cpython: model server %q: %w", st.Name, err)
	}
	srv.TraceEvents = traceEvents
	if err := srv.Start(ctx); err != nil {
		return nil, fmt.Errorf("cpython: model server %q: %w", st.Name, err)
	}
	return srv, nil
}

// strategy001 is the bench/strategy equivalent of a source-001 endpoint on
// a machine of cpus CPUs.
func strategy001(endpoint string, cpus int) (strategy.Strategy, error) {
	st := strategy.Strategy{Name: endpoint, Kind: strategy.Uvicorn, CPUs: cpus}
	switch endpoint {
	case SyncSleep:
	case AsyncBlock:
		st.Async, st.IOCall = true, pymodel.Block
	case AsyncOK:
		st.Async, st.IOCall = true, pymodel.Await
	case Offload:
		st.Async, st.IOCall = true, pymodel.ToThread
	default:
		return st, fmt.Errorf("cpython: unknown source-001 endpoint %q (want one of %v)", endpoint, Endpoints001)
	}
	return st, nil
}

// strategy003 is the bench/strategy equivalent of a source-003 server.
func (c Case003) strategy(name string, cpus int) strategy.Strategy {
	if c.FastAPI {
		return strategy.Strategy{Name: name, Kind: strategy.Uvicorn, Workers: c.Workers, CPUs: cpus}
	}
	return strategy.Strategy{Name: name, Kind: strategy.Gunicorn, Workers: c.Workers, Threads: max(c.Threads, 1), CPUs: cpus}
}

// strategy000 is the bench/strategy equivalent of a source-000 upload
// strategy; the handler's steps carry their own calls.
func strategy000(name string, h pymodel.Handler, cpus int) strategy.Strategy {
	return strategy.Strategy{Name: name, Kind: strategy.Uvicorn, Async: h.Async, CPUs: cpus}
}
