// Package cell gives code running in a notebook cell the cell's context.
//
// The conclab kernel and notebook runner install a context per executed cell;
// it is cancelled when the user interrupts the cell (or the session closes),
// not when the cell finishes, so servers and goroutines a cell starts keep
// running into later cells until interrupted. Lab code started from a cell
// should take cell.Context() (or a context derived from it) so that an
// interrupt stops it.
//
// The kernel also records which front-end session asked for the cell to run
// (the execute_request header's session: one per page, tab or client
// connected to the kernel), so that output that a page needs once — the
// ECharts library — is sent once to each page rather than once per kernel.
package cell

import (
	"context"
	"sync"
)

var (
	mu      sync.RWMutex
	cur     context.Context = context.Background()
	session string
	begun   uint64 // cells begun (Set calls)
	depth   int    // Set calls not yet restored
)

// Context returns the context of the cell currently (or most recently)
// executing; context.Background() outside a kernel or runner. Safe for
// concurrent use.
func Context() context.Context {
	mu.RLock()
	defer mu.RUnlock()
	return cur
}

// Set installs ctx as the current cell's context and returns a function that
// restores the previous one. It is called by the evaluator, not by cells.
func Set(ctx context.Context) (restore func()) {
	mu.Lock()
	prev := cur
	cur = ctx
	begun++
	depth++
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			cur = prev
			depth--
			mu.Unlock()
		})
	}
}

var (
	intrMu    sync.Mutex
	intrNext  int
	listeners = map[int]func(){}
)

// OnInterrupt calls f whenever the user interrupts the kernel (the
// interrupt button, interrupt_request, SIGINT), whether or not a cell is
// running — for work started outside cells, such as a widget's run — and
// at shutdown. f must return quickly. The returned function stops the
// calls.
func OnInterrupt(f func()) (remove func()) {
	intrMu.Lock()
	intrNext++
	id := intrNext
	listeners[id] = f
	intrMu.Unlock()
	return func() {
		intrMu.Lock()
		delete(listeners, id)
		intrMu.Unlock()
	}
}

// Interrupted calls the OnInterrupt functions. It is called by the kernel,
// not by cells.
func Interrupted() {
	intrMu.Lock()
	fs := make([]func(), 0, len(listeners))
	for _, f := range listeners {
		fs = append(fs, f)
	}
	intrMu.Unlock()
	for _, f := range fs {
		f()
	}
}

// Running reports whether a cell is executing now, and how many cells have
// begun executing in this process (while one runs, its number). Display
// captures use it to leave a cell's outputs to the cell (display.Capture).
func Running() (n uint64, running bool) {
	mu.RLock()
	defer mu.RUnlock()
	return begun, depth > 0
}

// Session returns the front-end session of the cell currently (or most
// recently) executing: the execute_request header's session, which a Jupyter
// front end draws afresh for every page load, tab and client; "" outside a
// kernel. Safe for concurrent use.
func Session() string {
	mu.RLock()
	defer mu.RUnlock()
	return session
}

// SetSession records id as the session of the cell about to execute. It is
// called by the kernel for each execute_request, not by cells.
func SetSession(id string) {
	mu.Lock()
	session = id
	mu.Unlock()
}
