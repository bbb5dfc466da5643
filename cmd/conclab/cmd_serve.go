package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/strategy"
	"github.com/conclab/conclab/bench/trace"
)

func init() {
	register(command{name: "serve", summary: "run one strategy server standalone (for k6, wrk, hey ...)", run: runServe})
}

const serveUsage = `usage: conclab serve --strategy NAME --workload SPEC [--addr 127.0.0.1:PORT] [--allow-remote]

The address must be loopback (127.0.0.0/8, ::1, localhost) unless
--allow-remote: ":8000" and "0.0.0.0:8000" listen on every interface.

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
	allowRemote := fs.Bool("allow-remote", false, "allow an --addr that is not loopback (the server accepts uploads and burns CPU per request: anyone who reaches it can load this machine)")
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
		sort.Slice(ps, func(i, j int) bool { return ps[i].Label() < ps[j].Label() })
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
	if err := checkListenAddr(ctx, *addr, *allowRemote); err != nil {
		return 2, err
	}
	st, err := strategy.Preset(*name)
	if err != nil {
		return 2, err
	}
	w, err := pymodel.ParseWorkload(*spec)
	if err != nil {
		return 2, err
	}
	if err := st.Validate(); err != nil {
		return 2, err
	}
	so := strategy.StartOptions{Addr: *addr}
	var traceOut *os.File
	traceWritten := false
	if *traceFile != "" {
		// Opened now, so a path that cannot be written is refused before
		// the run rather than after it.
		// Not truncated yet: a server that fails to start leaves an
		// earlier trace at that path as it was.
		_, statErr := os.Stat(*traceFile)
		if traceOut, err = os.OpenFile(*traceFile, os.O_WRONLY|os.O_CREATE, 0o644); err != nil {
			return 2, fmt.Errorf("--trace: %w", err)
		}
		defer traceOut.Close()
		if os.IsNotExist(statErr) {
			defer func() {
				if !traceWritten {
					_ = os.Remove(*traceFile)
				}
			}()
		}
		so.TraceEvents = trace.DefaultCap
	}
	// Started without ctx so the figures can still be read after Ctrl-C.
	srv, err := st.Start(context.Background(), w, so)
	if err != nil {
		return 1, err
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "serving %s with workload %s on %s\n", st, w, srv.URL())
	fmt.Fprintln(stdout, "press Ctrl-C to stop")
	<-ctx.Done()
	stats := srv.Stats()
	fmt.Fprintf(stdout, "served %d requests (%d errors); cpu %.2fs, queue wait %v, service %v, loop blocked %v, GIL wait %v\n",
		stats.Requests, stats.Errors, stats.CPUSeconds, stats.QueueWait, stats.Service, stats.LoopBlocked, stats.GILWait)
	if len(stats.Warnings) > 0 {
		fmt.Fprintln(stdout, strings.Join(stats.Warnings, "\n"))
	}
	if *traceFile != "" {
		traceWritten = true // written, or failed after the run: keep what is there
		if err := writeServeTrace(traceOut, st.Label(), srv, stdout); err != nil {
			srv.Close()
			return 1, err
		}
	}
	return 0, srv.Close()
}

// checkListenAddr refuses a listen address that is not loopback unless
// allowRemote: an empty host (":8000") or an unspecified address
// ("0.0.0.0", "::") listens on every interface; a name must resolve to
// loopback addresses only. The port must be a number in 0..65535.
func checkListenAddr(ctx context.Context, addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8000: %w", addr, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("--addr %q: port %q is not in 0..65535", addr, port)
	}
	if allowRemote {
		return nil
	}
	const hint = "the strategy servers accept uploads and burn CPU per request; serve on loopback (127.0.0.1:PORT), or pass --allow-remote to listen there"
	if host == "" {
		return fmt.Errorf("--addr %q listens on every interface, not only loopback: %s", addr, hint)
	}
	if ip := net.ParseIP(host); ip != nil {
		switch {
		case ip.IsLoopback():
			return nil
		case ip.IsUnspecified():
			return fmt.Errorf("--addr %q listens on every interface, not only loopback: %s", addr, hint)
		}
		return fmt.Errorf("--addr %q is not a loopback address: %s", addr, hint)
	}
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(rctx, host)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return fmt.Errorf("--addr %q: %s resolves to %s, which is not loopback: %s", addr, host, a.IP, hint)
		}
	}
	return nil
}

// writeServeTrace writes the server's trace to f and closes it (before
// Close: prefork workers are asked for theirs while they live).
func writeServeTrace(f *os.File, label string, srv strategy.Server, stdout io.Writer) error {
	path := f.Name()
	tr, err := srv.Trace()
	if err != nil {
		f.Close()
		return fmt.Errorf("--trace: %w", err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return fmt.Errorf("--trace %s: %w", path, err)
	}
	err = trace.WriteChrome(f, trace.Process{Name: label, Events: tr.Events, Dropped: tr.Dropped})
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
