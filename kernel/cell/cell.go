// Package cell gives code running in a notebook cell the cell's context.
//
// The conclab kernel and notebook runner install a context per executed cell;
// it is cancelled when the user interrupts the cell (or the session closes),
// not when the cell finishes, so servers and goroutines a cell starts keep
// running into later cells until interrupted. Lab code started from a cell
// should take cell.Context() (or a context derived from it) so that an
// interrupt stops it.
package cell

import (
	"context"
	"sync"
)

var (
	mu  sync.RWMutex
	cur context.Context = context.Background()
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
