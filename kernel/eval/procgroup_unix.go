//go:build unix

package eval

import (
	"os/exec"
	"syscall"
)

// startInGroup makes cmd the leader of a new process group, so that the
// whole group (the shell and everything it started) can be killed.
func startInGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
}

// killGroup kills every process of the group pgid.
func killGroup(pgid int) error {
	if pgid <= 0 {
		return nil
	}
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}

// groupAlive reports whether a process of group pgid is still running.
func groupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) != syscall.ESRCH
}

// isGroupLeader reports whether cmd's process was started as the leader
// of a process group of its own.
func isGroupLeader(cmd *exec.Cmd) bool {
	return cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid && cmd.SysProcAttr.Pgid == 0
}
