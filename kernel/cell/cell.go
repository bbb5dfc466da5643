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
	mu.Unlock()
	return func() {
		mu.Lock()
		cur = prev
		mu.Unlock()
	}
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
