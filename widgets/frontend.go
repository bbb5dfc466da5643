package widgets

import (
	"os"
	"strings"
	"sync/atomic"

	"github.com/conclab/conclab/kernel/comm"
)

// Where a widget's outputs go depends on who draws the notebook:
//
//   - A front end that draws widgets — JupyterLab, Notebook 7, Voilà — shows
//     an Interact run's outputs inside its Output widget, which it redraws
//     as the kernel changes it.
//   - A headless client — nbclient, and so papermill and `jupyter nbconvert
//     --execute`; `conclab run` — draws nothing: it records the outputs of
//     each cell, and widget state only as metadata. An Interact run's
//     outputs there go to the cell as ordinary outputs, so the executed
//     notebook holds its table and charts, and exports show them.
//
// The kernel cannot ask which one it serves; it can see what a front end
// does. A page with a widget manager (JupyterLab, Notebook 7, Voilà's page)
// opens a comm to "jupyter.widget.control" as soon as it connects, to fetch
// every widget's state (comm.FrontEnd); nbclient never sends comm traffic.
// Voilà is the one front end that executes a notebook before its page
// connects (with nbclient, then the page draws the widgets from their
// state), so a kernel started by Voilà (its documented environment:
// SERVER_SOFTWARE=voila/..., VOILA_PREHEAT) draws from the start.

// drawOverride is set by tests: 0 decides as above, 1 drawn, 2 headless.
var drawOverride atomic.Int32

// underVoila is whether this process was started by Voilà.
var underVoila = startedByVoila(os.Getenv)

func startedByVoila(getenv func(string) string) bool {
	return strings.HasPrefix(getenv("SERVER_SOFTWARE"), "voila/") || getenv("VOILA_PREHEAT") != ""
}

// Drawn reports whether a front end draws this kernel's widgets: a kernel
// transport is installed and a front end speaking comms has connected
// (JupyterLab, Notebook 7, Voilà's page), or Voilà started the kernel.
// When false — `conclab run`, nbclient, papermill, nbconvert --execute, a
// test — Interact's first run shows its outputs in the cell.
func Drawn() bool {
	switch drawOverride.Load() {
	case 1:
		return true
	case 2:
		return false
	}
	return comm.Connected() && (comm.FrontEnd() || underVoila)
}
