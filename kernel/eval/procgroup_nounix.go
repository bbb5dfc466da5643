//go:build !unix

package eval

import "os/exec"

func startInGroup(*exec.Cmd)       {}
func killGroup(int) error          { return nil }
func groupAlive(pid int) bool      { return false }
func isGroupLeader(*exec.Cmd) bool { return false }
