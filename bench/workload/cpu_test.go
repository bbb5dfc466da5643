package workload_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/conclab/conclab/bench/workload"
)

// closedForm is (hi-1)hi(2hi-1)/6 - (lo-1)lo(2lo-1)/6 for 0 <= lo <= hi.
func closedForm(lo, hi int64) *big.Int {
	f := func(n int64) *big.Int {
		a := big.NewInt(n - 1)
		a.Mul(a, big.NewInt(n))
		a.Mul(a, big.NewInt(2*n-1))
		return a.Div(a, big.NewInt(6))
	}
	if hi <= lo {
		return new(big.Int)
	}
	return new(big.Int).Sub(f(hi), f(lo))
}

func TestSumSquaresRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lo, hi int64
		want   string
	}{
		{0, 0, "0"},
		{0, 1, "0"},
		{0, 2, "1"},
		{0, 4, "14"},
		{3, 5, "25"},
		{5, 3, "0"},
		{-2, 3, "10"},
		{0, 3_000_000, closedForm(0, 3_000_000).String()},
		{4_000_000_000, 4_000_000_100, closedForm(4_000_000_000, 4_000_000_100).String()},
	}
	for _, tc := range tests {
		if got := workload.SumSquaresRange(tc.lo, tc.hi).String(); got != tc.want {
			t.Errorf("SumSquaresRange(%d, %d) = %s; want %s", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestSumSquaresSourceValue(t *testing.T) {
	t.Parallel()
	// python3 -c "print(sum(x**2 for x in range(10_000_000)))"
	const want = "333333283333335000000"
	if got := workload.SumSquares(workload.SourceSumSquaresN).String(); got != want {
		t.Fatalf("SumSquares(1e7) = %s; want %s", got, want)
	}
}

func TestSumSquaresSliced(t *testing.T) {
	t.Parallel()
	errStop := errors.New("stop")
	tests := []struct {
		name        string
		n, slice    int64
		failAt      int // between call that fails (0: never)
		wantCalls   int
		wantErr     bool
		wantErrText string
	}{
		{name: "even slices", n: 1000, slice: 100, wantCalls: 9},
		{name: "ragged", n: 1001, slice: 100, wantCalls: 10},
		{name: "one slice", n: 50, slice: 100, wantCalls: 0},
		{name: "zero", n: 0, slice: 10, wantCalls: 0},
		{name: "between fails", n: 1000, slice: 100, failAt: 3, wantCalls: 3, wantErr: true, wantErrText: "stopped at 300 of 1000"},
		{name: "negative n", n: -1, slice: 10, wantErr: true, wantErrText: "n = -1"},
		{name: "zero slice", n: 10, slice: 0, wantErr: true, wantErrText: "slice = 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			got, err := workload.SumSquaresSliced(context.Background(), tc.n, tc.slice, func() error {
				calls++
				if calls == tc.failAt {
					return errStop
				}
				return nil
			})
			if tc.wantErr {
				if err == nil || !contains(err.Error(), tc.wantErrText) {
					t.Fatalf("err = %v; want one containing %q", err, tc.wantErrText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := workload.SumSquares(tc.n); got != want {
				t.Errorf("sum = %s; want %s", got, want)
			}
			if calls != tc.wantCalls {
				t.Errorf("between called %d times; want %d", calls, tc.wantCalls)
			}
		})
	}
}

func TestSumSquaresSlicedCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	_, err := workload.SumSquaresSliced(ctx, 1_000_000, 1000, func() error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
}

func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestBurnCPU(t *testing.T) {
	// Not parallel: the process CPU clock is the independent check.
	const d = 150 * time.Millisecond
	cpu0, wall0 := processCPU(t), time.Now()
	used, err := workload.BurnCPU(context.Background(), d)
	wall := time.Since(wall0)
	cpu := processCPU(t) - cpu0
	if err != nil {
		t.Fatal(err)
	}
	if used < d || used > d+10*time.Millisecond {
		t.Errorf("BurnCPU(%v) used %v; want %v..%v", d, used, d, d+10*time.Millisecond)
	}
	if cpu < d*9/10 {
		t.Errorf("process CPU grew by %v during BurnCPU(%v); want >= %v", cpu, d, d*9/10)
	}
	if wall < d*9/10 {
		t.Errorf("wall %v < thread CPU %v: impossible for one thread", wall, used)
	}
}

// A short burn pays what it was asked for, not a chunk more: the chunks
// are cut to what remains. The overshoot is thread CPU time, which a busy
// machine does not stretch; the median of 21 leaves out a burn that took an
// interrupt.
func TestBurnCPUShortOvershoot(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{5 * time.Microsecond, 200 * time.Microsecond, 2 * time.Millisecond} {
		over := make([]time.Duration, 21)
		for i := range over {
			used, err := workload.BurnCPU(context.Background(), d)
			if err != nil {
				t.Fatal(err)
			}
			if used < d {
				t.Fatalf("BurnCPU(%v) used %v; want at least %v", d, used, d)
			}
			over[i] = used - d
		}
		slices.Sort(over)
		if m := over[len(over)/2]; m > 5*time.Microsecond {
			t.Errorf("BurnCPU(%v): median overshoot %v of thread CPU; want under 5µs (a chunk is ~20µs)", d, m)
		}
	}
}

func TestBurnCPUSliced(t *testing.T) {
	t.Parallel()
	calls := 0
	used, err := workload.BurnCPUSliced(context.Background(), 100*time.Millisecond, 5*time.Millisecond, func() error {
		calls++
		time.Sleep(time.Millisecond) // not counted as burnt
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if used < 100*time.Millisecond {
		t.Errorf("used %v; want >= 100ms", used)
	}
	// 100 ms / 5 ms = 20 slices; the last one does not hand off.
	if calls < 17 || calls > 20 {
		t.Errorf("between called %d times; want about 19", calls)
	}
}

func TestBurnCPUCancelAndZero(t *testing.T) {
	t.Parallel()
	if used, err := workload.BurnCPU(context.Background(), 0); used != 0 || err != nil {
		t.Errorf("BurnCPU(0) = %v, %v; want 0, nil", used, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := workload.BurnCPU(ctx, time.Hour)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v; want deadline exceeded", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("cancelled burn took %v", el)
	}
}

func BenchmarkSumSquares(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		workload.SumSquares(1_000_000)
	}
}

func ExampleSumSquares() {
	// Source 003's CPU-bound handler: sum(x**2 for x in range(10_000_000)).
	fmt.Println(workload.SumSquares(workload.SourceSumSquaresN))
	// Output: 333333283333335000000
}

func ExampleSumSquaresSliced() {
	handoffs := 0
	sum, err := workload.SumSquaresSliced(context.Background(), 1000, 250, func() error {
		handoffs++ // a runtime releases and retakes its GIL here
		return nil
	})
	fmt.Println(sum, handoffs, err)
	// Output: 332833500 3 <nil>
}

func ExampleBurnCPU() {
	used, err := workload.BurnCPU(context.Background(), 20*time.Millisecond)
	fmt.Println(used >= 20*time.Millisecond, err)
	// Output: true <nil>
}

func ExampleBurnCPUSliced() {
	// 30 ms of thread CPU time, with a hand-off every 5 ms (a GIL's switch
	// interval); the time spent in the hand-off is not counted.
	handoffs := 0
	used, err := workload.BurnCPUSliced(context.Background(), 30*time.Millisecond, 5*time.Millisecond, func() error {
		handoffs++
		return nil
	})
	fmt.Println(used >= 30*time.Millisecond, handoffs >= 4 && handoffs <= 6, err)
	// Output: true true <nil>
}
