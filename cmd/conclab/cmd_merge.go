package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/load/split"
	"github.com/conclab/conclab/bench/metrics"
)

func init() {
	register(command{name: "merge", summary: "combine HdrHistogram interval logs (load --hlog) into one summary", run: runMerge})
}

const mergeUsage = `usage: conclab merge FILE... [--json | --html FILE] [--wait DUR] [--threshold EXPR]...

Combines HdrHistogram interval logs — written by 'conclab load --hlog' on one
or many machines (e.g. the segments of one run, --segment i/N), or by any
HdrHistogram log writer — into the summary a single run prints: counts and
errors summed exactly, percentiles from the merged histogram. --json writes
the summary, series and distribution frames as 'conclab load --json' does;
--html writes the same report page as 'conclab load --html'. --threshold
(repeatable, as 'conclab load' takes it) is checked on the merged result: the
whole run's percentiles and counts; a failed one exits 99.

flags:
`

// maxMergeWait bounds --wait.
const maxMergeWait = 24 * time.Hour

func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "write the summary, series and distribution frames as JSON to stdout")
	html := fs.String("html", "", "write an HTML report to FILE")
	wait := fs.Duration("wait", 0, "wait up to DUR for every FILE to exist and be complete (its agent finished), then merge what is there")
	var thresholdSpecs multiFlag
	fs.Var(&thresholdSpecs, "threshold", "pass/fail criterion on the merged result (repeatable), as conclab load takes it: 'p95<200ms', 'errors<1%', 'rps>500'; a failed one exits 99")
	fs.Usage = func() {
		fmt.Fprint(stderr, mergeUsage)
		fs.PrintDefaults()
	}
	// Files and flags in any order.
	var files []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0, nil
			}
			return 2, err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	switch {
	case len(files) == 0:
		fs.Usage()
		return 2, errors.New("no log files")
	case *wait < 0 || *wait > maxMergeWait:
		return 2, fmt.Errorf("--wait must be in [0, %v], got %v", maxMergeWait, *wait)
	}
	if *html != "" {
		if err := htmlAvailable(*html); err != nil {
			return 2, err
		}
	}
	thresholds, err := metrics.ParseThresholds(thresholdSpecs...)
	if err != nil {
		return 2, fmt.Errorf("--threshold: %w", err)
	}
	if *wait > 0 {
		if err := waitComplete(ctx, files, *wait, stderr); err != nil {
			return 1, err
		}
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return 2, err
		}
	}
	res, err := split.MergeFiles(files...)
	if err != nil {
		return 2, err
	}
	if len(thresholds) > 0 {
		res.CheckThresholds(thresholds...)
	}
	heading := fmt.Sprintf("merged %d logs: %s", len(files), strings.Join(files, ", "))
	if *jsonOut {
		if err := writeResultJSON(stdout, res); err != nil {
			return 1, err
		}
	} else {
		fmt.Fprintf(stdout, "\n     %s\n%s\n", heading, res)
	}
	if *html != "" {
		if err := writeReport(*html, "conclab merge", heading+" · "+res.Labels[metrics.LabelLoad], res); err != nil {
			return 1, err
		}
	}
	if res.Count() == 0 {
		return 1, errors.New("the logs hold no requests")
	}
	return thresholdsCode(res, stderr)
}

// waitComplete waits until every file exists and ends with a conclab
// log's closing totals, up to d; files still incomplete then are merged
// as they are (a missing one is an error).
func waitComplete(ctx context.Context, files []string, d time.Duration, stderr io.Writer) error {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		var missing, running []string
		for _, f := range files {
			switch st := logState(f); st {
			case "missing":
				missing = append(missing, f)
			case "running":
				running = append(running, f)
			}
		}
		if len(missing)+len(running) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if len(missing) > 0 {
				return fmt.Errorf("--wait %v: no log at %s", d, strings.Join(missing, ", "))
			}
			fmt.Fprintf(stderr, "conclab merge: --wait %v: still incomplete, merged as they are: %s\n", d, strings.Join(running, ", "))
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("interrupted while waiting for the logs: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// logState is "missing", "running" (no closing totals yet) or "done".
func logState(path string) string {
	done, err := split.Complete(path)
	switch {
	case err != nil:
		return "missing"
	case done:
		return "done"
	}
	return "running"
}
