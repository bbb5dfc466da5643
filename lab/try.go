package lab

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/widgets"
)

// DefaultTryColumns are the summary columns a Try shows: the ones present
// of these, in this order.
var DefaultTryColumns = []string{"strategy", "count", "errors", "elapsed_s", "rps", "avg_ms", "p95_ms", "queue_wait_ms", "gil_wait_ms"}

// Try is a lesson's "try it": controls over an experiment, the experiment
// run again for the values they show, its table and trace picture redrawn.
// Show displays the controls and runs the experiment with their values;
// every change of a control cancels the run in progress and, once the
// controls are still, runs it with the new values (widgets.Interact: the
// last value wins, runs never pile up). A run's error — the experiment
// refusing a combination of values, a strategy failing — is shown under
// the controls; the controls stay usable.
//
// In a Voilà dashboard the page's address carries the controls' values:
// `?tokens=6` sets them before the first run, and the address follows them
// as they move, so a reload (a new kernel, in Voilà) comes back to them
// (address.go; a value a control does not take is ignored with a note).
//
// Headless (`conclab run`, papermill, nbconvert --execute) the controls
// show at their defaults and the run's table and picture are the cell's
// ordinary outputs, so a lesson executes and exports with them.
type Try struct {
	// Experiment builds the experiment from the controls' values (read
	// them with Value); it is called at the start of every run.
	Experiment func() (bench.Experiment, error)
	// Controls are shown in this order, one under another, the run's
	// outputs under them.
	Controls []widgets.Widget
	// Columns of the summary shown (those present); DefaultTryColumns when
	// nil.
	Columns []string
	// Picture draws the run's trace; charts.Waterfall(res.Trace) when nil.
	// Return nil to draw nothing (e.g. lab.Lanes for lanes instead).
	Picture func(res *bench.Result) any
	// Live draws throughput and latency over time while the load runs
	// (charts.LiveRun), for loads that last: closed VUs, open rates.
	Live bool
	// Stop, when set, is shown after the controls (make it with
	// widgets.NewButton("Stop")): a click ends the run in progress within
	// a second — bench.Run stops its servers — and the output says it was
	// stopped, after what the run had shown so far; the next change of a
	// control runs again. For experiments long enough to want it.
	Stop *widgets.Button
}

// TryIt is Try{Experiment: experiment, Controls: controls}.Show(): the
// summary and the waterfall of the experiment, re-run as the controls
// change.
//
//	tokens := widgets.NewIntSlider("tokens", 40, 1, 80)
//	requests := widgets.NewIntSlider("requests", 100, 10, 200)
//	lab.TryIt(func() (bench.Experiment, error) {
//		return experiment(tokens.Value(), requests.Value())
//	}, tokens, requests)
func TryIt(experiment func() (bench.Experiment, error), controls ...widgets.Widget) error {
	return Try{Experiment: experiment, Controls: controls}.Show()
}

// Lanes is a Try.Picture: the run's trace as lanes (one per worker and
// thread) rather than a waterfall.
func Lanes(res *bench.Result) any { return charts.Lanes(res.Trace) }

// Show displays the controls and runs the experiment (see Try). It
// returns the first run's error, as a cell ending with it should fail
// when the run does.
func (t Try) Show() error {
	if t.Experiment == nil {
		return errors.New("lab.Try: no Experiment function")
	}
	var controls []widgets.Widget
	for _, c := range t.Controls {
		if c != nil {
			controls = append(controls, c)
		}
	}
	if len(controls) == 0 {
		return errors.New("lab.Try: no controls (make them with widgets.NewIntSlider, NewDropdown, ...)")
	}
	var addr *pageAddress
	if q, ok, err := pageQuery(); ok {
		// A Voilà page: its address sets the controls before the first
		// run, and follows them (address.go).
		addr = newPageAddress(controls, q, err)
	}
	if t.Stop != nil {
		// A click is not a change of value: the Interactive does not watch
		// it, the run's context does.
		controls = append(controls, t.Stop)
	}
	if addr != nil {
		controls = append(controls, addr.out)
	}
	return widgets.Interact(func(ctx context.Context) error { return t.stoppable(ctx) }, controls...)
}

// stoppable is run under the Stop button's context, when there is one: a
// click ends the run, which is then no error.
func (t Try) stoppable(ctx context.Context) error {
	if t.Stop == nil {
		return t.run(ctx)
	}
	sctx, cancel := t.Stop.Context(ctx)
	defer cancel()
	t0 := time.Now()
	err := t.run(sctx)
	if cause := context.Cause(sctx); err != nil && ctx.Err() == nil && cause != nil && !errors.Is(cause, context.Canceled) {
		line := fmt.Sprintf("%v after %.1f s; change a control to run again", cause, time.Since(t0).Seconds())
		return show(display.Text(line), line)
	}
	return err
}

// run is one run: build, run, show.
func (t Try) run(ctx context.Context) error {
	e, err := t.Experiment()
	if err != nil {
		return fmt.Errorf("lab.Try: the experiment for these values: %w", err)
	}
	run := Run
	if t.Live {
		run = liveRun
	}
	res, err := run(ctx, e)
	if err != nil {
		return err
	}
	cols := t.Columns
	if cols == nil {
		cols = DefaultTryColumns
	}
	var keep []string
	for _, c := range cols {
		if res.Summary.Has(c) {
			keep = append(keep, c)
		}
	}
	table, err := res.Summary.Select(keep...)
	if err != nil {
		return err
	}
	if err := show(table, table.String()); err != nil {
		return err
	}
	for _, w := range foldWarnings(res.Warnings) {
		if err := show(display.Text("warning: "+w), "warning: "+w); err != nil {
			return err
		}
	}
	var pic any
	if t.Picture != nil {
		pic = t.Picture(res)
	} else {
		pic = charts.Waterfall(res.Trace)
	}
	if pic == nil {
		return nil
	}
	return show(pic, "")
}

// liveRun is Run with a live chart of the load (charts.LiveRun), leaving
// out the real strategies this machine cannot run.
func liveRun(ctx context.Context, e bench.Experiment) (*bench.Result, error) {
	e, err := runnable(ctx, e)
	if err != nil {
		return nil, err
	}
	return charts.LiveRun(ctx, e)
}
