package pymodel

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/trace"
)

// running is the events of either CPU phase renamed to one, so that
// trace.MaxOverlap counts threads running at once, GIL held or not.
func running(evs []trace.Event) []trace.Event {
	var out []trace.Event
	for _, e := range evs {
		if e.Phase == trace.CPU || e.Phase == trace.CPUNoGIL {
			e.Phase = trace.CPU
			out = append(out, e)
		}
	}
	return out
}

// twoThreads runs s on two threads of one process (one GIL): the first
// takes the GIL before the second starts, so the second asks for it while
// the first holds it — the hand-off order is fixed, not left to timing.
// interval is the GIL's switch interval.
func twoThreads(t *testing.T, s Step, interval time.Duration) []trace.Event {
	t.Helper()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	rec := trace.NewRecorder(1 << 16)
	gil := NewGIL(interval, false)
	ctx := context.Background()
	a := &pythread{gil: gil, rec: rec, name: "a", req: 1}
	b := &pythread{gil: gil, rec: rec, name: "b", req: 2}
	a.acquire()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		errs[1] = b.run(ctx, s) // waits: a holds the GIL
		b.release()             // the step returns holding it, as CPython does
	}()
	go func() {
		defer wg.Done()
		// Wait until b is queued for the GIL, then run the step.
		for gil.nwait.Load() == 0 {
			time.Sleep(100 * time.Microsecond)
		}
		errs[0] = a.run(ctx, s)
		a.release()
	}()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return rec.Snapshot().Events
}

// A partly held step on two threads: the second takes the GIL the moment
// the first enters its released part, so the two run at once (on two
// cores) — Pillow's threads overlap. Held intervals never overlap.
func TestPartlyHeldStepsOverlap(t *testing.T) {
	t.Parallel()
	evs := twoThreads(t, BurnHeld(30*time.Millisecond, 0.2), time.Minute) // no forced switch: the order is the test's
	if m := trace.MaxOverlap(evs, trace.GIL); m != 1 {
		t.Errorf("GIL holders at once: %d; want 1", m)
	}
	if m := trace.MaxOverlap(running(evs), trace.CPU); m != 2 {
		t.Errorf("threads running at once: %d; want 2 (the second's held part beside the first's released part)", m)
	}
	// Each thread: one held run and one released run, in that order.
	for _, lane := range []string{"a", "b"} {
		var phases []trace.Phase
		for _, e := range evs {
			if e.Thread == lane && (e.Phase == trace.CPU || e.Phase == trace.CPUNoGIL) {
				phases = append(phases, e.Phase)
			}
		}
		if len(phases) != 2 || phases[0] != trace.CPU || phases[1] != trace.CPUNoGIL {
			t.Errorf("thread %s ran %v; want [cpu cpu_nogil]", lane, phases)
		}
	}
}

// Held throughout, the same two threads never run at once, however the
// switch interval cuts their turns.
func TestFullyHeldStepsSerialise(t *testing.T) {
	t.Parallel()
	evs := twoThreads(t, BurnHeld(30*time.Millisecond, 1), 0) // 5 ms turns
	if m := trace.MaxOverlap(evs, trace.GIL); m != 1 {
		t.Errorf("GIL holders at once: %d; want 1", m)
	}
	if m := trace.MaxOverlap(running(evs), trace.CPU); m != 1 {
		t.Errorf("threads running at once: %d; want 1", m)
	}
	if n := len(trace.Filter(evs, trace.CPUNoGIL)); n != 0 {
		t.Errorf("%d released runs; want none", n)
	}
}

// The split keeps the step's work exact: the parts add up to it.
func TestSplitHeld(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		s            Step
		held, parts  int
		heldD, freeD time.Duration
	}{
		{s: BurnHeld(100*time.Millisecond, 0.25), parts: 2, heldD: 25 * time.Millisecond, freeD: 75 * time.Millisecond},
		{s: Step{Kind: KindCPU, N: 1000, GILReleased: 0.9}, parts: 2, held: 100},
		{s: Step{Kind: KindBurn, Duration: 3, GILReleased: 0.9}, parts: 1}, // 0.3 ns held: no held part
	} {
		parts := splitHeld(c.s)
		if len(parts) != c.parts {
			t.Errorf("splitHeld(%v) = %v; want %d parts", c.s, parts, c.parts)
			continue
		}
		if c.s.Kind == KindCPU {
			if parts[0].N != c.held || parts[0].N+parts[1].N != c.s.N || !parts[1].ReleasesGIL || parts[0].ReleasesGIL {
				t.Errorf("splitHeld(%v) = %+v", c.s, parts)
			}
			continue
		}
		var sum time.Duration
		for _, p := range parts {
			sum += p.Duration
		}
		if sum != c.s.Duration {
			t.Errorf("splitHeld(%v) parts sum to %v; want %v", c.s, sum, c.s.Duration)
		}
		if c.parts == 2 && (parts[0].Duration != c.heldD || parts[1].Duration != c.freeD || !parts[1].ReleasesGIL) {
			t.Errorf("splitHeld(%v) = %+v", c.s, parts)
		}
	}
}
