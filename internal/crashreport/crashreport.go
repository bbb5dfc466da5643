// Package crashreport reads what a Go process prints when the runtime ends
// it — a fatal error (stack overflow, out of memory, concurrent map
// writes), a panic nothing recovered, a fault signal — and tells why it
// ended, in one line. It is the one crash-report parser of conclab: the
// kernel's crash watcher reads the crash output the kernel routes to it
// (debug.SetCrashOutput), and the notebook runner reads the standard error
// of the process running a notebook.
//
// The runtime writes its "fatal error: ..." line to standard error only,
// not to the crash output: there the fatal error is told by the frames
// under runtime.throw (runtime.newstack for a stack overflow, and so on).
package crashreport

import (
	"strings"
	"sync"
)

// A Report is a crash report as it is written: it keeps, in bounded memory,
// the lines that tell why the process ended and the last lines; a goroutine
// dump of any size is otherwise dropped. Safe for concurrent use.
type Report struct {
	mu       sync.Mutex
	partial  []byte // the current line, capped at maxLine
	first    string // the first line that is not blank
	fatal    string // after "fatal error: "
	stack    string // "goroutine stack exceeds ..."
	panicked string // after "panic: "
	signal   string // "SIGSEGV: segmentation violation" and the like
	frames   uint   // the throw kinds whose frames were seen (bit per throws index)
	tail     []string
}

const (
	maxLine = 1 << 10
	// Tail is how many of the last lines a Report keeps.
	Tail = 8
)

// Write adds what the process printed.
func (r *Report) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range p {
		if b == '\n' {
			r.line(string(r.partial))
			r.partial = r.partial[:0]
			continue
		}
		if len(r.partial) < maxLine {
			r.partial = append(r.partial, b)
		}
	}
	return len(p), nil
}

// throws are the fatal errors told by their frames, most telling first:
// the frame names, the message, and advice.
var throws = []struct {
	frames  []string
	message string
	hint    string
}{
	{[]string{"runtime.newstack", "runtime.morestack"}, "stack overflow", "runaway recursion?"},
	{[]string{"maps.fatal", "runtime.mapassign", "runtime.mapaccess"}, "concurrent map access",
		"a map written by one goroutine while another reads or writes it: guard it with a sync.Mutex, or use sync.Map"},
	{[]string{"runtime.sysMap", "(*mheap).grow", "(*mheap).sysAlloc"}, "out of memory", "an allocation larger than the machine can give"},
	{[]string{"sync.fatal", "sync.throw"}, "sync misuse", "e.g. unlock of an unlocked mutex"},
	{[]string{"runtime.checkdead", "all goroutines are asleep"}, "all goroutines are asleep - deadlock", ""},
}

func (r *Report) line(s string) {
	s = strings.TrimRight(s, "\r ")
	if strings.TrimSpace(s) == "" {
		return
	}
	if r.first == "" {
		r.first = strings.TrimSpace(s)
	}
	switch {
	case strings.HasPrefix(s, "fatal error: "):
		if r.fatal == "" {
			r.fatal = strings.TrimPrefix(strings.TrimPrefix(s, "fatal error: "), "runtime: ")
		}
	case strings.HasPrefix(s, "runtime: goroutine stack exceeds "):
		if r.stack == "" {
			r.stack = strings.TrimPrefix(s, "runtime: ")
		}
	case strings.HasPrefix(s, "panic: "):
		if r.panicked == "" {
			r.panicked = strings.TrimPrefix(s, "panic: ")
		}
	case isSignalLine(s):
		if r.signal == "" {
			r.signal = s
		}
	}
	for i, t := range throws {
		for _, f := range t.frames {
			if strings.Contains(s, f) {
				r.frames |= 1 << i
			}
		}
	}
	if len(r.tail) == Tail {
		copy(r.tail, r.tail[1:])
		r.tail = r.tail[:Tail-1]
	}
	r.tail = append(r.tail, s)
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

// Kinds of a Cause.
const (
	FatalError = "FatalError" // the runtime's "fatal error"
	Panic      = "panic"      // a panic nothing recovered
	Signal     = "Signal"     // a fault the runtime reported
)

// A Cause is why a process ended, as its crash report tells.
type Cause struct {
	// Kind is FatalError, Panic, Signal, or "" when the report names
	// none (it may still have lines: First).
	Kind string
	// Message is the runtime's one-line message: "stack overflow
	// (goroutine stack exceeds 1000000000-byte limit)", "concurrent map
	// writes", the panic's value, the signal line.
	Message string
	// Hint is advice on a fatal error told by its frames ("" for none).
	Hint string
	// First and Last are the first and the last lines that are not blank.
	First, Last string
}

// String is the cause in one line: "fatal error: stack overflow (runaway
// recursion?)", "panic: boom", the signal line; for a report that names no
// cause, its first line; "" for an empty report.
func (c Cause) String() string {
	switch c.Kind {
	case FatalError:
		if c.Hint != "" {
			return "fatal error: " + c.Message + " (" + c.Hint + ")"
		}
		return "fatal error: " + c.Message
	case Panic:
		return "panic: " + c.Message
	case Signal:
		return c.Message
	}
	return c.First
}

// Cause tells why the process ended from what it printed so far.
func (r *Report) Cause() Cause {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.partial) > 0 {
		r.line(string(r.partial))
		r.partial = r.partial[:0]
	}
	c := Cause{First: r.first}
	if n := len(r.tail); n > 0 {
		c.Last = r.tail[n-1]
	}
	switch {
	case r.fatal != "":
		c.Kind, c.Message = FatalError, r.fatal
		if r.stack != "" {
			c.Message += " (" + r.stack + ")"
		}
	case r.panicked != "":
		c.Kind, c.Message = Panic, r.panicked
	case r.signal != "":
		c.Kind, c.Message = Signal, r.signal
	case r.frames != 0:
		for i, t := range throws {
			if r.frames&(1<<i) != 0 {
				c.Kind, c.Message, c.Hint = FatalError, t.message, t.hint
				if r.stack != "" && i == 0 {
					c.Message += " (" + r.stack + ")"
				}
				break
			}
		}
	}
	return c
}

// TailLen is how many last lines the report holds (at most Tail).
func (r *Report) TailLen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.tail)
}
