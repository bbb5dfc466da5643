package charts_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
)

// allViews returns one chart per view, plus bad-input charts.
func allViews() []any {
	nan := frame.New("with NaN and Inf")
	nan.MustAppend(frame.Row{"strategy": "sync", "rps": 10.0})
	nan.MustAppend(frame.Row{"strategy": "asyncio", "rps": math.NaN()})
	nan.MustAppend(frame.Row{"strategy": "ThreadPool", "rps": math.Inf(1)})
	nan.MustAppend(frame.Row{"strategy": "goroutines", "rps": 900.0})
	one := frame.New("single row")
	one.MustAppend(frame.Row{"strategy": "sync", "t_s": 0.0, "rps": 9.5})
	return []any{
		charts.Throughput(summaryFrame()),
		charts.Latency(summaryFrame()),
		charts.Latency(summaryFrame()).LogY().Title("Latency (log axis)"),
		charts.Timeline(seriesFrame()),
		charts.CDF(distributionFrame()),
		charts.Sweep(sweepFrame(), "concurrency", "rps").LogX(),
		charts.SourceVsMeasured(sourceFrame(), summaryFrame(), "rps"),
		charts.Breakdown(summaryFrame()),
		charts.ModelVsReal(agreementFrame(), "elapsed_s"),
		charts.Throughput(nan),
		charts.OverTime(one, "rps"),
		charts.Throughput(frame.New("empty")),
		charts.Latency(sourceFrame()),
	}
}

// TestWriteBrowserFixtures writes the pages the browser test opens when
// CONCLAB_CHARTS_FIXTURES names a directory: report.html (a standalone
// report) and notebook.ipynb (a notebook whose outputs are chart bundles, as
// the kernel would have sent them; nbconvert exports it).
func TestWriteBrowserFixtures(t *testing.T) {
	dir := os.Getenv("CONCLAB_CHARTS_FIXTURES")
	if dir == "" {
		t.Skip("CONCLAB_CHARTS_FIXTURES not set (scripts/test.d/40-charts.sh sets it)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := charts.NewReport("conclab charts: every view")
	r.Add("Every chart view on test frames, then bad input: **NaN/Inf**, a single row, an empty frame, missing columns.")
	r.Add(summaryFrame())
	r.Add(allViews()...)
	r.Add(display.Markdown("*a display bundle (Markdown)*"), errors.New("an error item"))
	if err := r.WriteFile(filepath.Join(dir, "report.html")); err != nil {
		t.Fatal(err)
	}

	charts.ResetPage()
	var cells []map[string]any
	for i, v := range allViews() {
		d, ok := display.Render(v)
		if !ok {
			t.Fatalf("view %d did not render", i)
		}
		cells = append(cells, map[string]any{
			"cell_type": "code", "id": fmt.Sprintf("cell-%d", i), "execution_count": i + 1, "metadata": map[string]any{},
			"source":  []string{"charts.View(frame)"},
			"outputs": []any{map[string]any{"output_type": "execute_result", "execution_count": i + 1, "metadata": map[string]any{}, "data": mimeJSON(d.Data)}},
		})
	}
	nb := map[string]any{
		"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{"kernelspec": map[string]any{"name": "conclab", "display_name": "Go (conclab)", "language": "go"},
			"language_info": map[string]any{"name": "go"}},
		"cells": cells,
	}
	b, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notebook.ipynb"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mimeJSON converts a bundle's data to nbformat's shape (strings split into
// lines are optional; one string is valid).
func mimeJSON(m display.MIMEMap) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
			if k == display.MIMETypeText {
				out[k] = strings.TrimSpace(s)
			}
		}
	}
	return out
}
