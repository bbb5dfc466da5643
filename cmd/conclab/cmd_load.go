package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
)

func init() {
	register(command{name: "load", summary: "drive an HTTP target with a load model; k6-style summary", run: runLoad})
}

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

const loadUsage = `usage: conclab load URL [flags]

Drives URL (loopback only unless --allow-remote) and prints a k6-style summary.
Models: closed VUs for a duration (default), -n total requests, --rate R for an
open arrival rate (latency from each request's intended start, the uncorrected
figure beside it), --burst for -n requests at once.

flags:
`

type loadFlags struct {
	c, n, iterations             int
	maxDuration                  time.Duration
	segment                      load.Segment
	segmentSpec, startSpec, hlog string
	startAt                      time.Time
	d, think, timeout, grace     time.Duration
	rate                         float64
	poisson, burst               bool
	method, body, html           string
	files, headers, labels       multiFlag
	jsonOut, allowRemote, phases bool
	newConn, quiet, cSet         bool
	strategy, workload           string
}

func parseLoadFlags(args []string, stderr io.Writer) (*loadFlags, string, error) {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &loadFlags{}
	fs.IntVar(&f.c, "c", 10, "concurrency: VUs (closed model); with --rate, a cap on connections in flight (1000 when not given); ignored with --burst")
	fs.DurationVar(&f.d, "d", 0, "duration (default 10s unless -n or --iterations is given)")
	fs.IntVar(&f.n, "n", 0, "total requests (instead of -d); with --burst the burst size")
	fs.Float64Var(&f.rate, "rate", 0, "open model: requests per second (coordinated-omission corrected)")
	fs.BoolVar(&f.poisson, "poisson", false, "with --rate: Poisson arrivals instead of evenly spaced")
	fs.BoolVar(&f.burst, "burst", false, "send -n requests at once, each on a new connection")
	fs.DurationVar(&f.think, "think", 0, "closed model: think time after each response")
	fs.DurationVar(&f.timeout, "timeout", load.DefaultTimeout, "per-request timeout")
	fs.DurationVar(&f.grace, "grace", load.DefaultGracefulStop, "graceful stop: time for requests in flight to finish")
	fs.StringVar(&f.method, "m", "", "HTTP method (default GET, or POST with --body/--file)")
	fs.StringVar(&f.body, "body", "", "file whose content is the request body")
	fs.Var(&f.files, "file", "FIELD=PATH: multipart file upload (repeatable)")
	fs.Var(&f.headers, "H", "'Name: value' request header (repeatable)")
	fs.Var(&f.labels, "label", "KEY=VALUE label for the result frames (repeatable)")
	fs.StringVar(&f.strategy, "strategy", "", "strategy label")
	fs.StringVar(&f.workload, "workload", "", "workload label")
	fs.BoolVar(&f.jsonOut, "json", false, "write the summary, series and distribution frames as JSON to stdout")
	fs.StringVar(&f.html, "html", "", "write an HTML report to FILE")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "allow a target that is not loopback")
	fs.BoolVar(&f.phases, "phases", false, "record connect / wait / read phase timings")
	fs.BoolVar(&f.newConn, "new-conn", false, "a new connection per request (no keep-alive)")
	fs.BoolVar(&f.quiet, "q", false, "no progress bar")
	fs.IntVar(&f.iterations, "iterations", 0, "closed model: requests per VU (k6's per-vu-iterations), instead of -d")
	fs.DurationVar(&f.maxDuration, "max-duration", load.DefaultMaxDuration, "the longest run allowed (at most "+maxRunCap.String()+"); a longer -d is refused")
	fs.StringVar(&f.segmentSpec, "segment", "", "run only segment i/N of the load (i from 0 to N-1; or k6's FROM:TO), so that N agents together run the whole")
	fs.StringVar(&f.startSpec, "start-at", "", "start at this time (RFC 3339, e.g. 2026-12-01T10:00:00Z, or unix seconds), so that agents begin together")
	fs.StringVar(&f.hlog, "hlog", "", "write an HdrHistogram interval log to FILE (for conclab merge)")
	fs.Usage = func() {
		fmt.Fprint(stderr, loadUsage)
		fs.PrintDefaults()
	}
	// Accept the URL before or after the flags.
	var url string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		url, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return nil, "", err
	}
	rest := fs.Args()
	if url == "" && len(rest) > 0 {
		url, rest = rest[0], rest[1:]
		if err := fs.Parse(rest); err != nil {
			return nil, "", err
		}
		rest = fs.Args()
	}
	if len(rest) > 0 {
		return nil, "", fmt.Errorf("unexpected argument %q (one URL only)", rest[0])
	}
	if url == "" {
		fs.Usage()
		return nil, "", fmt.Errorf("no target URL")
	}
	seen := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { seen[fl.Name] = true })
	// The default duration is applied before check, so it is held to
	// --max-duration like an explicit -d.
	if f.d == 0 && f.n == 0 && f.iterations == 0 && !seen["d"] {
		f.d = defaultDuration
	}
	if err := f.check(seen); err != nil {
		return nil, "", err
	}
	f.cSet = seen["c"]
	return f, url, nil
}

// maxRunCap is the largest --max-duration; maxTimeout is the per-request
// timeout's cap (the latency histograms' range).
const (
	// singleProcessRate is about the most one generator process has sent
	// (docs/load.md's comparison): a rate above it gets a note up front.
	singleProcessRate = 200_000
	maxRunCap         = 24 * time.Hour
	defaultDuration   = 10 * time.Second // without -d, -n or --iterations
	maxTimeout        = time.Hour
	maxGrace          = 10 * time.Minute
)

// check validates the flags: every bad value is a usage error (exit 2)
// before any packet.
func (f *loadFlags) check(seen map[string]bool) error {
	switch {
	case f.c <= 0:
		return fmt.Errorf("-c must be positive, got %d", f.c)
	case f.c > load.MaxConcurrency:
		return fmt.Errorf("-c %d is above the cap of %d connections (load.MaxConcurrency); split the load over agents with --segment", f.c, load.MaxConcurrency)
	case seen["d"] && f.d <= 0:
		return fmt.Errorf("-d must be positive, got %v", f.d)
	case seen["n"] && f.n <= 0:
		return fmt.Errorf("-n must be positive, got %d", f.n)
	case seen["iterations"] && f.iterations <= 0:
		return fmt.Errorf("--iterations must be positive, got %d", f.iterations)
	case seen["rate"] && (f.rate <= 0 || math.IsNaN(f.rate) || math.IsInf(f.rate, 0)):
		return fmt.Errorf("--rate must be a positive number, got %v", f.rate)
	case f.rate > load.MaxRate:
		return fmt.Errorf("--rate %g is above the cap of %g requests/s (load.MaxRate), more than one process can send; split the load over agents with --segment i/N", f.rate, float64(load.MaxRate))
	case f.maxDuration <= 0 || f.maxDuration > maxRunCap:
		return fmt.Errorf("--max-duration must be in (0, %v], got %v", maxRunCap, f.maxDuration)
	case f.d > f.maxDuration && !seen["d"]:
		return fmt.Errorf("the default duration -d %v is above --max-duration %v: give a shorter -d, or -n", f.d, f.maxDuration)
	case f.d > f.maxDuration:
		return fmt.Errorf("-d %v is above the longest run allowed, --max-duration %v (at most %v): the run would be cut short", f.d, f.maxDuration, maxRunCap)
	case f.think < 0:
		return fmt.Errorf("--think must not be negative, got %v", f.think)
	case f.think > f.maxDuration:
		return fmt.Errorf("--think %v is above --max-duration %v", f.think, f.maxDuration)
	case f.timeout <= 0:
		return fmt.Errorf("--timeout must be positive, got %v", f.timeout)
	case f.timeout > maxTimeout:
		return fmt.Errorf("--timeout %v is above the cap of %v (the latency histograms' range)", f.timeout, maxTimeout)
	case f.grace < 0 || f.grace > maxGrace:
		return fmt.Errorf("--grace must be in [0, %v], got %v", maxGrace, f.grace)
	case f.burst && f.n == 0:
		return fmt.Errorf("--burst needs -n (the burst size)")
	case f.burst && (f.rate > 0 || seen["d"] || f.iterations > 0):
		return fmt.Errorf("--burst cannot be combined with --rate, -d or --iterations")
	case f.poisson && f.rate == 0:
		return fmt.Errorf("--poisson needs --rate")
	case f.think > 0 && f.rate > 0:
		return fmt.Errorf("--think applies to the closed model, not --rate")
	case f.iterations > 0 && f.rate > 0:
		return fmt.Errorf("--iterations applies to the closed model, not --rate")
	case seen["d"] && seen["n"]:
		return fmt.Errorf("give -d or -n, not both")
	case f.body != "" && len(f.files) > 0:
		return fmt.Errorf("give --body or --file, not both")
	}
	if f.rate > 0 && f.n > 0 {
		if d := float64(f.n) / f.rate; d > f.maxDuration.Seconds() {
			return fmt.Errorf("-n %d at --rate %g takes %.0fs, above --max-duration %v", f.n, f.rate, d, f.maxDuration)
		}
	}
	if f.rate > 0 {
		d := f.d
		if f.n > 0 {
			d = time.Duration(float64(f.n) / f.rate * float64(time.Second))
		}
		if planned := f.rate * d.Seconds(); planned > load.DefaultMaxRequests {
			return fmt.Errorf("--rate %g for %v plans %.0f requests, above the cap of %d (load.DefaultMaxRequests); split the load over agents with --segment", f.rate, d, planned, load.DefaultMaxRequests)
		}
	}
	var err error
	if f.segment, err = load.ParseSegment(f.segmentSpec); err != nil {
		return fmt.Errorf("--segment: %w", err)
	}
	if f.startSpec != "" {
		if f.startAt, err = parseStartAt(f.startSpec); err != nil {
			return err
		}
		if ahead := time.Until(f.startAt); ahead > load.MaxStartDelay {
			return fmt.Errorf("--start-at %s is %v ahead, more than %v", f.startSpec, ahead.Round(time.Second), load.MaxStartDelay)
		}
	}
	if f.hlog != "" {
		if err := outputAvailable("--hlog", f.hlog); err != nil {
			return err
		}
	}
	return nil
}

// parseStartAt reads an RFC 3339 time or unix seconds (fractions allowed).
func parseStartAt(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	secs, err := strconv.ParseFloat(s, 64)
	if err != nil || secs <= 0 || math.IsInf(secs, 0) || secs > 1e11 {
		return time.Time{}, fmt.Errorf("--start-at %q: want an RFC 3339 time (2026-12-01T10:00:00Z) or unix seconds", s)
	}
	whole, frac := math.Modf(secs)
	return time.Unix(int64(whole), int64(frac*1e9)), nil
}

func (f *loadFlags) model() load.Model {
	switch {
	case f.burst:
		return load.Burst{N: f.n}
	case f.rate > 0:
		d := f.d
		if d == 0 {
			d = time.Duration(float64(f.n) / f.rate * float64(time.Second))
		}
		inFlight := 0 // DefaultMaxInFlight unless -c caps it
		if f.cSet {
			inFlight = f.c
		}
		return load.Open{Rate: f.rate, Duration: d, Poisson: f.poisson, MaxInFlight: inFlight}
	case f.n > 0 || f.iterations > 0:
		return load.Closed{VUs: f.c, Total: f.n, Iterations: f.iterations, Duration: f.d, Think: f.think}
	}
	return load.Closed{VUs: f.c, Duration: f.d, Think: f.think}
}

func (f *loadFlags) target(url string) (load.Target, error) {
	t := load.Target{URL: url, Method: f.method}
	if f.body != "" {
		b, err := os.ReadFile(f.body)
		if err != nil {
			return t, fmt.Errorf("--body: %w", err)
		}
		t.Body = b
	}
	for _, spec := range f.files {
		field, path, ok := strings.Cut(spec, "=")
		if !ok || field == "" || path == "" {
			return t, fmt.Errorf("--file %q: want FIELD=PATH", spec)
		}
		if _, err := os.Stat(path); err != nil {
			return t, fmt.Errorf("--file %s: %w", field, err)
		}
		t.Files = append(t.Files, load.File{Field: field, Path: path})
	}
	for _, h := range f.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return t, fmt.Errorf("-H %q: want 'Name: value'", h)
		}
		if t.Header == nil {
			t.Header = http.Header{}
		}
		t.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return t, nil
}

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	f, url, err := parseLoadFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0, nil
	}
	if err != nil {
		return 2, err
	}
	t, err := f.target(url)
	if err != nil {
		return 2, err
	}
	opts := load.Options{
		Timeout:           f.timeout,
		GracefulStop:      f.grace,
		AllowRemote:       f.allowRemote,
		PhaseTimings:      f.phases,
		NewConnPerRequest: f.newConn,
		Strategy:          f.strategy,
		Workload:          f.workload,
		Labels:            map[string]string{},
		MaxDuration:       f.maxDuration,
		Segment:           f.segment,
		StartAt:           f.startAt,
	}
	if f.grace == 0 {
		opts.GracefulStop = -1
	}
	for _, l := range f.labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return 2, fmt.Errorf("--label %q: want KEY=VALUE", l)
		}
		opts.Labels[k] = v
	}
	if f.html != "" {
		if err := htmlAvailable(f.html); err != nil {
			return 2, err
		}
	}
	var hlogFile *os.File
	if f.hlog != "" {
		if hlogFile, err = os.Create(f.hlog); err != nil {
			return 2, fmt.Errorf("--hlog: %w", err)
		}
		defer hlogFile.Close()
		opts.Hlog = hlogFile
	}
	var bar *progressBar
	if !f.quiet && !f.jsonOut && isTerminal(stdout) {
		bar = &progressBar{w: stdout}
		opts.Progress = bar.update
	}
	if r := f.rate * f.segment.Fraction(); r > singleProcessRate {
		fmt.Fprintf(stderr, "conclab load: note: --rate %g/s (this agent's share) is above what one process sends over loopback (about %g/s); arrivals that cannot be sent by the planned end are counted as dropped, never sent late. Split the load over agents with --segment i/N.\n", r, float64(singleProcessRate))
	}
	m := f.model()
	res, runErr := load.Run(ctx, t, m, opts)
	if bar != nil {
		bar.clear()
	}
	if res == nil {
		if hlogFile != nil {
			hlogFile.Close()
			os.Remove(f.hlog) // nothing was run: no log
		}
		code := 2 // bad input, found before any request
		if ctx.Err() != nil {
			code = 1 // interrupted while waiting for --start-at
		}
		return code, runErr
	}
	if hlogFile != nil {
		if err := hlogFile.Close(); err != nil && runErr == nil {
			runErr = fmt.Errorf("--hlog: %w", err)
		}
	}
	if f.jsonOut {
		if err := writeResultJSON(stdout, res); err != nil {
			return 1, err
		}
	} else {
		fmt.Fprintf(stdout, "\n     target: %s %s\n%s\n", methodOf(t), url, res)
	}
	if f.html != "" {
		if err := writeHTMLReport(f.html, methodOf(t), url, res); err != nil {
			return 1, err
		}
	}
	if runErr != nil {
		return 1, runErr
	}
	return 0, nil
}

// writeResultJSON writes the frames of a result as conclab load --json
// does: summary, series, distribution, warnings, errors.
func writeResultJSON(w io.Writer, res *metrics.Result) error {
	out := struct {
		Summary      *frame.Frame `json:"summary"`
		Series       *frame.Frame `json:"series"`
		Distribution *frame.Frame `json:"distribution"`
		Warnings     []string     `json:"warnings"`
		Errors       []string     `json:"errors"`
	}{res.Summary(), res.Series(), res.Distribution(), nonNil(res.Warnings), nonNil(res.ErrorSamples)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("--json: %w", err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func methodOf(t load.Target) string {
	switch {
	case t.Method != "":
		return strings.ToUpper(t.Method)
	case len(t.Body) > 0 || len(t.Files) > 0:
		return "POST"
	}
	return "GET"
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), getTermios)
	return err == nil
}

// progressBar draws a one-line k6-style bar, redrawn in place.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	drawn bool
}

func (b *progressBar) update(p load.Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	frac := -1.0
	switch {
	case p.Duration > 0:
		frac = p.Elapsed.Seconds() / p.Duration.Seconds()
	case p.Planned > 0:
		frac = float64(p.Done) / float64(p.Planned)
	}
	const width = 30
	bar := strings.Repeat("-", width)
	if frac >= 0 {
		frac = math.Min(frac, 1)
		n := int(frac * width)
		bar = strings.Repeat("=", n) + strings.Repeat("-", width-n)
	}
	rps := 0.0
	if p.Elapsed > 0 {
		rps = float64(p.Done) / p.Elapsed.Seconds()
	}
	fmt.Fprintf(b.w, "\r\033[K  [%s] %6.1fs  %d reqs  %d errors  %.0f/s", bar, p.Elapsed.Seconds(), p.Done, p.Errors, rps)
	b.drawn = true
}

func (b *progressBar) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprint(b.w, "\r\033[K")
	}
}
