package bench

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type taskTimes struct{ run, wait time.Duration }

// threadTimes reads /proc/self/task/*/schedstat: per thread, the time it
// ran and the time it waited on a run queue. ok is false when the kernel
// does not provide scheduler statistics.
func threadTimes() (map[string]taskTimes, bool) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, false
	}
	out := make(map[string]taskTimes, len(ents))
	for _, e := range ents {
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended meanwhile
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			return nil, false
		}
		run, err1 := strconv.ParseInt(f[0], 10, 64)
		wait, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, false
		}
		out[e.Name()] = taskTimes{run: time.Duration(run), wait: time.Duration(wait)}
	}
	return out, len(out) > 0
}

// processCPU is the process's user+system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
