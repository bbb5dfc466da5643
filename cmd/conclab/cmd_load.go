package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/load/requestlog"
	"github.com/conclab/conclab/bench/load/split"
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
figure beside it), --burst for -n requests at once; --stage DUR:TARGET (repeated)
ramps the VUs, or with --rate the arrival rate, from -c (or --rate) through the
stages. --threshold 'p95<200ms' (repeated) passes or fails the run.

Exit codes: 0 done (every threshold passed); 1 the run failed (e.g. every
request was refused) or was interrupted; 2 bad input, before any request;
99 a threshold failed (k6's code).

flags:
`

// exitThresholds is the exit code of a run whose thresholds failed (k6's).
const exitThresholds = 99

type loadFlags struct {
	c, n, iterations, streams     int
	maxDuration                   time.Duration
	segment                       split.Segment
	segmentSpec, startSpec, hlog  string
	startAt                       time.Time
	d, think, timeout, grace      time.Duration
	rate                          float64
	poisson, burst                bool
	method, body, html, out       string
	cacert                        string
	files, headers, labels        multiFlag
	stageSpecs, thresholdSpecs    multiFlag
	stages                        []load.Stage
	jsonOut, allowRemote, phases  bool
	newConn, quiet, cSet, rateSet bool
	http2, insecure, abortOnFail  bool
	strategy, workload            string
	cpuProfile                    string
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
	fs.BoolVar(&f.quiet, "q", false, "no live view (on a terminal a redrawn panel; otherwise a line a second on stderr)")
	fs.IntVar(&f.iterations, "iterations", 0, "closed model: requests per VU (k6's per-vu-iterations), instead of -d")
	fs.DurationVar(&f.maxDuration, "max-duration", load.DefaultMaxDuration, "the longest run allowed (at most "+maxRunCap.String()+"); a longer -d is refused")
	fs.StringVar(&f.segmentSpec, "segment", "", "run only segment i/N of the load (i from 0 to N-1; or k6's FROM:TO), so that N agents together run the whole")
	fs.StringVar(&f.startSpec, "start-at", "", "start at this time (RFC 3339, e.g. 2026-12-01T10:00:00Z, or unix seconds), so that agents begin together")
	fs.StringVar(&f.hlog, "hlog", "", "write an HdrHistogram interval log to FILE (for conclab merge)")
	fs.Var(&f.stageSpecs, "stage", "DURATION:TARGET, e.g. 30s:100 (repeatable): ramp the VUs from -c (0 without it), or with --rate the arrival rate from --rate, linearly to TARGET over DURATION, stage after stage (k6's ramping-vus, ramping-arrival-rate)")
	fs.Var(&f.thresholdSpecs, "threshold", "pass/fail criterion (repeatable), k6's vocabulary: 'p95<200ms', 'p(99)<1s', 'avg<50ms', 'max<2s', 'errors<1%', 'errors<10', 'rps>500', 'count>=1000', 'dropped<1'; a failed one exits 99")
	fs.BoolVar(&f.abortOnFail, "abort-on-fail", false, "with --threshold: stop the run as soon as a threshold is certain to fail")
	fs.BoolVar(&f.http2, "http2", false, "speak HTTP/2: over TLS (ALPN h2) to https://, cleartext with prior knowledge (h2c) to http://")
	fs.IntVar(&f.streams, "streams", 1, "with --http2: workers (streams) per connection (h2load's -m)")
	fs.BoolVar(&f.insecure, "insecure", false, "https: do not verify the server's certificate (a self-signed test server)")
	fs.StringVar(&f.cacert, "cacert", "", "https: trust the CA certificates in this PEM file")
	fs.StringVar(&f.out, "out", "", "write every request to FILE as it goes: .csv, or .db/.sqlite/.sqlite3 for SQLite (intended start, start, latency, status, bytes, error, VU, connection, segment)")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write the generator's CPU profile (pprof) to FILE")
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
	f.cSet, f.rateSet = seen["c"], seen["rate"]
	if f.d == 0 && f.n == 0 && f.iterations == 0 && !seen["d"] && len(f.stageSpecs) == 0 {
		f.d = defaultDuration
	}
	if err := f.check(seen); err != nil {
		return nil, "", err
	}
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
	case seen["rate"] && len(f.stageSpecs) == 0 && (f.rate <= 0 || math.IsNaN(f.rate) || math.IsInf(f.rate, 0)):
		return fmt.Errorf("--rate must be a positive number, got %v", f.rate)
	case seen["rate"] && (f.rate < 0 || math.IsNaN(f.rate) || math.IsInf(f.rate, 0)):
		return fmt.Errorf("--rate must be a number ≥ 0 with --stage, got %v", f.rate)
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
	case len(f.stageSpecs) > 0 && (seen["d"] || seen["n"] || f.iterations > 0 || f.burst || f.poisson):
		return fmt.Errorf("--stage sets the run's length: it cannot be combined with -d, -n, --iterations, --burst or --poisson")
	case seen["streams"] && !f.http2:
		return fmt.Errorf("--streams needs --http2 (HTTP/1.1 carries one request at a time per connection)")
	case f.streams < 1 || f.streams > load.MaxStreams:
		return fmt.Errorf("--streams must be in 1..%d, got %d", load.MaxStreams, f.streams)
	case f.http2 && f.newConn:
		return fmt.Errorf("--new-conn applies to HTTP/1.1, not --http2")
	case f.abortOnFail && len(f.thresholdSpecs) == 0:
		return fmt.Errorf("--abort-on-fail needs --threshold")
	case f.body != "" && len(f.files) > 0:
		return fmt.Errorf("give --body or --file, not both")
	}
	if f.rate > 0 && f.n > 0 {
		if d := float64(f.n) / f.rate; d > f.maxDuration.Seconds() {
			return fmt.Errorf("-n %d at --rate %g takes %.0fs, above --max-duration %v", f.n, f.rate, d, f.maxDuration)
		}
	}
	if f.rate > 0 && len(f.stageSpecs) == 0 {
		d := f.d
		if f.n > 0 {
			d = time.Duration(float64(f.n) / f.rate * float64(time.Second))
		}
		if planned := f.rate * d.Seconds(); planned > load.DefaultMaxRequests {
			return fmt.Errorf("--rate %g for %v plans %.0f requests, above the cap of %d (load.DefaultMaxRequests); split the load over agents with --segment", f.rate, d, planned, load.DefaultMaxRequests)
		}
	}
	var err error
	if f.stages, err = load.ParseStages(f.stageSpecs...); err != nil {
		return fmt.Errorf("--stage: %w", err)
	}
	if len(f.stages) > 0 {
		var total time.Duration
		for _, st := range f.stages {
			total += st.Duration
		}
		if total > f.maxDuration {
			return fmt.Errorf("the stages last %v, above --max-duration %v", total, f.maxDuration)
		}
		if err := f.model().Validate(); err != nil {
			return fmt.Errorf("--stage: %w", err)
		}
	}
	if _, err := metrics.ParseThresholds(f.thresholdSpecs...); err != nil {
		return fmt.Errorf("--threshold: %w", err)
	}
	if f.segment, err = split.ParseSegment(f.segmentSpec); err != nil {
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
	for _, o := range []struct{ flag, path string }{{"--hlog", f.hlog}, {"--out", f.out}, {"--cpuprofile", f.cpuProfile}} {
		if o.path != "" {
			if err := outputAvailable(o.flag, o.path); err != nil {
				return err
			}
		}
	}
	if f.out != "" {
		switch strings.ToLower(filepath.Ext(f.out)) {
		case ".csv", ".db", ".sqlite", ".sqlite3":
		default:
			return fmt.Errorf("--out %s: want a .csv file, or .db, .sqlite or .sqlite3 for SQLite", f.out)
		}
	}
	if f.cacert != "" {
		if _, err := os.Stat(f.cacert); err != nil {
			return fmt.Errorf("--cacert: %w", err)
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
	inFlight := 0 // DefaultMaxInFlight unless -c caps it
	if f.cSet {
		inFlight = f.c
	}
	switch {
	case len(f.stages) > 0 && f.rateSet:
		return load.RampingRate{Start: f.rate, Stages: f.stages, MaxInFlight: inFlight}
	case len(f.stages) > 0:
		start := 0
		if f.cSet {
			start = f.c
		}
		return load.RampingVUs{Start: start, Stages: f.stages, Think: f.think}
	case f.burst:
		return load.Burst{N: f.n}
	case f.rate > 0:
		d := f.d
		if d == 0 {
			d = time.Duration(float64(f.n) / f.rate * float64(time.Second))
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
	opts, err := f.options()
	if err != nil {
		return 2, err
	}
	if f.html != "" {
		if err := htmlAvailable(f.html); err != nil {
			return 2, err
		}
	}
	if r := f.rate * f.segment.Fraction(); r > singleProcessRate {
		fmt.Fprintf(stderr, "conclab load: note: --rate %g/s (this agent's share) is above what one process sends over loopback (about %g/s); arrivals that cannot be sent by the planned end are counted as dropped, never sent late. Split the load over agents with --segment i/N.\n", r, float64(singleProcessRate))
	}
	files := &outputs{}
	defer files.abandon()
	agent := split.Agent{Segment: f.segment}
	if f.hlog != "" {
		if agent.Log, err = files.create("--hlog", f.hlog); err != nil {
			return 2, err
		}
	}
	if f.out != "" {
		w, err := requestlog.Create(f.out, requestlog.Options{Segment: f.segment.String()})
		if err != nil {
			return 2, fmt.Errorf("--out: %w", err)
		}
		files.add(f.out, w)
		opts.Requests = w.Write
	}
	if f.cpuProfile != "" {
		pf, err := files.create("--cpuprofile", f.cpuProfile)
		if err != nil {
			return 2, err
		}
		if err := pprof.StartCPUProfile(pf); err != nil {
			return 2, fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var live *liveView
	if !f.quiet {
		live = newLiveView(stdout, stderr, methodOf(t)+" "+url, f.jsonOut)
		opts.OnStart, opts.OnInterval, opts.Progress = live.start, live.interval, live.progress
	}
	m := f.model()
	var res *metrics.Result
	var runErr error
	if f.segment.IsWhole() && agent.Log == nil {
		res, runErr = load.Run(ctx, t, m, opts) // one machine: no segment, no log
	} else {
		res, runErr = split.Run(ctx, t, m, opts, agent)
	}
	if live != nil {
		live.clear()
	}
	pprof.StopCPUProfile()
	if res == nil {
		code := 2 // bad input, found before any request
		if ctx.Err() != nil {
			code = 1 // interrupted while waiting for --start-at
		}
		return code, runErr
	}
	if err := files.close(); err != nil && runErr == nil {
		runErr = err
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
	return thresholdsCode(res, stderr)
}

// thresholdsCode is 0 when every threshold passed, else exitThresholds
// with the failed ones named on stderr.
func thresholdsCode(res *metrics.Result, stderr io.Writer) (int, error) {
	failed := res.FailedThresholds()
	if len(failed) == 0 {
		return 0, nil
	}
	names := make([]string, len(failed))
	for i, tr := range failed {
		names[i] = tr.Threshold.String() + " (" + tr.Measured() + ")"
	}
	fmt.Fprintf(stderr, "conclab: %d of %d thresholds failed: %s\n", len(failed), len(res.Thresholds), strings.Join(names, ", "))
	return exitThresholds, nil
}

// options are the load.Options the flags ask for.
func (f *loadFlags) options() (load.Options, error) {
	opts := load.Options{
		Timeout:           f.timeout,
		GracefulStop:      f.grace,
		AllowRemote:       f.allowRemote,
		PhaseTimings:      f.phases,
		NewConnPerRequest: f.newConn,
		HTTP2:             f.http2,
		Streams:           f.streams,
		Strategy:          f.strategy,
		Workload:          f.workload,
		Labels:            map[string]string{},
		MaxDuration:       f.maxDuration,
		StartAt:           f.startAt,
		Thresholds:        f.thresholdSpecs,
		AbortOnFail:       f.abortOnFail,
	}
	if f.grace == 0 {
		opts.GracefulStop = -1
	}
	for _, l := range f.labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return opts, fmt.Errorf("--label %q: want KEY=VALUE", l)
		}
		opts.Labels[k] = v
	}
	if f.insecure || f.cacert != "" {
		opts.TLS = &tls.Config{InsecureSkipVerify: f.insecure}
		if f.cacert != "" {
			pem, err := os.ReadFile(f.cacert)
			if err != nil {
				return opts, fmt.Errorf("--cacert: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return opts, fmt.Errorf("--cacert %s: no PEM certificate in it", f.cacert)
			}
			opts.TLS.RootCAs = pool
		}
	}
	return opts, nil
}

// outputs are the files a run writes as it goes (--hlog, --out,
// --cpuprofile): closed when it ends, removed when it never started.
type outputs struct {
	paths   []string
	closers []io.Closer
	done    bool
}

func (o *outputs) add(path string, c io.Closer) {
	o.paths = append(o.paths, path)
	o.closers = append(o.closers, c)
}

func (o *outputs) create(flag, path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	o.add(path, f)
	return f, nil
}

// close closes every file; the first error is returned.
func (o *outputs) close() error {
	o.done = true
	var first error
	for i, c := range o.closers {
		if err := c.Close(); err != nil && first == nil {
			first = fmt.Errorf("%s: %w", o.paths[i], err)
		}
	}
	return first
}

// abandon, unless close ran, closes and removes the files: nothing was
// run, so there is nothing in them.
func (o *outputs) abandon() {
	if o.done {
		return
	}
	for i, c := range o.closers {
		c.Close()
		os.Remove(o.paths[i])
	}
}

// writeResultJSON writes the frames of a result as conclab load --json
// does: summary, series, distribution, thresholds, warnings, errors.
func writeResultJSON(w io.Writer, res *metrics.Result) error {
	out := struct {
		Summary      *frame.Frame `json:"summary"`
		Series       *frame.Frame `json:"series"`
		Distribution *frame.Frame `json:"distribution"`
		Thresholds   *frame.Frame `json:"thresholds"`
		Warnings     []string     `json:"warnings"`
		Errors       []string     `json:"errors"`
	}{res.Summary(), res.Series(), res.Distribution(), res.ThresholdFrame(), nonNil(res.Warnings), nonNil(res.ErrorSamples)}
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
