package pymodel

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time consumed so far by the calling OS thread. The
// caller must have locked its goroutine to the thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// threadCPUReal reports whether threadCPU measures CPU time (not wall time).
const threadCPUReal = true
