package display

import (
	"slices"
	"sync"

	"github.com/conclab/conclab/kernel/cell"
)

// A Capturer takes outputs in place of the cell: an ipywidgets Output
// widget, which shows them inside itself, while it captures (Capture). It
// is a Publisher for displays, updates and clears, takes the text the
// process writes to standard output and error (Stream, name "stdout" or
// "stderr", as the kernel passes it on), and says which display ids it
// shows (Owns), so that an Update of one of them reaches it even after the
// capture ended — a live progress display opened during an Interact run
// keeps updating in place.
type Capturer interface {
	Publisher
	Stream(name, text string) error
	Owns(displayID string) bool
}

type capture struct {
	c      Capturer
	cell   uint64 // cell.Running's number when the capture began
	inCell bool   // a cell was running then
}

var (
	capMu    sync.RWMutex
	captures []*capture // the active ones, innermost last
	known    []Capturer // every capturer until Release, for Update
	flusher  func()
)

// Capture routes outputs to c until end is called: Display, Clear and the
// process's standard output and error go to c instead of the installed
// publisher. Captures nest; the innermost active one takes the outputs.
//
// A cell's own outputs stay with the cell: while a cell runs that began
// after the capture did, that cell's displays and prints go to the cell,
// not to the capture. (Go has no goroutine-local context, so the outputs
// of goroutines running at the same time cannot be told apart: while such
// a cell runs, a capture started before it gets nothing, and what its work
// prints then goes to that cell.)
//
// Pending output of the process is flushed (SetFlusher) at both ends of a
// capture, so what was written before it began does not land in it and
// what was written inside it does. end is safe to call twice.
func Capture(c Capturer) (end func()) {
	flush()
	n, running := cell.Running()
	e := &capture{c: c, cell: n, inCell: running}
	capMu.Lock()
	captures = append(captures, e)
	if !slices.Contains(known, c) {
		known = append(known, c)
	}
	capMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			flush()
			capMu.Lock()
			captures = slices.DeleteFunc(captures, func(x *capture) bool { return x == e })
			capMu.Unlock()
		})
	}
}

// Release forgets c: its active captures end, and Update no longer looks
// for its display ids (an Output widget that was closed).
func Release(c Capturer) {
	capMu.Lock()
	captures = slices.DeleteFunc(captures, func(x *capture) bool { return x.c == c })
	known = slices.DeleteFunc(known, func(x Capturer) bool { return x == c })
	capMu.Unlock()
}

// SetFlusher installs f, which waits until the output the process has
// written so far has reached its destination (the kernel installs its
// session's flush), and returns a function restoring the previous one.
func SetFlusher(f func()) (restore func()) {
	capMu.Lock()
	prev := flusher
	flusher = f
	capMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			capMu.Lock()
			flusher = prev
			capMu.Unlock()
		})
	}
}

func flush() {
	capMu.RLock()
	f := flusher
	capMu.RUnlock()
	if f != nil {
		f()
	}
}

// capturing returns the capturer that takes outputs now, or nil.
func capturing() Capturer {
	n, running := cell.Running()
	capMu.RLock()
	defer capMu.RUnlock()
	for i := len(captures) - 1; i >= 0; i-- {
		e := captures[i]
		if !running || (e.inCell && e.cell == n) {
			return e.c
		}
	}
	return nil
}

// owner returns the known capturer that shows display id id, or nil.
func owner(id string) Capturer {
	capMu.RLock()
	defer capMu.RUnlock()
	for i := len(known) - 1; i >= 0; i-- {
		if known[i].Owns(id) {
			return known[i]
		}
	}
	return nil
}

// CaptureStream hands text written to the process's stdout or stderr (name)
// to the capturer taking outputs now, and reports whether there was one.
// The kernel calls it for every chunk of a cell's output before publishing
// it as a stream message.
func CaptureStream(name, text string) bool {
	c := capturing()
	if c == nil {
		return false
	}
	_ = c.Stream(name, text)
	return true
}
