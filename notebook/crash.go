package notebook

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// crashLog is the standard output and error of a notebook's child process.
// It keeps, in bounded memory, what tells why the process ended: the Go
// runtime's first "fatal error:" and "panic:" lines and a fault signal line,
// and the last lines; a goroutine dump of any size is otherwise dropped.
// Safe for concurrent use.
type crashLog struct {
	mu       sync.Mutex
	partial  []byte // the current line, capped at maxCrashLine
	fatal    string // "fatal error: ..."
	stack    string // "runtime: goroutine stack exceeds ..."
	panicked string // "panic: ..."
	signal   string // "SIGSEGV: segmentation violation" and the like
	tail     []string
}

const (
	maxCrashLine = 1 << 10
	crashTail    = 8
)

func (l *crashLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range p {
		if b == '\n' {
			l.line(string(l.partial))
			l.partial = l.partial[:0]
			continue
		}
		if len(l.partial) < maxCrashLine {
			l.partial = append(l.partial, b)
		}
	}
	return len(p), nil
}

func (l *crashLog) line(s string) {
	s = strings.TrimRight(s, "\r ")
	switch {
	case s == "":
		return
	case strings.HasPrefix(s, "fatal error: "):
		if l.fatal == "" {
			l.fatal = strings.TrimPrefix(s, "fatal error: ")
		}
	case strings.HasPrefix(s, "runtime: goroutine stack exceeds "):
		if l.stack == "" {
			l.stack = strings.TrimPrefix(s, "runtime: ")
		}
	case strings.HasPrefix(s, "panic: "):
		if l.panicked == "" {
			l.panicked = strings.TrimPrefix(s, "panic: ")
		}
	case isSignalLine(s):
		if l.signal == "" {
			l.signal = s
		}
	}
	if len(l.tail) == crashTail {
		copy(l.tail, l.tail[1:])
		l.tail = l.tail[:crashTail-1]
	}
	l.tail = append(l.tail, s)
}

// isSignalLine reports a line like "SIGSEGV: segmentation violation" or
// "unexpected fault address 0x0" that the runtime prints for a fault.
func isSignalLine(s string) bool {
	if strings.HasPrefix(s, "unexpected fault address") || strings.HasPrefix(s, "unexpected signal") {
		return true
	}
	i := strings.Index(s, ": ")
	return i > 3 && strings.HasPrefix(s, "SIG") && strings.ToUpper(s[:i]) == s[:i] && !strings.Contains(s[:i], " ")
}

// cause describes how the process ended, from what it printed and waitErr
// (cmd.Wait's error).
func (l *crashLog) cause(waitErr error) *FatalError {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 {
		l.line(string(l.partial))
		l.partial = nil
	}
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
	switch {
	case l.fatal != "":
		fe.Name = "FatalError"
		fe.Value = strings.TrimPrefix(l.fatal, "runtime: ")
		if l.stack != "" {
			fe.Value += " (" + l.stack + ")"
		}
	case l.panicked != "":
		fe.Name = "panic"
		fe.Value = l.panicked + " (in a goroutine nothing recovered)"
	case l.signal != "":
		fe.Name = "Signal"
		fe.Value = l.signal
	case sig >= 0:
		fe.Name = "Killed"
		fe.Value = fmt.Sprintf("the notebook's process was killed by signal %d (%v)", int(sig), sig)
		if sig == syscall.SIGKILL {
			fe.Value += ": by another process, or by the system's out-of-memory killer"
		}
	default:
		fe.Name = "Exited"
		fe.Value = "the notebook's process exited (" + status + ") while the cell ran"
		if n := len(l.tail); n > 0 {
			fe.Value += "; it last printed: " + oneLine(l.tail[n-1])
		}
	}
	return fe
}
