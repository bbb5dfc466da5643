package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/conclab/conclab/bench/metrics"
	"github.com/conclab/conclab/charts"
)

// htmlAvailable checks, before the run, that the report can be written:
// path is not empty and its directory exists.
func htmlAvailable(path string) error { return outputAvailable("--html", path) }

// outputAvailable checks, before the run, that flag's output file can be
// created: the name is not empty and its directory exists.
func outputAvailable(flag, path string) error {
	if strings.TrimSpace(path) == "" {
		return fmt.Errorf("%s: empty file name", flag)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", flag, path, dir)
	}
	return nil
}

// writeHTMLReport writes the run's report to path: the text summary, the
// summary table, latency statistics, throughput and tail latency over time,
// and the latency distribution.
func writeHTMLReport(path, method, url string, res *metrics.Result) error {
	return writeReport(path, "conclab load "+url, fmt.Sprintf("`%s %s` · %s", method, url, res.Labels[metrics.LabelLoad]), res)
}

// writeReport writes the report page of res under title, heading line
// first.
func writeReport(path, title, heading string, res *metrics.Result) error {
	var md strings.Builder
	fmt.Fprintf(&md, "%s\n\n", heading)
	for _, w := range res.Warnings {
		fmt.Fprintf(&md, "- **warning:** %s\n", w)
	}
	for _, e := range res.ErrorSamples {
		fmt.Fprintf(&md, "- **error:** %s\n", e)
	}
	r := charts.NewReport(title).
		Add(md.String(), "```\n"+strings.TrimRight(res.String(), "\n")+"\n```").
		Add(res.Summary(), charts.Latency(res.Summary()), charts.Timeline(res.Series()))
	if res.Distribution().Len() > 0 {
		r.Add(charts.CDF(res.Distribution()))
	}
	if err := r.WriteFile(path); err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}
