//go:build unix

package notebook

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/conclab/conclab/internal/proctree"
)

// setProcessGroup starts cmd in a process group of its own, so the whole
// group can be killed, and Ctrl-C at a terminal reaches only the parent.
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup kills p's process group (p leads it) with SIGKILL.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}

func interruptProcess(p *os.Process) error { return p.Signal(os.Interrupt) }

// childSetup keeps the event pipe out of the processes the cells start.
func childSetup(events *os.File) { syscall.CloseOnExec(int(events.Fd())) }

// killTokenProcesses kills (SIGKILL) every process but except whose
// environment holds RunTokenEnv=token (see internal/proctree).
func killTokenProcesses(token string, except int) { proctree.Kill(RunTokenEnv, token, except) }
