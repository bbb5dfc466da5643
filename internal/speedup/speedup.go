// Package speedup is a test helper for the lab's CPU-parallelism tests:
// "parallel is at least N times faster than serial", measured on a shared
// machine where another process can take a core at any moment.
package speedup

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Check gathers the speed-up measurements of one test. The zero value is
// ready to use.
type Check struct {
	overloaded atomic.Bool
}

// Expect checks that parallel is at least want times faster than serial.
// It measures up to three interleaved rounds and passes on the best. When
// every round falls short while the machine is overloaded (load average
// above the core count), it only logs, and SkipIfOverloaded then skips the
// test at its end, so the test's other measurements still run.
func (c *Check) Expect(t testing.TB, what string, want float64, serial, parallel func() time.Duration) {
	t.Helper()
	var got []float64
	for round := 0; round < 3; round++ {
		s, p := serial(), parallel()
		r := float64(s) / float64(p)
		got = append(got, r)
		if r >= want {
			t.Logf("%s: serial %v, parallel %v: %.2fx", what, s, p, r)
			return
		}
	}
	msg := fmt.Sprintf("%s: speed-ups %.2f; want ≥ %.1fx", what, got, want)
	if load := LoadAverage(); load > float64(runtime.NumCPU()) {
		t.Logf("%s (machine overloaded: load %.1f on %d CPUs)", msg, load, runtime.NumCPU())
		c.overloaded.Store(true)
		return
	}
	t.Error(msg)
}

// SkipIfOverloaded skips the test, when it has not failed otherwise, if an
// Expect could not be measured because the machine was overloaded.
func (c *Check) SkipIfOverloaded(t testing.TB) {
	t.Helper()
	if c.overloaded.Swap(false) && !t.Failed() {
		t.Skip("some speed-ups were not measurable: the machine is overloaded (see log)")
	}
}

// LoadAverage is the 1-minute load average (Linux), or 0 when unknown.
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
