package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"

	"github.com/conclab/conclab/bench/cpython"
)

func init() {
	register(command{name: "calibrate", summary: "measure this machine's CPython costs (steps, framework, print) for the model", run: runCalibrate})
}

const calibrateUsage = `usage: conclab calibrate [--python PATH] [--out FILE | --show]

Measures what the model needs to run this machine's costs, on this machine's
real CPython in conclab's pinned environment (.venv: Pillow, FastAPI,
uvicorn, Flask, gunicorn from python/requirements.lock): the source steps' CPU (the 8K image pipeline, the share of it
that holds the GIL and its cost with 6 and 20 conversions at once in one
process, the sum of squares, an insert), the server stacks' own
CPU per request (uvicorn + FastAPI on the loop, a def handler's hand-off,
gunicorn gthread + Flask) and print()'s per line. It prints them and writes
them to FILE (default $CONCLAB_CALIBRATION, or conclab/calibration.json in
the user's cache directory), where the notebooks read them
(cpython.MachineCalibration) instead of measuring again. --show prints the
file's without measuring. It takes about a minute.

flags:
`

func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	python := fs.String("python", "", "the CPython interpreter to measure (default: the one with the sources' packages)")
	out := fs.String("out", "", "write the calibration to FILE (default: "+cpython.CalibrationFile()+")")
	show := fs.Bool("show", false, "print the calibration file's contents without measuring")
	fs.Usage = func() {
		fmt.Fprint(stderr, calibrateUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, err
	}
	if fs.NArg() > 0 {
		return 2, fmt.Errorf("calibrate takes no arguments, got %q", fs.Args())
	}
	path := *out
	if path == "" {
		path = cpython.CalibrationFile()
	}
	if *show {
		c, err := cpython.LoadCalibration(path)
		if errors.Is(err, iofs.ErrNotExist) {
			return 1, fmt.Errorf("%w (run conclab calibrate to measure)", err)
		}
		if err != nil {
			return 1, err
		}
		fmt.Fprintf(stdout, "%s (from %s)\n%s", c.Machine, path, c.Frame())
		return 0, nil
	}
	fmt.Fprintln(stderr, "calibrate: measuring this machine's CPython (about a minute)...")
	c, err := cpython.Recalibrate(ctx, *python, path)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(stdout, "%s, %s, %d CPUs: written to %s\n%s", c.Machine, c.Python, c.CPUs, path, c.Frame())
	return 0, nil
}
