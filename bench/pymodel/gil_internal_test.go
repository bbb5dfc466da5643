package pymodel

import (
	"fmt"
	"sync"
	"testing"

	"github.com/conclab/conclab/bench/trace"
)

// TestGILHeldIntervalsNeverOverlap: whatever the interleaving of takers and
// releasers, the recorded held intervals of one GIL touch but never overlap —
// the "GIL holders at once: 1" the notebooks assert. Many short, uncontended
// and contended acquisitions from several goroutines give the race (a taker
// reading the clock before the last holder's release read it) its chances.
func TestGILHeldIntervalsNeverOverlap(t *testing.T) {
	rec := trace.NewRecorder(1 << 20)
	gil := NewGIL(0, false)
	const goroutines, rounds = 8, 20000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			th := &pythread{gil: gil, rec: rec, name: fmt.Sprint("t", g), req: int64(g + 1)}
			for range rounds {
				th.acquire()
				th.release()
			}
		}()
	}
	wg.Wait()
	evs := rec.Snapshot().Events
	if n := len(evs); n < goroutines*rounds {
		t.Fatalf("%d GIL events recorded; want at least %d", n, goroutines*rounds)
	}
	if m := trace.MaxOverlap(evs, trace.GIL); m != 1 {
		t.Errorf("GIL holders at once: %d; want 1", m)
	}
}
