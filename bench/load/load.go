// Package load is the lab's HTTP load generator: load models (Burst,
// Sequential, Closed VUs, Open arrival rate, with ramping stages) driving
// an in-process HTTP/1.1 client, with results recorded by bench/metrics
// into HDR histograms and returned as frames.
//
// The entry point is Run:
//
//	res, err := load.Run(ctx, load.Target{URL: srv.URL}, load.Closed{VUs: 20, Duration: 10 * time.Second, Think: time.Second}, load.Options{})
//	res.Summary()      // one-row frame: count, errors, rps, min_ms ... p99_ms ...
//	res.Series()       // one row per interval
//	res.Distribution() // latency by percentile
//
// Every run is bounded three ways: by ctx, by Options.MaxDuration and by
// Options.MaxRequests (a model that plans more requests is refused). Stopping is graceful, as in k6: at the model's end
// (or a bound) no new request starts; requests in flight get
// Options.GracefulStop to finish, then they are cut off and counted as
// interrupted.
//
// Each worker (VU, burst slot, open-model sender) owns one keep-alive
// connection, so the connection pool is sized to the concurrency; set
// Options.NewConnPerRequest for a new connection per request. Targets must
// be loopback unless Options.AllowRemote is set.
//
// The open model measures latency from each request's intended start
// (coordinated omission corrected) and keeps the latency from the actual
// send beside it (Result.Uncorrected). The generator checks itself: its
// process CPU, late sends and dropped arrivals become Result.Warnings.
//
// Beyond one machine: Options.Segment runs one share of a model (k6's
// execution segments: N agents with segments 0/N ... (N-1)/N together run
// exactly the whole), Options.StartAt lets them begin together, and
// Options.Hlog writes an HdrHistogram interval log that
// metrics.MergeHlogs combines with the other agents' into one result.
package load

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
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
	// MaxConcurrency bounds a Burst's N, Closed VUs (and stage targets) and
	// Open.MaxInFlight: each is a goroutine and a connection, so a typo
	// such as -c 100000000 is refused instead of exhausting the machine.
	MaxConcurrency = 100_000
	// MaxRate bounds an open model's rate (and its stage targets): ten
	// million requests a second is a 100 ns gap, beyond what one process
	// sends over loopback (the generator reaches about 10^5/s), so a
	// larger figure is a typo or a job for several agents (Segment).
	MaxRate = 10_000_000
	// MaxStartDelay bounds how far ahead Options.StartAt may be.
	MaxStartDelay = 24 * time.Hour
	// DefaultCPUWarn is the share of the machine's CPUs (GOMAXPROCS) the
	// process may use before the result warns it may be generator-bound.
	DefaultCPUWarn = 0.9
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
	// LateThreshold is how late an open-model send may start before it
	// counts as late. 0 means DefaultLateThreshold.
	LateThreshold time.Duration
	// Strategy, Workload and Load label the result's frames; Load defaults
	// to the model's description. Labels adds any others.
	Strategy, Workload, Load string
	Labels                   map[string]string
	// Progress, when set, is called every DefaultProgressEvery from
	// another goroutine while the run goes on.
	Progress func(Progress)
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
	// Segment, when not the whole run (its zero value), runs only this
	// segment's share of the model (see Segment and Segment.Apply): N
	// agents running segments 0/N ... (N-1)/N of the same model from the
	// same StartAt together run exactly the whole model. The result's load
	// label names the segment.
	Segment Segment
	// StartAt, when set, is when the run starts: Run validates its input,
	// then waits until StartAt (ctx cancels the wait), so that agents on
	// several machines begin together. It may be at most MaxStartDelay
	// ahead. A StartAt already past starts at once, with a warning when it
	// is more than 100 ms late.
	StartAt time.Time
	// Hlog, when set, receives the run as an HdrHistogram interval log
	// (metrics.HlogWriter: the standard text format, one histogram per
	// interval and metric) written as the run goes and ended with the
	// run's totals; metrics.MergeHlogs (conclab merge) combines such logs
	// into one result. A write error ends the run's error.
	Hlog io.Writer

	// observeSend, when set (by tests), is called with the moment each
	// open-model send passes the planned-end gate (see engine.send).
	observeSend func(time.Time)
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

// engine is the state shared by a run's workers.
type engine struct {
	req     *request
	rec     *metrics.Recorder
	hard    context.Context // cancelled at the hard stop
	stopNew chan struct{}   // closed at the soft stop
	stopMu  sync.Once
	start   time.Time
	softAt  time.Duration // the soft stop, from start
	planDur time.Duration // the model's planned duration (0: bounded by counts)
	late    time.Duration
	maxReq  int64
	issued  atomic.Int64
	done    atomic.Int64
	errs    atomic.Int64
	dropped atomic.Int64
	level   atomic.Uint64 // float64 bits: VUs or target rate
	reason  atomic.Value  // string: why the run stopped early
	observe func(time.Time)
}

func (e *engine) stop(reason string) {
	e.stopMu.Do(func() {
		if reason != "" {
			e.reason.Store(reason)
		}
		close(e.stopNew)
	})
}

func (e *engine) stopped() bool {
	select {
	case <-e.stopNew:
		return true
	default:
		return e.hard.Err() != nil
	}
}

// ticket reserves one request; false means the run is over.
func (e *engine) ticket() bool {
	if e.stopped() {
		return false
	}
	return e.reserve()
}

// reserve counts one request against MaxRequests; false means a bound or
// the hard stop was reached.
func (e *engine) reserve() bool {
	if e.hard.Err() != nil {
		return false
	}
	if e.issued.Add(1) > e.maxReq {
		e.issued.Add(-1)
		e.stop(fmt.Sprintf("stopped at MaxRequests=%d", e.maxReq))
		return false
	}
	return true
}

func (e *engine) setLevel(v float64) { e.level.Store(math.Float64bits(v)) }
func (e *engine) getLevel() float64  { return math.Float64frombits(e.level.Load()) }

// worker is one sender with its own connection and sample.
type worker struct {
	id int
	c  *conn
	s  metrics.Sample
}

func (e *engine) newWorker(id int) (*worker, func()) {
	w := &worker{id: id, c: newConn(e.req)}
	stop := context.AfterFunc(e.hard, w.c.interrupt)
	return w, func() { stop(); w.c.close() }
}

// send performs one request. intended is the open model's due time (zero
// for closed models: latency runs from the send).
//
// An open-model send that a worker takes up at or after the soft stop (it
// was handed over just before the planned end, or the worker's goroutine
// started late) is dropped, not sent: at the planned end no new request
// starts.
func (e *engine) send(w *worker, intended time.Time) {
	if !intended.IsZero() {
		now := time.Now()
		if now.Sub(e.start) >= e.softAt {
			e.issued.Add(-1)
			e.dropped.Add(1)
			return
		}
		if e.observe != nil {
			e.observe(now)
		}
	}
	w.s = metrics.Sample{}
	sent, done := w.c.do(e.hard, &w.s)
	if intended.IsZero() {
		w.s.Latency = done.Sub(sent)
		w.s.Uncorrected = w.s.Latency
	} else {
		w.s.Latency = done.Sub(intended)
		w.s.Uncorrected = done.Sub(sent)
		w.s.Late = sent.Sub(intended) > e.late
	}
	e.rec.Record(w.id, &w.s)
	if w.s.Outcome != metrics.Interrupted {
		e.done.Add(1)
		if w.s.Outcome.IsError() {
			e.errs.Add(1)
		}
	}
}

func (m Burst) run(e *engine) {
	e.setLevel(float64(m.N))
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < m.N && e.hard.Err() == nil; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, release := e.newWorker(i)
			defer release()
			select {
			case <-gate:
			case <-e.hard.Done():
				return
			}
			if e.ticket() {
				e.send(w, time.Time{})
			}
		}()
	}
	close(gate)
	wg.Wait()
}

func (m Sequential) run(e *engine) {
	Closed{VUs: 1, Iterations: m.N}.run(e)
}

func (m Closed) run(e *engine) { m.runShare(e, Segment{}) }

// runShare runs segment seg of the model (the zero Segment: the whole):
// VUs and, with Stages, the active level at every instant are scaled, and
// Total is split along the VUs (totalShare), so the shares of segments
// that tile the whole add up to it at every moment.
func (m Closed) runShare(e *engine, seg Segment) {
	scale := seg.Scale
	vus := int(scale(int64(m.VUs)))
	total := int(m.totalShare(seg))
	if m.Total > 0 && total == 0 {
		return // no share of the requests
	}
	maxVUs := int(scale(int64(m.maxVUs())))
	var active, started atomic.Int64
	active.Store(int64(vus))
	e.setLevel(float64(vus))
	var wg sync.WaitGroup
	if len(m.Stages) > 0 {
		wg.Add(1)
		go func() { // ramp controller
			defer wg.Done()
			t := time.NewTicker(50 * time.Millisecond)
			defer t.Stop()
			for {
				lvl, done := levelAt(float64(m.VUs), m.Stages, time.Since(e.start))
				n := scale(int64(math.Round(lvl)))
				active.Store(n)
				e.setLevel(float64(n))
				if done {
					e.stop("")
					return
				}
				select {
				case <-t.C:
				case <-e.stopNew:
					return
				}
			}
		}()
	}
	for i := 0; i < maxVUs && e.hard.Err() == nil; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, release := e.newWorker(i)
			defer release()
			var think *time.Timer
			for it := 0; m.Iterations == 0 || it < m.Iterations; it++ {
				for int64(i) >= active.Load() { // parked by the ramp
					select {
					case <-e.stopNew:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
				if total > 0 && started.Add(1) > int64(total) {
					return
				}
				if !e.ticket() {
					return
				}
				e.send(w, time.Time{})
				if m.Think > 0 {
					if think == nil {
						think = time.NewTimer(m.Think)
					} else {
						think.Reset(m.Think)
					}
					select {
					case <-think.C:
					case <-e.stopNew:
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func (m Open) pacer() Pacer {
	switch {
	case m.Pacer != nil:
		return m.Pacer
	case len(m.Stages) > 0:
		return StagesPacer{Start: m.Rate, Stages: m.Stages}
	case m.Poisson:
		return NewPoissonPacer(m.Rate, m.Duration, m.Seed)
	}
	return ConstantPacer{PerSecond: m.Rate, Duration: m.Duration}
}

func (m Open) run(e *engine) {
	p := m.pacer()
	maxInFlight := m.MaxInFlight
	if maxInFlight == 0 {
		maxInFlight = DefaultMaxInFlight
	}
	jobs := make(chan time.Time)
	var wg sync.WaitGroup
	workers := 0
	startWorker := func(first time.Time) {
		id := workers
		workers++
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, release := e.newWorker(id)
			defer release()
			e.send(w, first)
			for intended := range jobs {
				e.send(w, intended)
			}
		}()
	}
	var hits int64
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// Arrivals are sent at their due times until the planned end (the soft
	// stop); a send that waits for a free connection is late, and the
	// corrected latency includes the wait. At the planned end no new
	// request starts: the arrivals that were due but could not be sent
	// (every connection busy: the target, or the generator, could not keep
	// the rate) are counted as dropped, never sent after the end.
loop:
	for !e.stopped() {
		elapsed := time.Since(e.start)
		wait, stop := p.Pace(elapsed, hits)
		if stop || elapsed+wait >= e.softAt {
			break
		}
		e.setLevel(p.Rate(elapsed))
		if wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-e.stopNew:
				break loop
			}
			continue
		}
		intended := e.start.Add(elapsed + wait)
		if !e.reserve() {
			break
		}
		hits++
		select {
		case jobs <- intended:
			continue
		default:
		}
		switch {
		case workers < maxInFlight:
			startWorker(intended)
		case m.DropWhenBusy:
			e.issued.Add(-1)
			e.dropped.Add(1)
		default: // queue: the send waits for a free worker and is late
			select {
			case jobs <- intended:
			case <-e.stopNew:
				e.issued.Add(-1)
				hits--
				break loop
			}
		}
	}
	if e.hard.Err() == nil && e.reason.Load() == nil {
		// Arrivals due before the planned end that were not sent.
		e.dropped.Add(unsent(p, hits, e.softAt, e.maxReq-e.issued.Load()))
	}
	// The run lasts until the planned end, so that rps is over the planned
	// duration.
	if e.planDur > 0 {
		select {
		case <-e.stopNew:
		case <-e.hard.Done():
		}
	}
	e.stop("")
	close(jobs)
	wg.Wait()
}

// unsent counts the arrivals from number hits on that p schedules before
// end, at most limit.
func unsent(p Pacer, hits int64, end time.Duration, limit int64) int64 {
	var n int64
	for n < limit {
		wait, stop := p.Pace(end, hits+n)
		if stop || wait >= 0 {
			break
		}
		n++
	}
	return n
}

// Run drives target with model until the model ends or a bound is hit,
// and returns the result. Invalid input is an error before any request is
// sent (and a nil result). Once requests were sent, the result is always
// returned; the error is then non-nil when ctx was cancelled (the result
// holds what was measured) or when no request got any response (the
// error names the first failure).
func Run(ctx context.Context, t Target, m Model, o Options) (*metrics.Result, error) {
	if m == nil {
		return nil, fmt.Errorf("load: no model")
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	if err := o.normalise(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	whole := m
	m, err := o.Segment.Apply(m)
	if err != nil {
		return nil, err
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	planDur, planN := m.plan()
	if planN > o.MaxRequests {
		return nil, fmt.Errorf("load: the model plans %d requests, more than MaxRequests=%d: shorten it, raise MaxRequests, or split it over agents with Options.Segment", planN, o.MaxRequests)
	}
	if !o.StartAt.IsZero() {
		if ahead := time.Until(o.StartAt); ahead > MaxStartDelay {
			return nil, fmt.Errorf("load: StartAt %s is %v ahead, more than MaxStartDelay (%v)", o.StartAt.Format(time.RFC3339), ahead.Round(time.Second), MaxStartDelay)
		}
	}
	req, _, err := buildRequest(ctx, t, &o)
	if err != nil {
		return nil, err
	}
	isOpen, gaugeName := false, ""
	switch m.(type) {
	case Closed, segClosed:
		gaugeName = "vus"
	case Open, segOpen:
		isOpen, gaugeName = true, "target_rps"
	}
	interval := o.Interval
	if interval == 0 {
		interval = autoInterval(planDur)
	}
	labels := map[string]string{}
	for k, v := range o.Labels {
		labels[k] = v
	}
	labels[metrics.LabelStrategy] = o.Strategy
	labels[metrics.LabelWorkload] = o.Workload
	labels[metrics.LabelLoad] = o.Load
	wholeLabel := o.Load
	if o.Load == "" {
		labels[metrics.LabelLoad] = m.String()
		wholeLabel = whole.String()
	} else if !o.Segment.IsWhole() {
		labels[metrics.LabelLoad] = o.Load + " segment " + o.Segment.String()
	}
	var hlog *metrics.HlogWriter
	if o.Hlog != nil {
		h := metrics.HlogHeader{Labels: labels, GaugeName: gaugeName, Tick: interval}
		if !o.Segment.IsWhole() {
			h.Segment, h.Whole = o.Segment.String(), wholeLabel
		}
		hlog = metrics.NewHlogWriter(o.Hlog, h)
	}

	var lateStart time.Duration
	if !o.StartAt.IsZero() {
		if wait := time.Until(o.StartAt); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("load: interrupted while waiting for StartAt %s: %w", o.StartAt.Format(time.RFC3339), ctx.Err())
			}
		} else {
			lateStart = -wait
		}
	}

	serverCPU := func() time.Duration { return 0 }
	if o.ServerCPU != nil {
		serverCPU = o.ServerCPU
	}
	cpu0, srvCPU0 := processCPU(), serverCPU()
	start := time.Now()
	if !o.StartAt.IsZero() && lateStart == 0 {
		start = o.StartAt // the agents' common time zero, a few µs ago
	}
	rec, err := metrics.NewRecorder(start, metrics.Options{Uncorrected: isOpen, Phases: o.PhaseTimings, Hlog: hlog})
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	hard, cancelHard := context.WithCancel(ctx)
	defer cancelHard()
	e := &engine{req: req, rec: rec, hard: hard, stopNew: make(chan struct{}), start: start,
		late: o.LateThreshold, maxReq: o.MaxRequests, planDur: planDur, observe: o.observeSend}
	// A hard stop (ctx cancelled) is also a soft one: thinking and parked
	// VUs and the open-model scheduler all wait on stopNew.
	defer context.AfterFunc(hard, func() { e.stop("") })()

	// Soft stop at the model's end or MaxDuration, hard stop a grace later.
	soft := o.MaxDuration
	if planDur > 0 && planDur < soft {
		soft = planDur
	}
	e.softAt = soft
	softTimer := time.AfterFunc(soft, func() {
		if soft == o.MaxDuration && (planDur == 0 || planDur > o.MaxDuration) {
			e.stop(fmt.Sprintf("stopped at MaxDuration=%v", o.MaxDuration))
		} else {
			e.stop("")
		}
	})
	defer softTimer.Stop()
	var hardTimer *time.Timer
	var hardMu sync.Mutex
	graceWatch := make(chan struct{})
	go func() { // arm the hard stop when the soft stop happens
		select {
		case <-e.stopNew:
			hardMu.Lock()
			if o.GracefulStop < 0 {
				cancelHard()
			} else {
				hardTimer = time.AfterFunc(o.GracefulStop, cancelHard)
			}
			hardMu.Unlock()
		case <-graceWatch:
		case <-hard.Done():
		}
	}()

	// Interval cuts and progress.
	tickDone := make(chan struct{})
	var tickWG sync.WaitGroup
	tickWG.Add(1)
	go func() {
		defer tickWG.Done()
		cut := time.NewTicker(interval)
		defer cut.Stop()
		var prog <-chan time.Time
		if o.Progress != nil {
			pt := time.NewTicker(DefaultProgressEvery)
			defer pt.Stop()
			prog = pt.C
		}
		for {
			select {
			case now := <-cut.C:
				rec.Cut(now, e.getLevel())
			case <-prog:
				o.Progress(Progress{Elapsed: time.Since(start), Duration: planDur, Done: e.done.Load(),
					Errors: e.errs.Load(), Planned: planN, Level: e.getLevel()})
			case <-tickDone:
				return
			}
		}
	}()

	m.run(e)
	end := time.Now()
	close(tickDone)
	tickWG.Wait()
	close(graceWatch)
	hardMu.Lock()
	if hardTimer != nil {
		hardTimer.Stop()
	}
	hardMu.Unlock()
	if o.Progress != nil {
		o.Progress(Progress{Elapsed: end.Sub(start), Duration: planDur, Done: e.done.Load(),
			Errors: e.errs.Load(), Planned: planN, Level: e.getLevel()})
	}

	res := rec.Finish(end, e.getLevel(), labels)
	res.Dropped = e.dropped.Load()
	res.GaugeName = gaugeName
	if lateStart > 100*time.Millisecond {
		res.Warn(fmt.Sprintf("started %v after StartAt %s: this agent was late, so it did not begin together with the others", lateStart.Round(time.Millisecond), o.StartAt.Format(time.RFC3339Nano)))
	}
	if emptyModel(m) {
		res.Warn(fmt.Sprintf("segment %s has no share of %s (its shares of VUs or requests round to zero): no request was sent", o.Segment, whole))
	}
	genCPU := processCPU() - cpu0 - (serverCPU() - srvCPU0)
	selfCheck(res, e, o, max(genCPU, 0), end.Sub(start), isOpen)
	if hlog != nil {
		if err := hlog.End(res); err != nil {
			return res, fmt.Errorf("load: %w", err)
		}
	}

	if ctx.Err() != nil {
		return res, fmt.Errorf("load: run interrupted after %v: %w", end.Sub(start).Round(time.Millisecond), ctx.Err())
	}
	if n := res.Count(); n > 0 && res.Latency.Count == 0 {
		first := "unknown error"
		if len(res.ErrorSamples) > 0 {
			first = res.ErrorSamples[0]
		}
		return res, fmt.Errorf("load: all %d requests to %s failed, first: %s", n, t.URL, first)
	}
	return res, nil
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
	case o.LateThreshold < 0:
		return fmt.Errorf("load: LateThreshold must not be negative, got %v", o.LateThreshold)
	}
	if o.Interval > 0 && o.Interval < time.Millisecond {
		return fmt.Errorf("load: Interval must be at least 1ms, got %v", o.Interval)
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
	return nil
}

// processCPU is the user+system CPU time of this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// selfCheck attaches the generator's warnings.
// cpu is the process CPU time used during the run, less servers' (ServerCPU).
func selfCheck(res *metrics.Result, e *engine, o Options, cpu, elapsed time.Duration, open bool) {
	if r, ok := e.reason.Load().(string); ok && r != "" {
		res.Warn(r + ": the model did not run to its end")
	}
	limit := o.CPUWarn
	if limit == 0 {
		limit = DefaultCPUWarn
	}
	if elapsed >= 200*time.Millisecond && limit > 0 {
		share := cpu.Seconds() / (elapsed.Seconds() * float64(runtime.GOMAXPROCS(0)))
		if share >= limit {
			res.Warn(fmt.Sprintf("the generator used %.0f%% of the process's %d CPUs (%.2fs CPU in %.2fs, servers' own CPU left out when known): the figures may be bounded by the generator, not the target",
				100*share, runtime.GOMAXPROCS(0), cpu.Seconds(), elapsed.Seconds()))
		}
	}
	if open {
		if late := res.Late(); late > 0 && float64(late) > 0.01*float64(res.Count()) {
			res.Warn(fmt.Sprintf("%d of %d sends (%.1f%%) started more than %v after their intended time: the generator could not keep the rate; corrected latencies include that delay",
				late, res.Count(), 100*float64(late)/float64(max(res.Count(), 1)), o.LateThreshold))
		}
		if d := res.Dropped; d > 0 {
			res.Warn(fmt.Sprintf("%d arrivals dropped: all MaxInFlight connections were busy until the planned end (with DropWhenBusy: when they were due), so they were never sent; the target, or the generator, could not keep the rate", d))
		}
	}
	if n := res.Outcomes(metrics.Interrupted); n > 0 {
		res.Warn(fmt.Sprintf("%d requests were still in flight after the graceful stop and were cut off", n))
	}
}
