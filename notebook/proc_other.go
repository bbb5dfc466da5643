//go:build !unix

package notebook

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

func killGroup(p *os.Process) { _ = p.Kill() }

// interruptProcess cannot interrupt a process here: it kills it.
func interruptProcess(p *os.Process) error { return p.Kill() }

func childSetup(*os.File) {}

func killTokenProcesses(string, int) {}
