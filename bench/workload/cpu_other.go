//go:build !linux

package workload

import "time"

// ThreadCPUTime returns ErrNoThreadClock: only Linux is supported.
func ThreadCPUTime() (time.Duration, error) { return 0, ErrNoThreadClock }
