//go:build !linux

package cpython

import (
	"os/exec"
	"syscall"
)

// On systems other than Linux the process-group handling is best effort:
// the child is killed, its children may survive.
func setGroup(cmd *exec.Cmd, withContext bool) {}

func killGroup(pid int, sig syscall.Signal) error {
	if pid <= 1 {
		return nil
	}
	return syscall.Kill(pid, sig)
}

// GroupMembers is only implemented on Linux.
func GroupMembers(pgid int) []int { return nil }

// PythonProcesses is only implemented on Linux.
func PythonProcesses(needle string) []int { return nil }

// groupUsage is unknown outside Linux: no processes, no memory.
func groupUsage(pgid int) (cpu map[int]float64, rssMB float64) { return nil, 0 }
