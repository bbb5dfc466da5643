package main

import (
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/internal/symbols"
	"github.com/conclab/conclab/kernel/eval"
	"github.com/conclab/conclab/notebook"
	"github.com/conclab/conclab/widgets"
)

// The command is where the lab is put together: the interpreter (kernel and
// notebook runner) gets the lab's packages from internal/symbols, and the
// runner's pages get the chart library from charts. kernel/eval and notebook
// depend on neither.

// labSymbols are the packages linked into every interpreter session besides
// the standard library.
var labSymbols = eval.Symbols{Packages: symbols.Symbols, Docs: symbols.Docs}

// newPage starts a notebook's page: its first chart output carries the
// ECharts library, and no widget of an earlier notebook is left.
func newPage() {
	charts.ResetPage()
	widgets.CloseAll()
}

// widgetMetadata is the widgets' state for the executed notebook's
// metadata, as nbclient saves it: front ends and nbconvert draw the widget
// views of its outputs from it.
func widgetMetadata() map[string]any {
	if st := widgets.NotebookState(); st != nil {
		return map[string]any{"widgets": st}
	}
	return nil
}

// echartsAsset puts the ECharts library in the head of an exported page
// whose outputs have charts but no library (outputs written by another
// kernel process, or the output that carried it cleared).
func echartsAsset(outputs string) (string, error) {
	if !charts.NeedsLibrary(outputs) {
		return "", nil
	}
	s, err := charts.LibraryScript()
	if err != nil {
		// The charts keep their static SVG and say why; the export goes on.
		return "", nil
	}
	return s, nil
}

// htmlOptions are the options of conclab run's HTML reports.
func htmlOptions() notebook.HTMLOptions {
	return notebook.HTMLOptions{HeadAssets: []notebook.HeadAsset{echartsAsset}}
}

// runnerOptions are the options every notebook run of the command starts
// from, in the process that runs the cells.
func runnerOptions() notebook.Options {
	return notebook.Options{Symbols: labSymbols, NewPage: newPage, Metadata: widgetMetadata}
}
