package pymodel

import (
	"sync"
	"sync/atomic"
	"time"
)

// DefaultSwitchInterval is CPython's sys.getswitchinterval(): how long a
// thread may keep the GIL while another thread waits for it.
const DefaultSwitchInterval = 5 * time.Millisecond

// GIL is a global interpreter lock: a real lock with FIFO hand-off. Whoever
// holds it runs "Python code"; CPU steps hold it and call [GIL.Yield]
// periodically, which hands it to the longest waiter once the holder has had
// it for the switch interval. A nil *GIL, or one made with free threading, is
// a no-op (PEP 703).
//
// A GIL is safe for concurrent use.
type GIL struct {
	interval time.Duration
	free     bool

	mu      sync.Mutex
	held    bool
	waiters []chan struct{}
	since   time.Time // when the current holder took it

	nwait atomic.Int64 // number of waiters (read without mu by Yield)

	waitNs    atomic.Int64
	holdNs    atomic.Int64
	acquires  atomic.Int64
	handoffs  atomic.Int64
	maxWaitNs atomic.Int64
}

// NewGIL returns a GIL with the given switch interval (DefaultSwitchInterval
// if zero or negative). If free is true the GIL never blocks anyone.
func NewGIL(interval time.Duration, free bool) *GIL {
	if interval <= 0 {
		interval = DefaultSwitchInterval
	}
	return &GIL{interval: interval, free: free}
}

// FreeThreaded reports whether the GIL is disabled.
func (g *GIL) FreeThreaded() bool { return g == nil || g.free }

// Interval is the switch interval.
func (g *GIL) Interval() time.Duration {
	if g == nil {
		return DefaultSwitchInterval
	}
	return g.interval
}

// Acquire takes the GIL, waiting in FIFO order behind earlier waiters.
func (g *GIL) Acquire() { g.acquire() }

// acquire takes the GIL and reports when it was asked for, when it was
// got (the holder's since) and whether it had to wait.
func (g *GIL) acquire() (start, since time.Time, waited bool) {
	if g.FreeThreaded() {
		return
	}
	start = time.Now()
	g.mu.Lock()
	if !g.held && len(g.waiters) == 0 {
		// The clock is read under the lock, after the last holder's
		// release read it: held intervals touch but never overlap, even
		// when this call began before that release.
		since = time.Now()
		g.held = true
		g.since = since
		g.mu.Unlock()
		g.acquires.Add(1)
		return since, since, false
	}
	ch := make(chan struct{})
	g.waiters = append(g.waiters, ch)
	g.nwait.Add(1)
	g.mu.Unlock()
	<-ch            // ownership handed over by Release; since set there
	since = g.since // written before the hand-off; only the holder changes it
	w := time.Since(start).Nanoseconds()
	g.waitNs.Add(w)
	g.acquires.Add(1)
	for {
		m := g.maxWaitNs.Load()
		if w <= m || g.maxWaitNs.CompareAndSwap(m, w) {
			break
		}
	}
	return start, since, true
}

// Release gives the GIL up, handing it directly to the longest waiter.
func (g *GIL) Release() { g.release() }

// release gives the GIL up and returns when: the next holder's since.
func (g *GIL) release() (now time.Time) {
	if g.FreeThreaded() {
		return
	}
	g.mu.Lock()
	now = time.Now() // under the lock: see acquire
	if !g.held {
		g.mu.Unlock()
		panic("pymodel: release of an unheld GIL")
	}
	g.holdNs.Add(now.Sub(g.since).Nanoseconds())
	if len(g.waiters) > 0 {
		ch := g.waiters[0]
		g.waiters[0] = nil
		g.waiters = g.waiters[1:]
		g.nwait.Add(-1)
		g.since = now
		g.mu.Unlock()
		close(ch)
		return now
	}
	g.held = false
	g.mu.Unlock()
	return now
}

// Yield is the eval-breaker check a CPU step makes between chunks of work:
// if the caller (the holder) has held the GIL for at least the switch
// interval and another thread is waiting, it drops the GIL, which goes to the
// longest waiter, and queues to take it back. It reports whether it switched.
func (g *GIL) Yield() bool {
	if !g.due() {
		return false
	}
	g.handoffs.Add(1)
	g.Release()
	g.Acquire()
	return true
}

// due reports whether the holder must hand the GIL over: it has held it for
// the switch interval and another thread waits.
func (g *GIL) due() bool {
	if g.FreeThreaded() || g.nwait.Load() == 0 {
		return false
	}
	g.mu.Lock()
	d := time.Since(g.since) >= g.interval && len(g.waiters) > 0
	g.mu.Unlock()
	return d
}

// GILStats are cumulative counters of a GIL.
type GILStats struct {
	Acquires int64         // successful acquisitions
	Handoffs int64         // forced switches after the switch interval
	Wait     time.Duration // total time threads waited to acquire
	MaxWait  time.Duration // longest single wait
	Hold     time.Duration // total time the GIL was held
}

// Stats returns the counters so far.
func (g *GIL) Stats() GILStats {
	if g == nil {
		return GILStats{}
	}
	return GILStats{
		Acquires: g.acquires.Load(),
		Handoffs: g.handoffs.Load(),
		Wait:     time.Duration(g.waitNs.Load()),
		MaxWait:  time.Duration(g.maxWaitNs.Load()),
		Hold:     time.Duration(g.holdNs.Load()),
	}
}
