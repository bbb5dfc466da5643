package pymodel

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

// A burn charges what it was asked for, not half a chunk more: the model's
// framework cost is two short burns a request, and a few µs each were 5 %
// of it. Measured in the thread's CPU time (a busy machine does not stretch
// it), over burns whose lengths fall at different points of a chunk (~5 µs),
// the median of 21 each leaving out a burn that took an interrupt. Cut to
// what remains, a burn overshoots by about one reading of the clock; a
// whole last chunk overshot by half a chunk on average.
func TestBurnCPUOvershoot(t *testing.T) {
	if !threadCPUReal {
		t.Skip("no per-thread CPU clock here")
	}
	median := func(xs []time.Duration) time.Duration { slices.Sort(xs); return xs[len(xs)/2] }
	// What one reading of the clock costs, as a burn's last one does.
	runtime.LockOSThread()
	reads := make([]time.Duration, 21)
	for i := range reads {
		a := threadCPU()
		reads[i] = threadCPU() - a
	}
	runtime.UnlockOSThread()
	read := median(reads)

	var sum time.Duration
	const n = 8
	for k := range n {
		d := 100*time.Microsecond + time.Duration(k)*700*time.Nanosecond
		over := make([]time.Duration, 21)
		for i := range over {
			used, err := burnFor(d, func() error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if used < d {
				t.Fatalf("burnFor(%v) used %v of thread CPU; want at least %v", d, used, d)
			}
			over[i] = used - d
		}
		sum += median(over)
	}
	if mean, limit := sum/n, read+1500*time.Nanosecond; mean > limit {
		t.Errorf("burns of 100–105 µs overshot by %v on average (median of 21 each); want under %v (a clock reading, %v, and 1.5 µs)", mean, limit, read)
	}
}
