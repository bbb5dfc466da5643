package load

import (
	"fmt"
	"runtime"
	"syscall"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// processCPU is the user+system CPU time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// selfCheck attaches the generator's warnings: a late start, a run cut
// short, the generator's own CPU (the process's less in-process servers'),
// late sends and dropped arrivals (open models), requests cut off by the
// hard stop, workers held up by the raw results' writer.
func (e *engine) selfCheck(res *metrics.Result, end time.Time) {
	o := &e.cfg.o
	if e.late > 100*time.Millisecond {
		res.Warn(fmt.Sprintf("started %v after StartAt %s: this agent was late, so it did not begin together with the others", e.late.Round(time.Millisecond), o.StartAt.Format(time.RFC3339Nano)))
	}
	if r, ok := e.reason.Load().(string); ok && r != "" {
		res.Warn(r + ": the model did not run to its end")
	}
	elapsed := end.Sub(e.start)
	cpu := max(processCPU()-e.cpu0-(o.ServerCPU()-e.srvCPU0), 0)
	if elapsed >= 200*time.Millisecond && o.CPUWarn > 0 {
		share := cpu.Seconds() / (elapsed.Seconds() * float64(runtime.GOMAXPROCS(0)))
		if share >= o.CPUWarn {
			res.Warn(fmt.Sprintf("the generator used %.0f%% of the process's %d CPUs (%.2fs CPU in %.2fs, servers' own CPU left out when known): the figures may be bounded by the generator, not the target",
				100*share, runtime.GOMAXPROCS(0), cpu.Seconds(), elapsed.Seconds()))
		}
	}
	if e.cfg.plan.open {
		if late := res.Late(); late > 0 && float64(late) > 0.01*float64(res.Count()) {
			res.Warn(fmt.Sprintf("%d of %d sends (%.1f%%) started more than %v after their intended time: the generator could not keep the rate; corrected latencies include that delay",
				late, res.Count(), 100*float64(late)/float64(max(res.Count(), 1)), o.LateThreshold))
		}
		if d := res.Dropped; d > 0 {
			res.Warn(fmt.Sprintf("%d arrivals dropped: all MaxInFlight connections were busy until the planned end (with DropWhenBusy: when they were due), so they were never sent; the target, or the generator, could not keep the rate", d))
		}
	}
	if n := res.Outcomes(metrics.Interrupted); n > 0 {
		res.Warn(fmt.Sprintf("%d requests were still in flight after the graceful stop and were cut off", n))
	}
	if e.reqs != nil {
		if w := time.Duration(e.reqs.waited.Load()); w >= 10*time.Millisecond {
			res.Warn(fmt.Sprintf("workers waited %v in all for the raw results' writer (Options.Requests) to keep up: the run went slower than it would have without --out", w.Round(time.Millisecond)))
		}
	}
}
