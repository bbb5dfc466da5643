// Package gonative is the go-native lesson's experiment: the questions of
// sources 001–003 answered with goroutines. An I/O burst of N requests on
// Go's own server styles (a goroutine per request, a semaphore of Limit,
// one at a time), a burst that does not wait (the fixed cost of N
// connections), and a CPU burst of Burns requests each burning Burn of CPU
// under each GOMAXPROCS of Procs, with each burn's slices of CPU recorded
// (Turns: with one P, do the burns run one after another or take turns?).
// FanOut is source 002's fan-out the Go way, with a first-error pattern
// the lesson writes.
//
// The shape of the sources' packages (docs/sources.md): Knobs and
// Default, Validate naming a knob, the experiments through bench.Run,
// Estimate, Checks.
package gonative

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/conclab/conclab/bench/frame"
)

// Knobs are the lesson's settings.
type Knobs struct {
	N     int           // requests in the I/O burst, 1..10,000
	Wait  time.Duration // each I/O request's wait, (0, 1m]
	Limit int           // the bounded strategy's semaphore, 1..N
	Burns int           // CPU-bound requests at once, 1..1,000
	Burn  time.Duration // CPU each one burns, (0, 10s]
	Procs []int         // GOMAXPROCS values for the CPU burst, each 1..1,024
}

// Default is the lesson's: 100 requests waiting 100 ms, a semaphore of
// 10, 20 burns of 40 ms under GOMAXPROCS 1 and every CPU.
var Default = Knobs{N: 100, Wait: 100 * time.Millisecond, Limit: 10, Burns: 20, Burn: 40 * time.Millisecond,
	Procs: []int{1, runtime.NumCPU()}}

// Validate reports a knob out of range, naming it.
func (k Knobs) Validate() error {
	switch {
	case k.N < 1 || k.N > 10_000:
		return fmt.Errorf("gonative: n must be in 1..10000, got %d", k.N)
	case k.Wait <= 0 || k.Wait > time.Minute:
		return fmt.Errorf("gonative: wait must be in (0, 1m], got %v", k.Wait)
	case k.Limit < 1:
		return fmt.Errorf("gonative: limit must be positive, got %d", k.Limit)
	case k.Burns < 1 || k.Burns > 1000:
		return fmt.Errorf("gonative: burns must be in 1..1000, got %d", k.Burns)
	case k.Burn <= 0 || k.Burn > 10*time.Second:
		return fmt.Errorf("gonative: burn must be in (0, 10s], got %v", k.Burn)
	case len(k.Procs) == 0:
		return errors.New("gonative: procs must name at least one GOMAXPROCS value")
	}
	for _, p := range k.Procs {
		if p < 1 || p > 1024 {
			return fmt.Errorf("gonative: procs: GOMAXPROCS must be in 1..1024, got %d", p)
		}
	}
	return nil
}

// The I/O strategies' labels.
const (
	Goroutines = "goroutines"
	Bounded    = "bounded"
	Serial     = "serial"
)

// ProcsLabel is the CPU burst's row under GOMAXPROCS=p.
func ProcsLabel(p int) string { return fmt.Sprintf("GOMAXPROCS=%d", p) }

// Preempt is the Go scheduler's time slice: a goroutine that has run this
// long is preempted (runtime/proc.go's forcePreemptNS).
const Preempt = 10 * time.Millisecond

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Estimate is the arithmetic, one row per strategy: the I/O burst's waves
// (⌈N / at once⌉) and waits; for each GOMAXPROCS p the CPU burst on
// min(p, CPUs) cores: floor_ms (Burns × Burn over the cores), and each
// request's latency if the burns ran one after another (first_ms = Burn,
// avg_ms, max_ms = the floor) or took turns in Preempt slices (turns_first_ms,
// turns_avg_ms: every burn still running until its last slice).
func (k Knobs) Estimate() *frame.Frame {
	f := frame.Of(fmt.Sprintf("go-native estimated: %d waits of %v; %d burns of %v", k.N, k.Wait, k.Burns, k.Burn),
		"strategy", "workload", "gomaxprocs", "waves", "waits", "elapsed_s", "floor_ms", "first_ms", "avg_ms", "max_ms", "turns_first_ms", "turns_avg_ms")
	for _, s := range []struct {
		name string
		c    int
	}{{Goroutines, k.N}, {Bounded, k.Limit}, {Serial, 1}} {
		w := ceilDiv(k.N, max(1, s.c))
		f.MustAppend(frame.Row{"strategy": s.name, "workload": "io", "waves": w, "waits": w, "elapsed_s": float64(w) * k.Wait.Seconds()})
	}
	burn := float64(k.Burn) / 1e6
	for _, p := range k.Procs {
		cores := min(p, runtime.NumCPU())
		waves := ceilDiv(k.Burns, cores)
		floor := float64(waves) * burn
		// One after another on each core: the i-th wave ends at i × Burn.
		avg := float64(waves+1) / 2 * burn
		// Taking turns: round robin in slices q; a burn of b needs ⌈b/q⌉
		// turns, and the last round's finishers end q apart at the end.
		q := min(burn, float64(Preempt)/1e6)
		perCore := float64(k.Burns) / float64(cores)
		first := max(burn, floor-(perCore-1)*q)
		tavg := max(burn, floor-(perCore-1)*q/2)
		f.MustAppend(frame.Row{"strategy": ProcsLabel(p), "workload": "cpu", "gomaxprocs": p, "waves": waves,
			"elapsed_s": floor / 1000, "floor_ms": floor, "first_ms": burn, "avg_ms": avg, "max_ms": floor,
			"turns_first_ms": first, "turns_avg_ms": tavg})
	}
	return f
}
