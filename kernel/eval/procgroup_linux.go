package eval

import "syscall"

// setDeathSignal asks Linux to kill the group leader (the shell, or the
// command it execs) when the kernel's process dies without a chance to
// clean up (SIGKILL). Its own children are killed by the session's Close.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
