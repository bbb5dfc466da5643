package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"strings"

	"github.com/conclab/conclab/bench/calib"
	_ "github.com/conclab/conclab/sources" // every source registers its part of the calibration
)

func init() {
	register(command{name: "calibrate", summary: "measure this machine's CPython costs (steps, framework, print) for the model", run: runCalibrate})
}

const calibrateUsage = `usage: conclab calibrate [--python PATH] [--out FILE | --show] [PART ...]

Measures what the model needs to run this machine's costs, on this machine's
real CPython in conclab's pinned environment (.venv: Pillow, FastAPI,
uvicorn, Flask, gunicorn from python/requirements.lock), part by part as the
sources register them (bench/calib): the server stacks' own CPU per request
(framework), print()'s per line (000 print), the 8K image pipeline's steps,
the share of each that holds the GIL and its cost with 6 and 20 conversions
at once in one process (000 upload), the sum of squares (003). It prints
them and writes them to FILE (default $CONCLAB_CALIBRATION, or
conclab/calibration.json in the user's cache directory), beside the file's
other parts, where the notebooks read them (calib.Machine) instead of
measuring again. With PART names it measures only those. --show prints the
file's without measuring. It takes about a minute.

flags:
`

func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	python := fs.String("python", "", "the CPython interpreter to measure (default: the pinned environment's)")
	out := fs.String("out", "", "write the calibration to FILE (default: "+calib.File()+")")
	show := fs.Bool("show", false, "print the calibration file's contents without measuring")
	fs.Usage = func() {
		fmt.Fprint(stderr, calibrateUsage)
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nparts: %s\n", strings.Join(calib.Measurements(), ", "))
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, err
	}
	path := *out
	if path == "" {
		path = calib.File()
	}
	if *show {
		if fs.NArg() > 0 {
			return 2, fmt.Errorf("--show takes no parts, got %q", fs.Args())
		}
		t, err := calib.Load(path)
		if errors.Is(err, iofs.ErrNotExist) {
			return 1, fmt.Errorf("%w (run conclab calibrate to measure)", err)
		}
		if err != nil {
			return 1, err
		}
		fmt.Fprintf(stdout, "%s (from %s)\n%s", t.Machine, path, t.Frame())
		return 0, nil
	}
	parts := fs.Args()
	known := map[string]bool{}
	for _, m := range calib.Measurements() {
		known[m] = true
	}
	for _, p := range parts {
		if !known[p] {
			return 2, fmt.Errorf("no part %q (parts: %s)", p, strings.Join(calib.Measurements(), ", "))
		}
	}
	fmt.Fprintln(stderr, "calibrate: measuring this machine's CPython (about a minute)...")
	t, err := calib.Recalibrate(ctx, *python, path, parts...)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(stdout, "%s, %s, %d CPUs: written to %s\n%s", t.Machine, t.Python, t.CPUs, path, t.Frame())
	return 0, nil
}
