package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/conclab/conclab/jupyterlab"
	"github.com/conclab/conclab/kernel"
)

// version is set at build time with -ldflags "-X main.version=..."; the
// module version from the build info is used otherwise.
var version = ""

func conclabVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func init() {
	register(command{name: "kernel", summary: "run the Jupyter kernel (started by Jupyter with a connection file)", run: runKernel})
	register(command{name: "install", summary: "install the Jupyter kernelspec and the charts' JupyterLab extension (--user | --sys-prefix | --prefix DIR)", run: runInstall})
	register(command{name: "version", summary: "print the version", run: runVersion})
}

func runKernel(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("kernel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: conclab kernel CONNECTION_FILE\n\nRuns the Go kernel; Jupyter starts it through the kernelspec written by 'conclab install'.")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, nil
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2, nil
	}
	// SIGINT interrupts the running cell (main's context would otherwise
	// end the kernel on it); SIGTERM shuts the kernel down, also while it
	// is still starting.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	started := make(chan *kernel.Kernel, 1)
	go func() {
		var k *kernel.Kernel
		for {
			select {
			case k = <-started:
				if k == nil {
					return
				}
			case s := <-sigs:
				if s == os.Interrupt {
					if k != nil {
						k.Interrupt()
					}
					continue
				}
				stop()
				return
			case <-runCtx.Done():
				return
			}
		}
	}()
	ci, err := kernel.ReadConnectionFile(fs.Arg(0))
	if err != nil {
		started <- nil
		return 1, err
	}
	k, err := kernel.Start(runCtx, ci, kernel.Options{Log: stderr, Version: conclabVersion(), Symbols: labSymbols})
	if err != nil {
		started <- nil
		return 1, err
	}
	started <- k
	return 0, k.Run(runCtx)
}

func runInstall(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var w kernel.Where
	fs.BoolVar(&w.User, "user", false, "install for the current user (default)")
	fs.BoolVar(&w.SysPrefix, "sys-prefix", false, "install into python3's sys.prefix")
	fs.StringVar(&w.Prefix, "prefix", "", "install into `DIR`/share/jupyter (kernels/ and labextensions/)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: conclab install [--user | --sys-prefix | --prefix DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, nil
	}
	n := 0
	for _, b := range []bool{w.User, w.SysPrefix, w.Prefix != ""} {
		if b {
			n++
		}
	}
	if n > 1 || fs.NArg() > 0 {
		fs.Usage()
		return 2, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return 1, fmt.Errorf("locating the conclab binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return 1, fmt.Errorf("locating the conclab binary: %w", err)
	}
	dir, err := kernel.Install(exe, w)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(stdout, "installed kernelspec %s in %s\n", kernel.KernelName, dir)
	// The charts' renderer for JupyterLab 4, Notebook 7 and Voilà goes into
	// the same Jupyter data directory (DATA/kernels/conclab ->
	// DATA/labextensions), so a front end that finds the kernel finds it.
	ext, err := jupyterlab.Install(filepath.Dir(filepath.Dir(dir)))
	switch {
	case errors.Is(err, jupyterlab.ErrNotBuilt):
		fmt.Fprintf(stderr, "conclab install: %v; JupyterLab will show charts through their HTML output\n", err)
	case err != nil:
		return 1, err
	default:
		fmt.Fprintf(stdout, "installed JupyterLab extension %s in %s\n", jupyterlab.ExtensionName, ext)
	}
	return 0, nil
}

func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fmt.Fprintf(stdout, "conclab %s (%s %s/%s)\n", conclabVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0, nil
}
