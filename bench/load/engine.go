package load

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conclab/conclab/bench/metrics"
)

// engine is the state shared by a run's workers: the transport, the
// recorder, the two stops (soft: no new request; hard: requests in flight
// are cut off) and the counters the progress and the self-check read.
type engine struct {
	cfg     *config
	tr      transport
	rec     *metrics.Recorder
	hard    context.Context // cancelled at the hard stop
	cancel  context.CancelFunc
	stopNew chan struct{} // closed at the soft stop
	stopMu  sync.Once
	start   time.Time
	late    time.Duration // how late StartAt was met
	softAt  time.Duration // the soft stop, from start
	planDur time.Duration // the model's planned duration (0: bounded by counts)
	maxReq  int64
	issued  atomic.Int64
	done    atomic.Int64
	errs    atomic.Int64
	dropped atomic.Int64
	level   atomic.Uint64 // float64 bits: VUs or target rate
	// levelAt, when the model's level is a function of the time (a rate,
	// a VU schedule), is that function: an interval's gauge is then the
	// level at its end, however late the cut runs.
	levelAt func(time.Duration) float64
	reason  atomic.Value  // string: why the run stopped early
	aborted atomic.Int64  // 1 + the index of the threshold that stopped the run
	reqs    *requestLog   // nil: raw results off
	cpu0    time.Duration // process and servers' CPU at the start
	srvCPU0 time.Duration

	background sync.WaitGroup // the interval and grace goroutines
	tickDone   chan struct{}
}

func newEngine(ctx context.Context, c *config, late time.Duration) (*engine, error) {
	start := time.Now()
	if !c.o.StartAt.IsZero() && late == 0 {
		start = c.o.StartAt // the agents' common time zero, a few µs ago
	}
	e := &engine{cfg: c, tr: c.transport, start: start, late: late, planDur: c.plan.duration, levelAt: c.plan.level,
		maxReq: c.o.MaxRequests, stopNew: make(chan struct{}), tickDone: make(chan struct{})}
	rec, err := metrics.NewRecorder(start, metrics.Options{Uncorrected: c.plan.open, Phases: c.o.PhaseTimings, OnCut: e.onCut})
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	e.rec = rec
	e.hard, e.cancel = context.WithCancel(ctx)
	if c.o.Requests != nil {
		e.reqs = newRequestLog(c.o.Requests, e.stop)
	}
	return e, nil
}

// begin starts the clocks: the soft stop at the model's end or
// MaxDuration, the hard stop a grace period after the soft one, and the
// interval cuts and progress reports.
func (e *engine) begin() {
	o := &e.cfg.o
	e.cpu0, e.srvCPU0 = processCPU(), o.ServerCPU()
	if o.OnStart != nil {
		o.OnStart(Plan{Start: e.start, Duration: e.planDur, Requests: e.cfg.plan.requests, Interval: e.cfg.interval,
			Gauge: e.cfg.plan.gauge, Labels: e.cfg.labels, Protocol: e.tr.protocol(), Uncorrected: e.cfg.plan.open, Phases: o.PhaseTimings})
	}
	// A hard stop (ctx cancelled) is also a soft one: thinking and parked
	// VUs and the open-model scheduler all wait on stopNew.
	context.AfterFunc(e.hard, func() { e.stop("") })
	soft := o.MaxDuration
	if e.planDur > 0 && e.planDur < soft {
		soft = e.planDur
	}
	e.softAt = soft
	softTimer := time.AfterFunc(soft-time.Since(e.start), func() {
		if soft == o.MaxDuration && (e.planDur == 0 || e.planDur > o.MaxDuration) {
			e.stop(fmt.Sprintf("stopped at MaxDuration=%v", o.MaxDuration))
		} else {
			e.stop("")
		}
	})
	e.background.Add(2)
	go func() { // arm the hard stop when the soft stop happens
		defer e.background.Done()
		defer softTimer.Stop()
		select {
		case <-e.stopNew:
		case <-e.tickDone:
			return
		}
		if o.GracefulStop < 0 {
			e.cancel()
			return
		}
		grace := time.NewTimer(o.GracefulStop)
		defer grace.Stop()
		select {
		case <-grace.C:
			e.cancel()
		case <-e.tickDone:
		}
	}()
	go e.tick()
}

// tick cuts the series intervals and reports progress until the run ends.
func (e *engine) tick() {
	defer e.background.Done()
	cut := time.NewTicker(e.cfg.interval)
	defer cut.Stop()
	var prog <-chan time.Time
	if e.cfg.o.Progress != nil {
		pt := time.NewTicker(DefaultProgressEvery)
		defer pt.Stop()
		prog = pt.C
	}
	for {
		select {
		case now := <-cut.C:
			e.rec.Cut(now, e.gauge(now))
		case <-prog:
			e.cfg.o.Progress(e.progress())
		case <-e.tickDone:
			return
		}
	}
}

// gauge is the level for an interval ending at now.
func (e *engine) gauge(now time.Time) float64 {
	if e.levelAt != nil {
		return e.levelAt(now.Sub(e.start))
	}
	return e.getLevel()
}

func (e *engine) progress() Progress {
	return Progress{Elapsed: time.Since(e.start), Duration: e.planDur, Done: e.done.Load(),
		Errors: e.errs.Load(), Planned: e.cfg.plan.requests, Level: e.getLevel()}
}

// onCut is the recorder's interval hook: the thresholds' early abort,
// then the caller's live view.
func (e *engine) onCut(c *metrics.Cut) {
	if e.cfg.o.AbortOnFail && !c.Final && e.aborted.Load() == 0 {
		most := e.cfg.plan.requests
		if most == 0 {
			most = e.maxReq
		}
		for i, t := range e.cfg.thresholds {
			if t.Doomed(c, most) {
				e.aborted.Store(int64(i) + 1)
				e.stop(fmt.Sprintf("stopped early: threshold %s is certain to fail", t))
				break
			}
		}
	}
	if e.cfg.o.OnInterval != nil {
		e.cfg.o.OnInterval(c)
	}
}

// finish waits for the background goroutines and the raw results, and
// assembles the result.
func (e *engine) finish() (*metrics.Result, error) {
	end := time.Now()
	close(e.tickDone)
	e.background.Wait()
	var logErr error
	if e.reqs != nil {
		logErr = e.reqs.close()
	}
	if e.cfg.o.Progress != nil {
		p := e.progress()
		p.Elapsed = end.Sub(e.start)
		e.cfg.o.Progress(p)
	}
	res := e.rec.Finish(end, e.gauge(end), e.cfg.labels)
	res.Dropped = e.dropped.Load()
	res.GaugeName = e.cfg.plan.gauge
	res.Protocol, res.Connections, res.Streams = e.tr.protocol(), e.tr.connections(), e.tr.streams()
	if len(e.cfg.thresholds) > 0 {
		res.CheckThresholds(e.cfg.thresholds...)
		if i := e.aborted.Load(); i > 0 {
			res.Thresholds[i-1].Aborted = true
		}
	}
	e.selfCheck(res, end)
	return res, logErr
}

func (e *engine) close() {
	e.cancel()
	e.tr.close()
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

// worker is one sender with its own connection (or stream) and sample.
type worker struct {
	e     *engine
	id    int
	c     conn
	s     metrics.Sample
	batch []Request // raw results not yet handed over
	stop  func() bool
}

func (e *engine) newWorker(id int) *worker {
	w := &worker{e: e, id: id, c: e.tr.conn(id)}
	w.stop = context.AfterFunc(e.hard, w.c.interrupt)
	if e.reqs != nil {
		w.batch = e.reqs.batch()
	}
	return w
}

// release closes the worker's connection and hands over its raw results.
func (w *worker) release() {
	w.stop()
	w.c.close()
	if w.e.reqs != nil && len(w.batch) > 0 {
		w.batch = w.e.reqs.submit(w.batch)
	}
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
		if e.cfg.o.observeSend != nil {
			e.cfg.o.observeSend(now)
		}
	}
	w.s = metrics.Sample{}
	sent, done, status := w.c.do(e.hard, &w.s)
	if intended.IsZero() {
		w.s.Latency = done.Sub(sent)
		w.s.Uncorrected = w.s.Latency
	} else {
		w.s.Latency = done.Sub(intended)
		w.s.Uncorrected = done.Sub(sent)
		w.s.Late = sent.Sub(intended) > e.cfg.o.LateThreshold
	}
	e.rec.Record(w.id, &w.s)
	if w.s.Outcome != metrics.Interrupted {
		e.done.Add(1)
		if w.s.Outcome.IsError() {
			e.errs.Add(1)
		}
	}
	if e.reqs != nil {
		w.logRequest(intended, sent, status)
	}
}

func (w *worker) logRequest(intended, sent time.Time, status int) {
	r := Request{Intended: intended, Start: sent, Status: status, Outcome: w.s.Outcome, BytesIn: w.s.BytesIn,
		BytesOut: w.s.BytesOut, Err: w.s.Err, Worker: w.id, Conn: w.c.id()}
	if intended.IsZero() {
		r.Intended = sent
	}
	if w.s.Outcome.HasLatency() {
		r.Latency, r.Uncorrected = w.s.Latency, w.s.Uncorrected
	}
	w.batch = append(w.batch, r)
	if len(w.batch) == cap(w.batch) {
		w.batch = w.e.reqs.submit(w.batch)
	}
}
