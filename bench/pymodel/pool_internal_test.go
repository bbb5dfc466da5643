package pymodel

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPoolCancelledWaiterLosesNoSlot: a waiter that gives up leaves the
// pool whole, whether put handed it the slot or not.
func TestPoolCancelledWaiterLosesNoSlot(t *testing.T) {
	p := newPool("t", 1)
	slot, started, err := p.take(context.Background())
	if err != nil || slot != 1 || !started {
		t.Fatalf("take = %d, %v, %v; want 1, started", slot, started, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, _, err := p.take(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("take on a full pool = %v; want the deadline", err)
	}
	p.put(slot)
	again, started, err := p.take(context.Background())
	if err != nil || again != 1 || started {
		t.Fatalf("take after put = %d, %v, %v; want 1, not started again", again, started, err)
	}
	p.put(again)
	if len(p.free) != 1 || len(p.waiters) != 0 {
		t.Errorf("pool left with %d free, %d waiters; want 1 and 0", len(p.free), len(p.waiters))
	}
}

// TestPoolReusesNewestFree: the most recently freed thread is taken first,
// as AnyIO pops its newest idle worker.
func TestPoolReusesNewestFree(t *testing.T) {
	p := newPool("t", 3)
	a, _, _ := p.take(context.Background())
	b, _, _ := p.take(context.Background())
	p.put(a)
	p.put(b)
	if got, started, _ := p.take(context.Background()); got != b || started {
		t.Errorf("took %d (started %v); want %d, the last freed, already started", got, started, b)
	}
}
