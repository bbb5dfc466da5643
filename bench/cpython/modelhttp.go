package cpython

import (
	"context"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
)

// modelServer is a started model server (bench/strategy's own families
// all measure their in-process CPU).
type modelServer interface {
	strategy.Server
	InProcessCPU() time.Duration
}

// startModel starts the model as a bench/strategy HTTP server (prefork
// workers are real processes there), so the same client can drive model
// and reality. The caller must Close it.
func startModel(ctx context.Context, st strategy.Strategy, steps []pymodel.Step) (modelServer, error) {
	return startModelTraced(ctx, st, steps, 0)
}

// startModelTraced is startModel recording a trace of up to traceEvents
// events (0: none).
func startModelTraced(ctx context.Context, st strategy.Strategy, steps []pymodel.Step, traceEvents int) (modelServer, error) {
	srv, err := st.Start(ctx, pymodel.Workload{Name: st.Label(), Steps: steps}, strategy.StartOptions{TraceEvents: traceEvents})
	if err != nil {
		return nil, fmt.Errorf("cpython: model server %q: %w", st.Label(), err)
	}
	ms, ok := srv.(modelServer)
	if !ok {
		srv.Close()
		return nil, fmt.Errorf("cpython: model server %q does not measure its CPU", st.Label())
	}
	return ms, nil
}

// strategy001 is the bench/strategy equivalent of a source-001 endpoint on
// a machine of cpus CPUs.
func strategy001(endpoint string, cpus int) (strategy.Strategy, error) {
	st := strategy.Uvicorn{Name: endpoint, Python: strategy.Python{CPUs: cpus}}
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
		return strategy.Uvicorn{Name: name, Workers: c.Workers, Python: strategy.Python{CPUs: cpus}}
	}
	return strategy.Gunicorn{Name: name, Workers: c.Workers, Threads: max(c.Threads, 1), Python: strategy.Python{CPUs: cpus}}
}

// strategy000 is the bench/strategy equivalent of a source-000 upload
// strategy; the handler's steps carry their own calls.
func strategy000(name string, h pymodel.Handler, cpus int) strategy.Strategy {
	return strategy.Uvicorn{Name: name, Async: h.Async, Python: strategy.Python{CPUs: cpus}}
}
