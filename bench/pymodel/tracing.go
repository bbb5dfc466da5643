package pymodel

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/trace"
)

// pool is a set of threads a request takes one of: AnyIO's worker threads
// (the limiter's tokens), an executor's, gunicorn's gthread threads. A free
// thread is reused most recently freed first — AnyIO pops its newest idle
// worker, and a ThreadPoolExecutor starts a thread only when none is idle —
// so a pool starts only as many threads as were ever busy at once; take
// reports whether the thread it gives is starting. Waiters are served in
// arrival order.
type pool struct {
	name  string // thread name prefix: "anyio", "to_thread", ...
	names []string

	mu      sync.Mutex
	free    []int  // free slots, the most recently freed last
	fresh   []bool // slot i has never run (its thread is not started yet)
	waiters []chan int
}

func newPool(name string, n int) *pool {
	p := &pool{name: name, names: make([]string, n+1), fresh: make([]bool, n+1)}
	for i := n; i >= 1; i-- { // slot 1 on top: the first thread is anyio-1
		p.free = append(p.free, i)
		p.names[i] = fmt.Sprintf("%s-%d", name, i)
		p.fresh[i] = true
	}
	return p
}

// take waits for a free thread, or fails with ctx. started reports that the
// thread runs for the first time: its start is part of this request.
func (p *pool) take(ctx context.Context) (slot int, started bool, err error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 && len(p.waiters) == 0 {
		slot = p.free[n-1]
		p.free = p.free[:n-1]
		started = p.fresh[slot]
		p.fresh[slot] = false
		p.mu.Unlock()
		return slot, started, nil
	}
	ch := make(chan int, 1)
	p.waiters = append(p.waiters, ch)
	p.mu.Unlock()
	select {
	case slot = <-ch:
		return slot, false, nil // handed over by put: it has run before
	case <-ctx.Done():
		p.mu.Lock()
		for i, w := range p.waiters {
			if w == ch {
				p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
				p.mu.Unlock()
				return 0, false, ctx.Err()
			}
		}
		p.mu.Unlock()
		// put handed a slot over as ctx ended: give it back.
		p.put(<-ch)
		return 0, false, ctx.Err()
	}
}

// put frees slot i: to the longest waiter, or onto the free stack.
func (p *pool) put(i int) {
	p.mu.Lock()
	if len(p.waiters) > 0 {
		ch := p.waiters[0]
		p.waiters = p.waiters[1:]
		p.mu.Unlock()
		ch <- i
		return
	}
	p.free = append(p.free, i)
	p.mu.Unlock()
}

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
