package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

func init() {
	// Process-pool and prefork workers re-execute this binary; they take
	// over here before any command runs.
	workerHook = pymodel.WorkerMain
	register(command{name: "serve", summary: "run one strategy server standalone (for k6, wrk, hey ...)", run: runServe})
}

const serveUsage = `usage: conclab serve --strategy NAME --workload SPEC [--addr 127.0.0.1:PORT]

Runs one strategy server until interrupted. Every path runs the workload;
/health answers "ok" (through the event loop or a worker thread on the Python
model, so a blocked loop shows). Responses carry X-Queue-Ms and X-Service-Ms.

Workload SPEC: "none", or steps separated by commas, each KIND=VALUE[:OPTION]:
  sleep=1s         an I/O wait        cpu=10000000   sum of squares up to n
  burn=100ms       CPU time holding the GIL
  image=jpeg8k     decode, convert to RGB, rotate 180° x4, encode and save the
                   upload (or the generated 8K JPEG; image=png: the 7 KB PNG)
options: nogil (releases the GIL), block, await, to_thread, threadpool,
thread_executor, process_executor (how the handler calls the step).

flags:
`

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("strategy", "", "strategy preset name (see --list)")
	spec := fs.String("workload", "", `workload spec, e.g. "sleep=1s" or "cpu=10000000"`)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	list := fs.Bool("list", false, "list the strategy presets and exit")
	traceFile := fs.String("trace", "", "record every request's phases and write them to `FILE` as a Chrome trace (Perfetto UI, chrome://tracing) when the server stops")
	fs.Usage = func() {
		fmt.Fprint(stderr, serveUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, nil
	}
	if *list {
		ps := strategy.Presets()
		sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
		for _, p := range ps {
			fmt.Fprintln(stdout, p)
		}
		return 0, nil
	}
	if fs.NArg() > 0 {
		return 2, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *name == "" || *spec == "" {
		fs.Usage()
		return 2, errors.New("--strategy and --workload are required")
	}
	srv, err := strategy.NewPreset(*name, *spec)
	if err != nil {
		return 2, err
	}
	srv.Addr = *addr
	if *traceFile != "" {
		srv.TraceEvents = trace.DefaultCap
	}
	// Started without ctx so the figures can still be read after Ctrl-C.
	if err := srv.Start(context.Background()); err != nil {
		return 1, err
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "serving %s with workload %s on %s\n", srv.Strategy(), srv.Workload(), srv.URL())
	fmt.Fprintln(stdout, "press Ctrl-C to stop")
	<-ctx.Done()
	st := srv.Stats()
	fmt.Fprintf(stdout, "served %d requests (%d errors); cpu %.2fs, queue wait %v, service %v, loop blocked %v, GIL wait %v\n",
		st.Requests, st.Errors, st.CPUSeconds, st.QueueWait, st.Service, st.LoopBlocked, st.GILWait)
	if len(st.Warnings) > 0 {
		fmt.Fprintln(stdout, strings.Join(st.Warnings, "\n"))
	}
	if *traceFile != "" {
		if err := writeServeTrace(*traceFile, srv, stdout); err != nil {
			srv.Close()
			return 1, err
		}
	}
	return 0, srv.Close()
}

// writeServeTrace writes the server's trace to path (before Close: prefork
// workers are asked for theirs while they live).
func writeServeTrace(path string, srv *strategy.Server, stdout io.Writer) error {
	tr, err := srv.Trace()
	if err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	err = trace.WriteChrome(f, trace.Process{Name: srv.Strategy().Name, Events: tr.Events, Dropped: tr.Dropped})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--trace %s: %w", path, err)
	}
	reqs := map[int64]bool{}
	for _, e := range tr.Events {
		if e.Request > 0 {
			reqs[e.Request] = true
		}
	}
	fmt.Fprintf(stdout, "wrote a trace of %d requests (%d events, %d dropped) to %s\n", len(reqs), len(tr.Events), tr.Dropped, path)
	return nil
}
