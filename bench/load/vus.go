package load

import (
	"sync"
	"sync/atomic"
	"time"
)

// vuPlan is what the closed models (Closed, RampingVUs, Sequential) ask of
// the VU loop: vus workers, each sending a request, waiting for the
// response and thinking, for at most iterations requests each (0: no
// limit) and total requests together (0: no limit), with, when schedule
// is set, only the first schedule.VUs(elapsed) of them active.
type vuPlan struct {
	vus        int
	iterations int
	total      int64
	think      time.Duration
	schedule   VUSchedule
}

// rampTick is how often a VU schedule is read.
const rampTick = 20 * time.Millisecond

// runVUs runs the closed-model loop until the soft stop, the schedule's
// end or the counts run out.
func (e *engine) runVUs(p vuPlan) {
	if e.runLoops(p) {
		return
	}
	var active atomic.Int64 // VUs with an index below it may send
	active.Store(int64(p.vus))
	e.setLevel(float64(p.vus))
	var started atomic.Int64
	var wg sync.WaitGroup
	wake := newBroadcast() // a rising level wakes parked VUs
	if p.schedule != nil {
		n, _ := p.schedule.VUs(0)
		active.Store(int64(n))
		e.setLevel(float64(n))
		wg.Add(1)
		go func() { // the ramp controller
			defer wg.Done()
			t := time.NewTicker(rampTick)
			defer t.Stop()
			for {
				n, done := p.schedule.VUs(time.Since(e.start))
				if done {
					e.stop("")
					return
				}
				if old := active.Swap(int64(n)); int64(n) > old {
					wake.signal()
				}
				e.setLevel(float64(n))
				select {
				case <-t.C:
				case <-e.stopNew:
					return
				}
			}
		}()
	}
	for i := 0; i < p.vus && e.hard.Err() == nil; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := e.newWorker(i)
			defer w.release()
			var think *time.Timer
			for it := 0; p.iterations == 0 || it < p.iterations; it++ {
				for int64(i) >= active.Load() { // parked by the ramp
					ch := wake.wait()
					if int64(i) < active.Load() {
						break
					}
					select {
					case <-ch:
					case <-e.stopNew:
						return
					}
				}
				if p.total > 0 && started.Add(1) > p.total {
					return
				}
				if !e.ticket() {
					return
				}
				e.send(w, time.Time{})
				if p.think > 0 {
					if think == nil {
						think = time.NewTimer(p.think)
					} else {
						think.Reset(p.think)
					}
					select {
					case <-think.C:
					case <-e.stopNew:
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// broadcast wakes every goroutine waiting on it: wait returns a channel
// that signal closes.
type broadcast struct {
	mu sync.Mutex
	ch chan struct{}
}

func newBroadcast() *broadcast { return &broadcast{ch: make(chan struct{})} }

func (b *broadcast) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ch
}

func (b *broadcast) signal() {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.ch)
	b.ch = make(chan struct{})
}
