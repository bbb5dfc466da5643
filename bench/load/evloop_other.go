//go:build !linux

package load

// runLoops reports false: event loops are Linux's (epoll); elsewhere every
// VU is a goroutine.
func (e *engine) runLoops(vuPlan) bool { return false }
