package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/notebook"
)

func exportHTML(t *testing.T, nb *notebook.Notebook, opts notebook.HTMLOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := nb.WriteHTML(&b, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// conclab run's HTML reports carry the chart library once per page.
func TestChartsLibraryOncePerPage(t *testing.T) {
	// Not parallel: uses the charts package's page flag.
	if _, err := charts.LibraryScript(); err != nil {
		t.Skipf("ECharts library not available in this build: %v", err)
	}
	f := frame.New("summary")
	for _, r := range []frame.Row{{"strategy": "sync", "rps": 10.0}, {"strategy": "asyncio", "rps": 7.5}} {
		if err := f.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	charts.ResetPage()
	first := charts.Throughput(f).HTML()  // carries the library
	second := charts.Throughput(f).HTML() // does not
	chartCell := func(h string) *notebook.Cell {
		return &notebook.Cell{Type: notebook.CellCode, Source: "charts.Throughput(f)", Outputs: []*notebook.Output{
			{Type: notebook.OutputDisplayData, Data: map[string]any{"text/html": h, "text/plain": "chart"}}}}
	}
	const lib = "data-conclab-echarts="
	tests := []struct {
		name  string
		cells []*notebook.Cell
	}{
		{"library in the first chart", []*notebook.Cell{chartCell(first), chartCell(second)}},
		{"library missing from the outputs", []*notebook.Cell{chartCell(second), chartCell(second)}},
	}
	for _, tt := range tests {
		page := exportHTML(t, &notebook.Notebook{Cells: tt.cells}, htmlOptions())
		if n := strings.Count(page, lib); n != 1 {
			t.Errorf("%s: page carries the library %d times; want once", tt.name, n)
		}
	}
	if page := exportHTML(t, &notebook.Notebook{Cells: []*notebook.Cell{{Type: notebook.CellMarkdown, Source: "no charts"}}}, htmlOptions()); strings.Contains(page, lib) {
		t.Error("library added to a page without charts")
	}
}
