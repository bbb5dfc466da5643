package load

import (
	"fmt"
	"sync"
	"time"
)

// Burst sends N requests at once, each on its own new connection; the
// headline figure is the elapsed time of the whole burst. N is at most
// MaxConcurrency.
type Burst struct{ N int }

func (m Burst) String() string { return fmt.Sprintf("burst %d", m.N) }

// Validate implements Model.
func (m Burst) Validate() error {
	if m.N <= 0 || m.N > MaxConcurrency {
		return fmt.Errorf("load: Burst.N must be in 1..%d, got %d", MaxConcurrency, m.N)
	}
	return nil
}

func (m Burst) outline() outline { return outline{requests: int64(m.N)} }

// run starts N workers, each dialling its connection, then releases them
// together.
func (m Burst) run(e *engine) {
	e.setLevel(float64(m.N))
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < m.N && e.hard.Err() == nil; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := e.newWorker(i)
			defer w.release()
			select {
			case <-gate:
			case <-e.hard.Done():
				return
			}
			if e.ticket() {
				e.send(w, time.Time{})
			}
		}()
	}
	close(gate)
	wg.Wait()
}
