package notebook

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"

	"github.com/conclab/conclab/internal/crashreport"
)

// crashLog is the standard output and error of a notebook's child process,
// read as a crash report (internal/crashreport, the parser the kernel's
// crash watcher shares) in bounded memory. Safe for concurrent use.
type crashLog struct{ crashreport.Report }

// cause describes how the process ended, from what it printed and waitErr
// (cmd.Wait's error).
func (l *crashLog) cause(waitErr error) *FatalError {
	status := "exit status 0"
	var sig syscall.Signal = -1
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		status = ee.String()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			sig = ws.Signal()
		}
	} else if waitErr != nil {
		status = waitErr.Error()
	}
	fe := &FatalError{Status: status}
	c := l.Cause()
	switch {
	case c.Kind == crashreport.FatalError:
		fe.Name, fe.Value = "FatalError", c.Message
		if c.Hint != "" {
			fe.Value += " (" + c.Hint + ")"
		}
	case c.Kind == crashreport.Panic:
		fe.Name, fe.Value = "panic", c.Message+" (in a goroutine nothing recovered)"
	case c.Kind == crashreport.Signal:
		fe.Name, fe.Value = "Signal", c.Message
	case sig >= 0:
		fe.Name = "Killed"
		fe.Value = fmt.Sprintf("the notebook's process was killed by signal %d (%v)", int(sig), sig)
		if sig == syscall.SIGKILL {
			fe.Value += ": by another process, or by the system's out-of-memory killer"
		}
	default:
		fe.Name = "Exited"
		fe.Value = "the notebook's process exited (" + status + ") while the cell ran"
		if c.Last != "" {
			fe.Value += "; it last printed: " + oneLine(c.Last)
		}
	}
	return fe
}
