package pymodel

import (
	"context"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/trace"
)

// pool is a fixed set of numbered threads (AnyIO's limiter tokens, an
// executor's threads, gthread threads): taking one waits, in FIFO order,
// until one is free; its number names the thread in traces.
type pool struct {
	name  string // thread name prefix: "anyio", "to_thread", ...
	slots chan int
	names []string
}

func newPool(name string, n int) *pool {
	p := &pool{name: name, slots: make(chan int, n), names: make([]string, n+1)}
	for i := 1; i <= n; i++ {
		p.slots <- i
		p.names[i] = fmt.Sprintf("%s-%d", name, i)
	}
	return p
}

// take waits for a free thread, or fails with ctx.
func (p *pool) take(ctx context.Context) (int, error) {
	select {
	case i := <-p.slots:
		return i, nil
	default:
	}
	select {
	case i := <-p.slots:
		return i, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func (p *pool) put(i int) { p.slots <- i }

// thread is the name of thread i.
func (p *pool) thread(i int) string { return p.names[i] }

// Thread names of the traces' lanes.
const (
	// LoopThread is the event loop's thread (the main thread).
	LoopThread = "loop"
	// QueueLane holds requests waiting for the event loop.
	QueueLane = "loop queue"
	// TaskLane holds async def handlers (coroutines, on no one thread)
	// and their awaited I/O.
	TaskLane = "asyncio tasks"
	// ProcessPoolLane holds steps waiting for a process-pool worker.
	ProcessPoolLane = "process pool"
)

// span records [start, now] of phase p for request req on thread, and
// returns now. With tracing off it only returns now.
func (r *Runtime) span(req int64, thread string, p trace.Phase, start time.Time) time.Time {
	return r.rec.Span(req, r.cfg.Worker, thread, p, start)
}

// StepPhase is the trace phase a step's run is recorded as: io (write for a
// print step), cpu, or cpu_nogil for CPU work that releases the GIL.
func StepPhase(s Step) trace.Phase {
	switch {
	case s.IsIO() && s.Kind == KindCustom && s.Name == "print":
		return trace.Write
	case s.IsIO():
		return trace.IO
	case s.ReleasesGIL:
		return trace.CPUNoGIL
	case s.Kind == KindBurn && s.Name == FrameworkStep:
		return trace.Framework
	}
	return trace.CPU
}

// tracing reports whether t records.
func (t *pythread) tracing() bool { return t.rec != nil }

// record adds [start, now] of phase p on t's lane and returns now.
func (t *pythread) record(p trace.Phase, start time.Time) time.Time {
	return t.rec.Span(t.req, t.worker, t.name, p, start)
}
