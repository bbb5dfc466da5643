//go:build !linux

package pymodel

import "time"

var wallStart = time.Now()

// threadCPU falls back to wall time where no per-thread CPU clock exists.
func threadCPU() time.Duration { return time.Since(wallStart) }

const threadCPUReal = false
