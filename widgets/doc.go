// Package widgets gives notebook cells Jupyter widgets — sliders,
// dropdowns, buttons, outputs — that standard front ends draw: the conclab
// kernel speaks ipywidgets' protocol (version 2.1.0, comm target
// "jupyter.widget"), so JupyterLab 4, Notebook 7 and Voilà show them with
// the ipywidgets 8 front end they already ship (jupyterlab_widgets).
//
// A widget is a Go value with typed getters and setters, safe for
// concurrent use:
//
//	vus := widgets.NewIntSlider("VUs", 20, 1, 200)
//	vus.Value()       // 20, an int
//	vus.SetValue(40)  // the slider moves in every front end
//	vus.OnChange(func(v int) { ... })
//
// A cell's last value that is a widget shows it (Render); so does
// display.Show(w). The front end's changes reach the kernel while cells
// run: the kernel serves comm traffic apart from the cells (and over kernel
// subshells where the front end uses them), so a Stop button's OnClick runs
// while the cell it stops is still in bench.Run:
//
//	stop := widgets.NewButton("Stop")
//	display.Show(stop)
//	ctx, cancel := stop.Context(cell.Context()) // cancelled by a click
//	defer cancel()
//	res, err := bench.Run(ctx, e)
//
// Interact re-runs a function when a control changes, showing what it
// displays and prints in an Output under the controls; a change cancels the
// run in progress through its context and, once the controls have been
// still for the debounce time, starts one run with their latest values —
// the last value wins and runs never pile up:
//
//	widgets.Interact(func(ctx context.Context) error {
//		res, err := bench.Run(ctx, experiment(vus.Value(), think.Value()))
//		...
//	}, vus, think)
//
// Handlers (OnChange, OnClick) run on the kernel's comm goroutine, one at a
// time, and should return quickly; long work belongs in Interact or a
// goroutine. A panic in a handler is recovered and reported.
//
// Without a front end that draws widgets — `conclab run`, nbclient and so
// papermill and nbconvert --execute, a test — widgets are plain values:
// setters and handlers work, Interact runs its function once, in the cell,
// with the controls' values, and what that run shows goes to the cell as
// ordinary outputs (Drawn says which case it is). A widget renders its
// view, a static HTML form of the controls with their values (for exports
// and pages without a widget manager) and a text form; NotebookState is
// the widgets' state as nbclient saves it in the notebook.
//
// Kinds: IntSlider, FloatSlider, IntRangeSlider, Dropdown, ToggleButtons,
// Checkbox, Text, Button, Label, HTML, Output, HBox, VBox, Progress. Each
// is created open; Close closes it (its views disappear). Widgets created
// by re-running a cell are new widgets; the old ones stay open until
// closed, as in ipywidgets.
package widgets
