package eval

import (
	"context"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/traefik/yaegi/interp"

	"github.com/conclab/conclab/kernel/eval/internal/reach"
)

// How a cell is interrupted. yaegi's only way to stop interpreted code is
// global: cancelling ExecuteWithContext bumps the interpreter's run id, and
// every interpreted frame (of any goroutine: the cell's, a goroutine an
// earlier cell left running, a handler that compiled net/http is calling)
// stops at its next step when its id is older, running only the deferred
// calls it has registered so far. A handler stopped between mu.Lock() and
// its `defer mu.Unlock()` — or one blocked in mu.Lock() that gets the lock
// after the stop — leaves the mutex locked for good. So an interrupt is
// done in two steps:
//
//  1. Ask: cell.Context() is cancelled (lab code watching it returns) and
//     time.Sleep calls in progress return. Most cells then end on their
//     own within milliseconds (a benchmark's call returns ctx's error and
//     the cell panics with it), and nothing else is touched.
//  2. Stop: a cell still running stopGrace later is stopped by yaegi. Once
//     its goroutine has returned (see settle), the run id is set back, so
//     that only interpreted code that ran during that moment was stopped:
//     interpreted functions compiled code calls afterwards (handlers),
//     and goroutines of earlier cells that were waiting in compiled code,
//     run on normally.
//
// The yaegi internals used (the interpreter's id, its frame's done channel)
// are reached through package reach; if their layout is not the expected
// one, step 2 behaves as plain yaegi does (the id is not set back).

// stopGrace is how long an interrupted cell may take to end on its own
// before yaegi stops it.
const stopGrace = 250 * time.Millisecond

// stopState is the interrupt state of the cell running now.
type stopState struct {
	// hard is closed when yaegi was asked to stop the cell.
	hard chan struct{}
	once sync.Once
	// runID is the interpreter's run id before the stop; restore is true
	// when it was read.
	runID   uint64
	restore bool
	// over is closed once the stop is over (the run id set back, or
	// not to be).
	over     chan struct{}
	overOnce sync.Once
}

func newStopState() *stopState {
	return &stopState{hard: make(chan struct{}), over: make(chan struct{})}
}

func (st *stopState) end() { st.overOnce.Do(func() { close(st.over) }) }

// execute runs prog; when ctx is cancelled, the cell is stopped as
// described above.
func (s *Session) execute(ctx context.Context, prog *interp.Program) (reflect.Value, error) {
	hard, stopHard := context.WithCancel(context.Background())
	defer stopHard()
	var mu sync.Mutex
	finished := false
	var timer *time.Timer
	unwatch := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if finished {
			return
		}
		timer = time.AfterFunc(stopGrace, func() {
			mu.Lock()
			defer mu.Unlock()
			if !finished {
				s.hardStop()
				stopHard()
			}
		})
	})
	defer unwatch()
	v, err := s.in.ExecuteWithContext(hard, prog)
	mu.Lock()
	finished = true
	if timer != nil {
		timer.Stop()
	}
	mu.Unlock()
	return v, err
}

// hardStop records the run id and marks the cell as being stopped by yaegi.
func (s *Session) hardStop() {
	s.mu.Lock()
	st := s.stop
	s.mu.Unlock()
	st.once.Do(func() {
		if p, ok := reach.Of(s.in).RunID(); ok {
			st.runID, st.restore = atomic.LoadUint64(p), true
		}
		close(st.hard)
	})
}

// afterStop is called once an interrupted cell's goroutine has returned
// (settled): if yaegi stopped it, the run id is set back and the
// interpreter's frame gets a fresh (open) done channel, so interpreted code
// that runs from now on is not stopped.
func (s *Session) afterStop(settled bool) {
	s.mu.Lock()
	st := s.stop
	s.mu.Unlock()
	select {
	case <-st.hard:
	default:
		return // the cell ended on its own
	}
	defer st.end()
	if !settled || !st.restore {
		return
	}
	p, ok := reach.Of(s.in).RunID()
	if !ok {
		return
	}
	// yaegi's stop adds one; anything else means another stop happened.
	if atomic.CompareAndSwapUint64(p, st.runID+1, st.runID) {
		reach.Of(s.in).RefreshDone()
	}
}

// sleep is time.Sleep in cells. It returns early on the cell's own
// goroutine when the cell is interrupted while it sleeps (step 1); yaegi's
// stop (step 2) wakes it too, so that it stops. A goroutine the
// interrupted cell started ends instead (cellscope.go), at once if it is
// sleeping. Other goroutines sleep on.
func (s *Session) sleep(d time.Duration) {
	if s.goroutines.doomed() {
		runtime.Goexit()
	}
	if d <= 0 {
		return
	}
	if inSynctestBubble() {
		// Waiting on the session's channels (made outside the bubble)
		// would keep the bubble's clock from advancing.
		time.Sleep(d)
		return
	}
	s.mu.Lock()
	ctx, st := s.cellCtx, s.stop
	s.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	asked, hard := ctx.Done(), st.hard
	if ctx.Err() != nil {
		asked = nil
	}
	for {
		select {
		case <-t.C:
			s.waitStopOver()
			return
		case <-asked:
			asked = nil
			if s.goroutines.doomed() {
				runtime.Goexit()
			}
			if reach.OnExecuteGoroutine() {
				return
			}
		case <-hard:
			hard = nil
			if reach.OnExecuteGoroutine() {
				return
			}
		}
	}
}

// waitStopOver holds a goroutine waking from a sleep while yaegi stops the
// running cell: interpreted code it ran in that moment would be stopped
// too, whichever cell started it. It waits until the run id is set back
// (a goroutine of the stopped cell ends instead; the stopped cell's own
// goroutine goes on, to stop).
func (s *Session) waitStopOver() {
	s.mu.Lock()
	st := s.stop
	s.mu.Unlock()
	select {
	case <-st.hard:
	default:
		return
	}
	select {
	case <-st.over:
		return
	default:
	}
	if s.goroutines.doomed() {
		runtime.Goexit()
	}
	if reach.OnExecuteGoroutine() {
		return
	}
	select {
	case <-st.over:
	case <-time.After(time.Second):
	}
}

// inSynctestBubble reports whether the calling goroutine is in a
// testing/synctest bubble, whose fake clock starts at midnight UTC, January
// 1, 2000 (testing/synctest has no call telling it).
func inSynctestBubble() bool { return time.Now().Year() == 2000 }
