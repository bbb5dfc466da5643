package load

import (
	"crypto/tls"
	"fmt"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// Defaults for Options.
const (
	DefaultMaxDuration   = 10 * time.Minute
	DefaultMaxRequests   = 100_000_000
	DefaultGracefulStop  = 10 * time.Second
	DefaultTimeout       = 60 * time.Second
	DefaultMaxInFlight   = 1000
	DefaultLateThreshold = 5 * time.Millisecond
	DefaultProgressEvery = 200 * time.Millisecond
	// MaxConcurrency bounds a Burst's N, Closed VUs, RampingVUs levels and
	// MaxInFlight: each is a goroutine and a connection, so a typo such as
	// -c 100000000 is refused instead of exhausting the machine.
	MaxConcurrency = 100_000
	// MaxRate bounds an open model's rate (and its stage targets): ten
	// million requests a second is a 100 ns gap, beyond what one process
	// sends over loopback (the generator reaches about 10^5/s), so a
	// larger figure is a typo or a job for several agents
	// (bench/load/split).
	MaxRate = 10_000_000
	// MaxStartDelay bounds how far ahead Options.StartAt may be.
	MaxStartDelay = 24 * time.Hour
	// DefaultCPUWarn is the share of the machine's CPUs (GOMAXPROCS) the
	// process may use before the result warns it may be generator-bound.
	DefaultCPUWarn = 0.9
	// MaxStreams bounds Options.Streams.
	MaxStreams = 1000
)

// Options tune a run. The zero value uses the Default constants.
type Options struct {
	// MaxDuration bounds the run whatever the model says (then the grace
	// period applies). 0 means DefaultMaxDuration.
	MaxDuration time.Duration
	// MaxRequests bounds the number of requests started. 0 means
	// DefaultMaxRequests.
	MaxRequests int64
	// GracefulStop is how long requests in flight may finish after the
	// stop; 0 means DefaultGracefulStop, negative means cut off at once.
	GracefulStop time.Duration
	// Timeout bounds each request (connect to last body byte); 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// Interval is the series interval. 0 picks one: 1 s for runs of 20 s
	// or more, a twentieth of the run (at least 50 ms) for shorter timed
	// runs, 100 ms for Burst and Sequential and iteration-bound runs.
	Interval time.Duration
	// NewConnPerRequest dials a new connection for every request
	// (Connection: close) instead of keeping one alive per worker.
	NewConnPerRequest bool
	// PhaseTimings records connect, wait (send to first byte) and read
	// (first to last byte) histograms.
	PhaseTimings bool
	// AllowRemote permits a target that is not loopback.
	AllowRemote bool

	// HTTP2 speaks HTTP/2: over TLS (ALPN "h2") to an https:// target,
	// cleartext with prior knowledge (h2c) to an http:// one. Without it
	// requests are HTTP/1.1 (over TLS to an https:// target).
	HTTP2 bool
	// Streams is, with HTTP2, how many workers share one connection, each
	// with a stream of its own (h2load's -m, oha's -p); 0 means 1, a
	// connection per worker as with HTTP/1.1. At most MaxStreams.
	Streams int
	// TLS configures https:// targets (root CAs, client certificates,
	// InsecureSkipVerify for a self-signed test server); nil means the
	// system's roots. The generator sets the ALPN protocols.
	TLS *tls.Config

	// LateThreshold is how late an open-model send may start before it
	// counts as late. 0 means DefaultLateThreshold.
	LateThreshold time.Duration
	// Strategy, Workload and Load label the result's frames; Load defaults
	// to the model's description. Labels adds any others.
	Strategy, Workload, Load string
	Labels                   map[string]string

	// Thresholds are pass/fail criteria checked on the result
	// (metrics.ParseThreshold: "p95<200ms", "errors<1%", "rps>500"); the
	// outcomes are in Result.Thresholds, the summary's thresholds_failed
	// column and its text. A malformed one is an error before any request.
	Thresholds []string
	// AbortOnFail stops the run (gracefully, as at its end) as soon as a
	// threshold is certain to fail whatever the rest of the run does
	// (metrics.Threshold.Doomed), checked at each series interval.
	AbortOnFail bool

	// Progress, when set, is called every DefaultProgressEvery from
	// another goroutine while the run goes on, and once at its end.
	Progress func(Progress)
	// OnStart, when set, is called once the run starts (after StartAt),
	// before the first request, with what it plans.
	OnStart func(Plan)
	// OnInterval, when set, is called as each series interval closes,
	// with the interval's row (count, errors, latency statistics, the
	// gauge), its histograms and the run so far: what a live view draws
	// (conclab load's terminal panel; a notebook's live chart) and what an
	// interval log writes (bench/load/split). It runs on the run's
	// interval goroutine and must be quick; the Cut is valid only during
	// the call.
	OnInterval func(*metrics.Cut)
	// Requests, when set, receives every request of the run, in batches,
	// as the run goes (conclab load --out): one goroutine calls it, with
	// each worker's requests in order. A batch is only valid during the
	// call. Memory stays bounded: when it is slower than the requests,
	// workers wait for it (the result warns how long). Its first error
	// stops the run and is the run's error.
	Requests func([]Request) error

	// CPUWarn is the share of GOMAXPROCS CPUs the process may use before
	// the result warns that it may be generator-bound; 0 means
	// DefaultCPUWarn, negative turns the check off (e.g. when servers in
	// the same process are meant to saturate the CPUs).
	CPUWarn float64
	// ServerCPU, when set, returns the cumulative CPU time of servers
	// running in this process (e.g. strategy.Server.InProcessCPU); the
	// self-check subtracts what it grew by during the run from the
	// process's CPU, so a CPU-bound server in the same process is not
	// taken for a generator-bound run.
	ServerCPU func() time.Duration
	// StartAt, when set, is when the run starts: Run validates its input,
	// then waits until StartAt (ctx cancels the wait), and StartAt is the
	// run's time zero, so that agents on several machines begin together
	// (bench/load/split). It may be at most MaxStartDelay ahead. A StartAt
	// already past starts at once, with a warning when it is more than
	// 100 ms late.
	StartAt time.Time

	// observeSend, when set (by tests), is called with the moment each
	// open-model send passes the planned-end gate (see engine.send).
	observeSend func(time.Time)
	// goroutinesOnly (tests) runs closed models on a goroutine per VU
	// even where event loops could run them.
	goroutinesOnly bool
}

// Progress is a snapshot of a running run.
type Progress struct {
	Elapsed time.Duration
	// Duration is the planned length, 0 when the run is bounded by counts.
	Duration time.Duration
	// Done and Errors count finished requests; Planned is the planned
	// number of requests, 0 when unknown.
	Done, Errors, Planned int64
	// Level is the current VUs (closed) or target rate (open).
	Level float64
}

// Plan is what a run plans, as Options.OnStart receives it.
type Plan struct {
	// Start is the run's time zero; series intervals are from it.
	Start time.Time
	// Duration is the planned length, 0 when the run is bounded by
	// counts; Requests the most requests planned, 0 when unknown.
	Duration time.Duration
	Requests int64
	// Interval is the series interval.
	Interval time.Duration
	// Gauge names the series' level column: "vus", "target_rps" or "".
	Gauge string
	// Labels are the result's labels.
	Labels map[string]string
	// Protocol is "HTTP/1.1", "HTTP/1.1+TLS", "h2" or "h2c".
	Protocol string
	// Uncorrected and Phases say which histograms the intervals carry
	// besides the latency: the uncorrected latency (open models) and the
	// phase timings (Options.PhaseTimings).
	Uncorrected, Phases bool
}

func (o *Options) normalise() error {
	switch {
	case o.MaxDuration < 0:
		return fmt.Errorf("load: MaxDuration must not be negative, got %v", o.MaxDuration)
	case o.MaxRequests < 0:
		return fmt.Errorf("load: MaxRequests must not be negative, got %d", o.MaxRequests)
	case o.Timeout < 0:
		return fmt.Errorf("load: Timeout must not be negative, got %v", o.Timeout)
	case o.Interval < 0:
		return fmt.Errorf("load: Interval must not be negative, got %v", o.Interval)
	case o.Interval > 0 && o.Interval < time.Millisecond:
		return fmt.Errorf("load: Interval must be at least 1ms, got %v", o.Interval)
	case o.LateThreshold < 0:
		return fmt.Errorf("load: LateThreshold must not be negative, got %v", o.LateThreshold)
	case o.Streams < 0 || o.Streams > MaxStreams:
		return fmt.Errorf("load: Streams must be in 0..%d, got %d", MaxStreams, o.Streams)
	case o.Streams > 1 && !o.HTTP2:
		return fmt.Errorf("load: Streams %d needs HTTP2 (HTTP/1.1 carries one request at a time per connection)", o.Streams)
	case o.HTTP2 && o.NewConnPerRequest:
		return fmt.Errorf("load: NewConnPerRequest applies to HTTP/1.1, not HTTP2")
	}
	if o.MaxDuration == 0 {
		o.MaxDuration = DefaultMaxDuration
	}
	if o.MaxRequests == 0 {
		o.MaxRequests = DefaultMaxRequests
	}
	if o.GracefulStop == 0 {
		o.GracefulStop = DefaultGracefulStop
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.LateThreshold == 0 {
		o.LateThreshold = DefaultLateThreshold
	}
	if o.Streams == 0 {
		o.Streams = 1
	}
	if o.CPUWarn == 0 {
		o.CPUWarn = DefaultCPUWarn
	}
	return nil
}

func autoInterval(d time.Duration) time.Duration {
	switch {
	case d <= 0:
		return 100 * time.Millisecond
	case d >= 20*time.Second:
		return time.Second
	}
	iv := (d / 20).Round(10 * time.Millisecond)
	return max(iv, 50*time.Millisecond)
}
