//go:build !linux

package bench

import "time"

type taskTimes struct{ run, wait time.Duration }

// threadTimes has no scheduler statistics here.
func threadTimes() (map[string]taskTimes, bool) { return nil, false }

// processCPU is unknown here.
func processCPU() time.Duration { return 0 }
