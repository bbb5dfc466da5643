package main

import (
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/internal/symbols"
	"github.com/conclab/conclab/kernel/eval"
	"github.com/conclab/conclab/notebook"
)

// The command is where the lab is put together: the interpreter (kernel and
// notebook runner) gets the lab's packages from internal/symbols, and the
// runner's pages get the chart library from charts. kernel/eval and notebook
// depend on neither.

// labSymbols are the packages linked into every interpreter session besides
// the standard library.
var labSymbols = eval.Symbols{Packages: symbols.Symbols, Docs: symbols.Docs}

// newChartPage starts a notebook's chart page: its first chart output
// carries the ECharts library.
func newChartPage() { charts.ResetPage() }

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
	return notebook.Options{Symbols: labSymbols, NewPage: newChartPage}
}
