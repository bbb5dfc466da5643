package bench_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/conclab/conclab/bench"
)

// spin keeps n goroutines busy for d of wall-clock time each.
func spin(n int, d time.Duration) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			end := time.Now().Add(d)
			x := uint64(1)
			for time.Now().Before(end) {
				for j := 0; j < 1000; j++ {
					x = x*6364136223846793005 + 1
				}
			}
			_ = x
		}()
	}
	wg.Wait()
}

// One goroutine spinning keeps a thread running or ready to run the whole
// time, however busy the machine is.
func ExampleMeasureCPU() {
	u, err := bench.MeasureCPU(func() error {
		spin(1, 100*time.Millisecond)
		return nil
	})
	fmt.Println(err, u.Elapsed >= 100*time.Millisecond, u.Demand() > 0.6)
	// Output: <nil> true true
}

// Demand counts the threads that wanted a CPU: with GOMAXPROCS=1 one at a
// time, with 2 two, whatever other processes do to the CPUs given.
func TestMeasureCPUDemandFollowsGOMAXPROCS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("run-queue wait is read from Linux's scheduler statistics")
	}
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs")
	}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	for _, tc := range []struct {
		procs    int
		min, max float64
	}{{1, 0.6, 1.6}, {2, 1.6, 8}} {
		runtime.GOMAXPROCS(tc.procs)
		u, err := bench.MeasureCPU(func() error { spin(4, 300*time.Millisecond); return nil })
		if err != nil || u.Waiting < 0 {
			t.Fatalf("GOMAXPROCS=%d: MeasureCPU = %v, %v; want scheduler statistics", tc.procs, u, err)
		}
		if d := u.Demand(); d < tc.min || d > tc.max {
			t.Errorf("GOMAXPROCS=%d: Demand() = %.2f (%v); want %.1f–%.1f", tc.procs, d, u, tc.min, tc.max)
		}
		if u.Parallelism() > u.Demand()+1e-9 {
			t.Errorf("GOMAXPROCS=%d: Parallelism %.2f > Demand %.2f", tc.procs, u.Parallelism(), u.Demand())
		}
	}
}

func TestMeasureCPUReturnsFsError(t *testing.T) {
	want := fmt.Errorf("boom")
	if _, err := bench.MeasureCPU(func() error { return want }); err != want {
		t.Errorf("MeasureCPU(f) error = %v; want f's error %v", err, want)
	}
}
