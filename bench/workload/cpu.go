package workload

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"runtime"
	"time"
)

// SourceSumSquaresN is the n of source 003's CPU-bound handler,
// sum(x**2 for x in range(10_000_000)).
const SourceSumSquaresN = 10_000_000

// Sum is an exact unsigned 128-bit sum, as wide as the sum of squares needs:
// Python's integers do not overflow and sum(x**2 for x in range(10**7)) is
// about 3.3e20, past int64. The zero value is 0.
type Sum struct{ Hi, Lo uint64 }

// Add returns s + t (modulo 2^128).
func (s Sum) Add(t Sum) Sum {
	lo, c := bits.Add64(s.Lo, t.Lo, 0)
	hi, _ := bits.Add64(s.Hi, t.Hi, c)
	return Sum{Hi: hi, Lo: lo}
}

// Big returns s as a big.Int.
func (s Sum) Big() *big.Int {
	b := new(big.Int).SetUint64(s.Hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(s.Lo))
}

// String returns s in decimal, as Python prints it.
func (s Sum) String() string { return s.Big().String() }

// SumSquaresRange returns the sum of x*x for lo <= x < hi, computed by a
// plain loop (one multiply and a 128-bit add per x), never by a closed form:
// its point is to burn CPU in proportion to hi-lo. An empty or inverted range
// (hi <= lo) sums to 0. Negative bounds are allowed. It is a pure function,
// safe for concurrent use, and can be called slice by slice so a caller can
// hand off (a GIL, a loop turn) between slices:
//
//	total = total.Add(SumSquaresRange(lo, hi))
func SumSquaresRange(lo, hi int64) Sum {
	var acc Sum
	for x := lo; x < hi; x++ {
		a := x
		if a < 0 {
			a = -a
		}
		h, l := bits.Mul64(uint64(a), uint64(a))
		var c uint64
		acc.Lo, c = bits.Add64(acc.Lo, l, 0)
		acc.Hi += h + c
	}
	return acc
}

// SumSquares returns the sum of x*x for 0 <= x < n: Python's
// sum(x**2 for x in range(n)). n <= 0 sums to 0.
func SumSquares(n int64) Sum { return SumSquaresRange(0, n) }

// SumSquaresSliced computes SumSquares(n) in slices of at most slice numbers,
// calling between (when non-nil) after every slice but the last and checking
// ctx there too. A runtime passes a between that releases and retakes its
// GIL, or yields its loop. It returns the sum so far and the first error from
// ctx or between. n < 0 or slice <= 0 is an error.
func SumSquaresSliced(ctx context.Context, n, slice int64, between func() error) (Sum, error) {
	if n < 0 {
		return Sum{}, fmt.Errorf("workload: sum of squares: n = %d, want >= 0", n)
	}
	if slice <= 0 {
		return Sum{}, fmt.Errorf("workload: sum of squares: slice = %d, want > 0", slice)
	}
	var total Sum
	for lo := int64(0); lo < n; lo += slice {
		hi := min(lo+slice, n)
		total = total.Add(SumSquaresRange(lo, hi))
		if hi == n {
			break
		}
		if err := ctx.Err(); err != nil {
			return total, fmt.Errorf("workload: sum of squares stopped at %d of %d: %w", hi, n, err)
		}
		if between != nil {
			if err := between(); err != nil {
				return total, fmt.Errorf("workload: sum of squares stopped at %d of %d: %w", hi, n, err)
			}
		}
	}
	return total, nil
}

// burnChunk is the number of loop iterations between two clock reads in
// BurnCPU: about 10–30 µs of work, so the clock read (a vDSO call or a
// syscall, ~0.1–1 µs) costs a few percent at most. The first chunk is
// firstChunk, to learn the rate; each later one is cut to what remains
// (nextChunk).
const (
	burnChunk  = 20_000
	firstChunk = 1_000
)

// nextChunk is the number of iterations for a burn's next chunk: as many as
// fit in remain at the rate so far (done iterations in used), burnChunk at
// most and 100 at least (a fraction of a clock read's cost).
func nextChunk(remain, used time.Duration, done int64) int64 {
	if used <= 0 || done <= 0 {
		return burnChunk
	}
	fit := float64(remain) / float64(used) * float64(done)
	return int64(min(max(fit, 100), burnChunk))
}

// ErrNoThreadClock is returned by ThreadCPUTime where the platform has no
// per-thread CPU clock.
var ErrNoThreadClock = errors.New("workload: no per-thread CPU clock on this platform")

// BurnCPU spins on the calling goroutine's OS thread until that thread has
// used d of CPU time (user + system, read from the per-thread CPU clock),
// and returns the CPU time actually used: d plus about one read of the
// clock, as the chunks of work are cut to what remains at the rate so far.
// The goroutine is locked to its thread for the duration, so time the thread
// spends descheduled — other processes, other goroutines on a busy machine —
// is not counted: on 2 busy cores the wall time can be much longer than d,
// which is the point. It checks ctx between chunks. d <= 0 returns at once.
func BurnCPU(ctx context.Context, d time.Duration) (time.Duration, error) {
	return BurnCPUSliced(ctx, d, 0, nil)
}

// BurnCPUSliced is BurnCPU that calls between (when non-nil) each time
// another slice of thread CPU time has been used (slice <= 0 means never).
// Time spent inside between is not counted as burnt even if it uses CPU.
// A runtime passes a between that hands its GIL over every switch interval.
func BurnCPUSliced(ctx context.Context, d, slice time.Duration, between func() error) (time.Duration, error) {
	if d <= 0 {
		return 0, nil
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, err := ThreadCPUTime()
	if err != nil {
		return 0, err
	}
	var used, excluded time.Duration
	next := slice
	var sink Sum
	var done int64
	for n := int64(firstChunk); used < d; n = nextChunk(d-used, used, done) {
		sink = sink.Add(SumSquaresRange(0, n))
		done += n
		now, err := ThreadCPUTime()
		if err != nil {
			return used, err
		}
		used = now - start - excluded
		if err := ctx.Err(); err != nil {
			return used, fmt.Errorf("workload: burn CPU stopped after %v of %v: %w", used, d, err)
		}
		if between != nil && slice > 0 && used >= next && used < d {
			next = used + slice
			if err := between(); err != nil {
				return used, fmt.Errorf("workload: burn CPU stopped after %v of %v: %w", used, d, err)
			}
			after, err := ThreadCPUTime()
			if err != nil {
				return used, err
			}
			excluded += after - now
		}
	}
	burnSink = sink
	return used, nil
}

// burnSink keeps the compiler from discarding BurnCPU's arithmetic.
var burnSink Sum
