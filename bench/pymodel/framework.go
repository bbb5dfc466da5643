package pymodel

import (
	"context"
	"fmt"
	"time"
)

// FrameworkStep names the steps a runtime adds for its FrameworkCost; they
// are traced as trace.Framework.
const FrameworkStep = "framework"

// FrameworkCost is what the server stack itself costs per request — not the
// handler's steps but the HTTP parsing, routing, validation, serialising and
// thread hand-offs around them — as CPU time holding the GIL, charged where
// CPython spends it. The zero value charges nothing (the model's default:
// only the workload's steps cost). Measure this machine's with
// bench/cpython's calibration (conclab calibrate); docs/calibration.md says
// how.
type FrameworkCost struct {
	// Loop is an ASGI request's cost on the event loop: uvicorn's HTTP
	// parsing and response writing, Starlette's routing, FastAPI's
	// validation and JSON encoding. Half is charged in the callback that
	// starts the request, before the handler, half after the handler
	// returns, in the callback that sends the response.
	Loop time.Duration `json:"loop,omitempty"`
	// Threadpool is what a def handler adds on ASGI: run_in_threadpool's
	// hand-off to an AnyIO worker thread and back. It is charged on the
	// loop, half when the handler is dispatched and half when its result
	// comes back.
	Threadpool time.Duration `json:"threadpool,omitempty"`
	// Thread is a WSGI request's cost on its gthread thread: gunicorn's
	// parsing and response writing and Flask's dispatch (the worker's
	// accept loop is folded in). Half is charged before the handler, half
	// after it.
	Thread time.Duration `json:"thread,omitempty"`
	// ThreadStart is a Python thread's start (threading.Thread.start and
	// its bootstrap), charged on a pool's thread the first time it runs —
	// pools start threads only as they are needed (AnyIO, a
	// ThreadPoolExecutor, gunicorn's gthread pool) — before its request,
	// holding the GIL.
	ThreadStart time.Duration `json:"thread_start,omitempty"`
}

// IsZero reports whether f charges nothing.
func (f FrameworkCost) IsZero() bool { return f == FrameworkCost{} }

// Validate reports a negative cost, naming it.
func (f FrameworkCost) Validate() error {
	for _, c := range []struct {
		name string
		d    time.Duration
	}{{"Loop", f.Loop}, {"Threadpool", f.Threadpool}, {"Thread", f.Thread}, {"ThreadStart", f.ThreadStart}} {
		if c.d < 0 {
			return fmt.Errorf("pymodel: FrameworkCost.%s must not be negative, got %v", c.name, c.d)
		}
	}
	return nil
}

// String is e.g. "loop 190µs, threadpool 120µs, thread 0s, thread start 80µs".
func (f FrameworkCost) String() string {
	return fmt.Sprintf("loop %v, threadpool %v, thread %v, thread start %v", f.Loop, f.Threadpool, f.Thread, f.ThreadStart)
}

// frameworkHalf is half of d as a framework step, or false when d is zero.
func frameworkHalf(d time.Duration) (Step, bool) {
	if d <= 0 {
		return Step{}, false
	}
	s := Burn(max(d/2, time.Nanosecond))
	s.Name = FrameworkStep
	return s, true
}

// startThread charges a new thread's start on t (nothing when ThreadStart
// is zero).
func (r *Runtime) startThread(ctx context.Context, t *pythread) error {
	d := r.cfg.Framework.ThreadStart
	if d <= 0 {
		return nil
	}
	s := Burn(d)
	s.Name = FrameworkStep
	t.acquire()
	defer t.release()
	return t.run(ctx, s)
}

// chargeFramework runs half of d on t (holding the GIL, traced as
// trace.Framework); nothing when d is zero.
func (r *Runtime) chargeFramework(q *request, t *pythread, d time.Duration) error {
	s, ok := frameworkHalf(d)
	if !ok {
		return nil
	}
	return t.run(q.ctx, s)
}
