package workload

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// ThreadCPUTime returns the CPU time (user + system) used so far by the
// calling OS thread, from CLOCK_THREAD_CPUTIME_ID. It is only meaningful
// when the goroutine is locked to its thread (runtime.LockOSThread) between
// two reads.
func ThreadCPUTime() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("workload: thread CPU clock: %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
