package widgets

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

// DefaultDebounce is how long the controls of an Interactive must stay
// still after a change before its function runs again.
const DefaultDebounce = 200 * time.Millisecond

// Errors a run's context is cancelled with (context.Cause).
var (
	// ErrSuperseded: a control changed; a run with the new values follows.
	ErrSuperseded = errors.New("widgets: a control changed; the run starts again with the new values")
	// ErrClosed: the Interactive was closed.
	ErrClosed = errors.New("widgets: closed")
	// ErrInterrupted: the user interrupted the kernel.
	ErrInterrupted = errors.New("widgets: the kernel was interrupted")
)

// Interactive is a function shown under its controls with an Output, run
// again whenever a control's value changes: the change cancels the run in
// progress (its context), and once the controls have been still for the
// debounce time one run starts with their values then. Interrupting the
// kernel cancels the run in progress too (context.Cause: ErrInterrupted). Runs never overlap
// and never pile up — the last value wins. What a run displays and prints
// goes to the Output (cleared when the next run shows something); an error
// it returns is shown there too. Make one with NewInteractive, or let
// Interact make, show and run one.
type Interactive struct {
	*VBox
	out *Output
	fn  func(ctx context.Context) error

	mu       sync.Mutex
	debounce time.Duration
	cancel   context.CancelCauseFunc // of the run in progress
	pending  bool                    // a change came since the last run began
	working  bool                    // a run, or the goroutine starting runs, exists
	last     time.Time               // the last change
	closed   bool
	runs     int
	unhook   func()
}

// NewInteractive returns fn with its controls (shown in that order, the
// Output under them); it is not run until Run, or a control changes.
func NewInteractive(fn func(ctx context.Context) error, controls ...Widget) *Interactive {
	out := NewOutput()
	children := append(append([]Widget(nil), controls...), out)
	it := &Interactive{VBox: NewVBox(children...), out: out, fn: fn, debounce: DefaultDebounce}
	it.unhook = cell.OnInterrupt(it.interrupt)
	for _, c := range controls {
		if c != nil {
			c.base().watch(it.changed)
		}
	}
	return it
}

// Interact shows fn under its controls and runs it once now, in the cell,
// with the controls' values (its error is Interact's: a cell ending with
// Interact fails when that run does); then fn runs again whenever a
// control changes (see Interactive). The run's context is the cell's, so
// interrupting the cell stops it. Where no front end draws widgets
// (Drawn: `conclab run`, nbclient, papermill, nbconvert --execute), fn
// runs once and its outputs go to the cell as ordinary outputs, after the
// controls' static form.
func Interact(fn func(ctx context.Context) error, controls ...Widget) error {
	it := NewInteractive(fn, controls...)
	if err := display.Show(it); err != nil && !errors.Is(err, display.ErrNoPublisher) {
		return err
	}
	return it.Run(cell.Context())
}

// Output returns the Output the runs show in.
func (it *Interactive) Output() *Output { return it.out }

// SetDebounce sets how long the controls must be still before a run
// starts (DefaultDebounce unless set; 0 starts at once).
func (it *Interactive) SetDebounce(d time.Duration) {
	it.mu.Lock()
	it.debounce = max(d, 0)
	it.mu.Unlock()
}

// Runs returns how many runs have started.
func (it *Interactive) Runs() int {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.runs
}

// Running reports whether a run is in progress or about to start.
func (it *Interactive) Running() bool {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.working
}

// Run runs the function now with a context derived from ctx, in the
// caller's goroutine, and returns its error; a control changing meanwhile
// cancels it (then Run returns nil, and the run with the new values
// follows). A run already in progress is an error. Its outputs go to the
// Output when a front end draws the widgets (Drawn), else where they would
// go anyway — the cell running it, so a headless run (`conclab run`,
// nbclient, papermill) keeps the run's tables and charts as the cell's
// ordinary outputs.
func (it *Interactive) Run(ctx context.Context) error {
	it.mu.Lock()
	if it.closed {
		it.mu.Unlock()
		return ErrClosed
	}
	if it.working {
		it.mu.Unlock()
		return errors.New("widgets: Interactive.Run: a run is already in progress")
	}
	it.working, it.pending = true, false
	rctx, cancel := context.WithCancelCause(ctx)
	it.cancel = cancel
	it.runs++
	it.mu.Unlock()

	err := it.runOnce(rctx, Drawn())
	superseded := errors.Is(context.Cause(rctx), ErrSuperseded)
	cancel(nil)
	it.finish()
	if superseded {
		return nil
	}
	return err
}

// finish ends a run: the next starts when a change came during it.
func (it *Interactive) finish() {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.cancel = nil
	if it.pending && !it.closed {
		go it.work()
		return
	}
	it.working = false
}

// interrupt stops the run in progress when the user interrupts the
// kernel (the next change starts a new one).
func (it *Interactive) interrupt() {
	it.mu.Lock()
	defer it.mu.Unlock()
	it.pending = false
	if it.cancel != nil {
		it.cancel(ErrInterrupted)
	}
}

// changed is every control's watcher.
func (it *Interactive) changed() {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.closed {
		return
	}
	it.pending, it.last = true, time.Now()
	if it.cancel != nil {
		it.cancel(ErrSuperseded)
	}
	if !it.working {
		it.working = true
		go it.work()
	}
}

// work starts runs while changes come, each once the controls have been
// still for the debounce time, and ends when none is pending.
func (it *Interactive) work() {
	for {
		it.mu.Lock()
		if it.closed || !it.pending {
			it.working = false
			it.mu.Unlock()
			return
		}
		if wait := time.Until(it.last.Add(it.debounce)); wait > 0 {
			it.mu.Unlock()
			time.Sleep(wait)
			continue
		}
		it.pending = false
		ctx, cancel := context.WithCancelCause(context.Background())
		it.cancel = cancel
		it.runs++
		it.mu.Unlock()
		_ = it.runOnce(ctx, true)
		cancel(nil)
		it.mu.Lock()
		it.cancel = nil
		it.mu.Unlock()
	}
}

// runOnce runs fn; with capture, its outputs go to the Output (cleared
// when the first of them arrives), else where they would go anyway (the
// cell running it). A panic becomes an error, and an error other than the
// run being superseded is shown in the Output when captured.
func (it *Interactive) runOnce(ctx context.Context, capture bool) (err error) {
	call := func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		err = it.fn(ctx)
	}
	if !capture {
		call()
		return err
	}
	_ = it.out.Clear(true)
	it.out.Capture(call)
	if err != nil && !errors.Is(context.Cause(ctx), ErrSuperseded) && it.out.Connected() {
		_ = it.out.Error("Error", err.Error())
	}
	return err
}

// Close stops the runs (the one in progress is cancelled) and closes the
// box and the Output; the controls stay open.
func (it *Interactive) Close() error {
	it.mu.Lock()
	if it.closed {
		it.mu.Unlock()
		return nil
	}
	it.closed = true
	if it.cancel != nil {
		it.cancel(ErrClosed)
	}
	it.mu.Unlock()
	it.unhook()
	err := it.VBox.Close()
	if cerr := it.out.Close(); err == nil {
		err = cerr
	}
	return err
}
