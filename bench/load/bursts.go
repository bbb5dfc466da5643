package load

import (
	"fmt"
	"sync"
	"time"
)

// Bursts sends Count bursts of N requests at once to the same server, one
// after another: each burst starts Pause after every request of the one
// before has ended, so each lands on a server that is idle again (how
// source 003's gunicorn shares one burst over its workers, counted burst
// by burst on one server, or several clients' runs against one app).
// Every request is on a new connection, as in Burst. Requests are issued
// in burst order, so a trace's requests numbered by arrival fall into
// bursts of N in order.
type Bursts struct {
	N, Count int
	Pause    time.Duration
}

func (m Bursts) String() string {
	return fmt.Sprintf("%d bursts of %d, %v apart", m.Count, m.N, m.Pause)
}

// Validate implements Model.
func (m Bursts) Validate() error {
	switch {
	case m.N <= 0 || m.N > MaxConcurrency:
		return fmt.Errorf("load: Bursts.N must be in 1..%d, got %d", MaxConcurrency, m.N)
	case m.Count <= 0 || m.Count > 1000:
		return fmt.Errorf("load: Bursts.Count must be in 1..1000, got %d", m.Count)
	case m.Pause < 0 || m.Pause > time.Minute:
		return fmt.Errorf("load: Bursts.Pause must be in 0..1m, got %v", m.Pause)
	}
	return nil
}

func (m Bursts) outline() outline { return outline{requests: int64(m.N) * int64(m.Count)} }

func (m Bursts) run(e *engine) {
	e.setLevel(float64(m.N))
	for b := 0; b < m.Count; b++ {
		if b > 0 && m.Pause > 0 {
			t := time.NewTimer(m.Pause)
			select {
			case <-t.C:
			case <-e.stopNew:
				t.Stop()
				return
			case <-e.hard.Done():
				t.Stop()
				return
			}
		}
		if e.stopped() {
			return
		}
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for i := 0; i < m.N && e.hard.Err() == nil; i++ {
			wg.Add(1)
			go func(id int) {
				defer wg.Done()
				w := e.newWorker(id)
				defer w.release()
				select {
				case <-gate:
				case <-e.hard.Done():
					return
				}
				if e.ticket() {
					e.send(w, time.Time{})
				}
			}(b*m.N + i)
		}
		close(gate)
		wg.Wait()
	}
}
