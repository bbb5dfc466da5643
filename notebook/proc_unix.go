//go:build unix

package notebook

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
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
// environment holds RunTokenEnv=token, found through /proc (Linux; elsewhere
// nothing is found), until none is left, in a bounded number of passes.
func killTokenProcesses(token string, except int) {
	needle := []byte(RunTokenEnv + "=" + token + "\x00")
	self := os.Getpid()
	for pass := 0; pass < 20; pass++ {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := 0
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self || pid == except {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !(bytes.HasPrefix(env, needle) || bytes.Contains(env, append([]byte{0}, needle...))) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				found++
			}
		}
		if found == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond) // a killed process's environ reads empty once it is a zombie
	}
}
