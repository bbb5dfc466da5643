package main

import (
	"errors"

	"github.com/conclab/conclab/bench/metrics"
)

// errNoReports is returned for --html until the charts package provides
// reports (charts.NewReport(title).Add(...).WriteHTML(w)).
var errNoReports = errors.New("--html: reports not available (the charts package has no report yet)")

// htmlAvailable reports, before the run, whether --html can be honoured.
func htmlAvailable() error { return errNoReports }

// writeHTMLReport writes the run's report to path.
func writeHTMLReport(path, url string, res *metrics.Result) error { return errNoReports }
