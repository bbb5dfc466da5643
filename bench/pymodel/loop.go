package pymodel

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench/trace"
)

// DefaultSlowCallback is asyncio's loop.slow_callback_duration: a callback
// running at least this long is reported as a warning.
const DefaultSlowCallback = 100 * time.Millisecond

// maxWarnings bounds the warnings a loop keeps.
const maxWarnings = 100

// Loop is an event loop: one goroutine running callbacks one at a time, in
// the order they were scheduled. Each callback runs on the loop's Python
// thread, holding the GIL; while it runs nothing else on the loop can.
// A Loop is safe for concurrent use; Call may be called from any goroutine.
type Loop struct {
	gil  *GIL
	cpu  *atomic.Int64 // where CPU measured on the loop's thread goes
	slow time.Duration
	warn func(string)

	rec    *trace.Recorder // nil: not tracing
	worker int
	crowds *crowds // the process's running crowd steps

	mu     sync.Mutex
	queue  []loopCall
	closed bool
	wake   chan struct{}
	done   chan struct{}

	busyNs    atomic.Int64
	maxNs     atomic.Int64
	callbacks atomic.Int64
	slowN     atomic.Int64

	wmu      sync.Mutex
	warnings []string
}

type loopCall struct {
	label string
	req   int64 // the request the callback works for (traces)
	fn    func(t *pythread)
}

// newLoop starts a loop. slow <= 0 disables slow-callback warnings. warn, if
// not nil, receives each warning line as well.
// rec, if not nil, records each callback as a loop_blocked interval.
func newLoop(gil *GIL, cpu *atomic.Int64, cr *crowds, slow time.Duration, warn func(string), rec *trace.Recorder, worker int) *Loop {
	l := &Loop{gil: gil, cpu: cpu, crowds: cr, slow: slow, warn: warn, rec: rec, worker: worker, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go l.run()
	return l
}

// call schedules fn (call_soon_threadsafe). It reports false if the loop is
// closed, in which case fn will never run.
func (l *Loop) call(label string, fn func(t *pythread)) bool { return l.callFor(0, label, fn) }

// callFor is call for request req (named in traces).
func (l *Loop) callFor(req int64, label string, fn func(t *pythread)) bool {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return false
	}
	l.queue = append(l.queue, loopCall{label, req, fn})
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return true
}

func (l *Loop) run() {
	defer close(l.done)
	// The loop is one Python thread, so one OS thread: kept on it, its
	// callbacks do not wait for a thread of Go's between their CPU steps
	// (unlocked, a loop paying 0.23 ms of framework cost a request served
	// about 3 % fewer requests at 100 VUs).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t := &pythread{gil: l.gil, cpuNs: l.cpu, crowds: l.crowds, onLoop: true, rec: l.rec, worker: l.worker, name: LoopThread}
	for {
		l.mu.Lock()
		if len(l.queue) == 0 {
			closed := l.closed
			l.mu.Unlock()
			if closed {
				return
			}
			<-l.wake
			continue
		}
		c := l.queue[0]
		l.queue[0] = loopCall{}
		l.queue = l.queue[1:]
		l.mu.Unlock()

		t.req = c.req
		t.acquire()
		start := time.Now()
		c.fn(t)
		end := time.Now()
		d := end.Sub(start) // monotonic
		if l.rec != nil {
			// Both ends from the wall clock, as the events recorded inside
			// the callback are: start.Add(d) would be off by any step of
			// the wall clock during the callback, and an event inside it
			// could seem to end after it.
			l.rec.Add(trace.Event{Request: c.req, Worker: l.worker, Thread: LoopThread, Phase: trace.LoopBlocked,
				Start: start.UnixNano(), End: end.UnixNano()})
		}
		t.release()
		l.account(c.label, d)
		for i, fn := range t.after {
			fn()
			t.after[i] = nil
		}
		t.after = t.after[:0]
	}
}

func (l *Loop) account(label string, d time.Duration) {
	l.callbacks.Add(1)
	l.busyNs.Add(d.Nanoseconds())
	for {
		m := l.maxNs.Load()
		if d.Nanoseconds() <= m || l.maxNs.CompareAndSwap(m, d.Nanoseconds()) {
			break
		}
	}
	if l.slow > 0 && d >= l.slow {
		l.slowN.Add(1)
		msg := fmt.Sprintf("Executing <Task %s> took %.3f seconds", label, d.Seconds())
		l.wmu.Lock()
		if len(l.warnings) < maxWarnings {
			l.warnings = append(l.warnings, msg)
		}
		l.wmu.Unlock()
		if l.warn != nil {
			l.warn(msg)
		}
	}
}

// close stops accepting callbacks, runs what is already queued, and waits for
// the loop goroutine to end. Queued callbacks must not block forever.
func (l *Loop) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	<-l.done
}

// LoopStats are cumulative counters of an event loop.
type LoopStats struct {
	Callbacks     int64         // callbacks run
	Busy          time.Duration // total time callbacks ran: the loop was blocked
	MaxCallback   time.Duration // longest single callback
	SlowCallbacks int64         // callbacks at or over the slow-callback duration
	Warnings      []string      // asyncio-style warnings, the first 100
}

func (l *Loop) stats() LoopStats {
	if l == nil {
		return LoopStats{}
	}
	l.wmu.Lock()
	w := append([]string(nil), l.warnings...)
	l.wmu.Unlock()
	return LoopStats{
		Callbacks:     l.callbacks.Load(),
		Busy:          time.Duration(l.busyNs.Load()),
		MaxCallback:   time.Duration(l.maxNs.Load()),
		SlowCallbacks: l.slowN.Load(),
		Warnings:      w,
	}
}
