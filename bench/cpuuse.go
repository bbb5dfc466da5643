package bench

import (
	"fmt"
	"time"
)

// CPUUse is what a piece of work asked of the machine's CPUs, read from the
// operating system's scheduler statistics of this process's threads.
//
// Parallelism (Running / Elapsed) is how many CPUs the work got: it falls
// when other processes load the machine. Demand ((Running + Waiting) /
// Elapsed) is how many of the process's working threads were running or
// ready to run (waiting in the run queue for a CPU) on average: other load
// on the machine cannot take it away, so a check of "how much could run at
// once" is made on Demand. With GOMAXPROCS=1 it stays near 1; with more Ps
// and enough work it exceeds 1 (hand-offs between threads locked to
// goroutines can lift it above GOMAXPROCS).
type CPUUse struct {
	// Elapsed is the wall-clock time the work took.
	Elapsed time.Duration
	// Running is the CPU time the process's threads were given meanwhile.
	Running time.Duration
	// Waiting is the time the process's working threads (those given at
	// least 2 % of Elapsed in CPU time) were ready to run but waited for a
	// CPU; negative when the system does not report it (not Linux, or no
	// scheduler statistics).
	Waiting time.Duration
}

// Parallelism is Running / Elapsed: the number of CPUs the work was given
// on average.
func (u CPUUse) Parallelism() float64 {
	if u.Elapsed <= 0 {
		return 0
	}
	return u.Running.Seconds() / u.Elapsed.Seconds()
}

// Demand is (Running + Waiting) / Elapsed: the number of working threads
// that were running or ready to run on average, whatever else the machine
// ran. It is Parallelism when Waiting is unknown.
func (u CPUUse) Demand() float64 {
	if u.Elapsed <= 0 {
		return 0
	}
	w := u.Waiting
	if w < 0 {
		w = 0
	}
	return (u.Running + w).Seconds() / u.Elapsed.Seconds()
}

// String shows the three figures, e.g. "1.02 s: 1.95 CPUs given, 1.99 threads ready".
func (u CPUUse) String() string {
	if u.Waiting < 0 {
		return fmt.Sprintf("%.2f s: %.2f CPUs given (run-queue wait unknown)", u.Elapsed.Seconds(), u.Parallelism())
	}
	return fmt.Sprintf("%.2f s: %.2f CPUs given, %.2f threads ready", u.Elapsed.Seconds(), u.Parallelism(), u.Demand())
}

// minShare: a thread whose CPU time in the window is under 1/minShare of it
// does not count as wanting a CPU.
const minShare = 50

// MeasureCPU runs f and reports the CPU use of this whole process while it
// ran (servers and load generator in the process included, other processes
// such as pool workers not). f's error is returned with what was measured.
func MeasureCPU(f func() error) (CPUUse, error) {
	before, okBefore := threadTimes()
	cpuBefore := processCPU()
	start := time.Now()
	err := f()
	u := CPUUse{Elapsed: time.Since(start), Running: processCPU() - cpuBefore, Waiting: -1}
	after, okAfter := threadTimes()
	if okBefore && okAfter {
		var run, wait time.Duration
		for id, a := range after {
			b := before[id] // a thread started meanwhile counts from zero
			r := a.run - b.run
			run += r
			// The run-queue wait of the threads that did the work: a
			// runtime thread that mostly sleeps (sysmon, timers, idle
			// Ms) waits for a CPU at each wake-up on a loaded machine,
			// and would count as wanting one.
			if r >= u.Elapsed/minShare {
				wait += a.wait - b.wait
			}
		}
		u.Running, u.Waiting = run, wait
	}
	return u, err
}
