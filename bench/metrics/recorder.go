// Package metrics records request outcomes into HDR histograms and returns
// them as data frames: a summary (one row per run), a series (one row per
// interval) and a latency distribution (one row per percentile).
//
// A Recorder is fed Samples by many goroutines at once. Samples go into one
// of a few sharded interval histograms (a shard per worker group, so workers
// rarely contend); Cut closes an interval: the shards are merged into that
// interval's histogram, a series row is computed from it, and it is merged
// into the run totals. Every recorded sample therefore lands in exactly one
// interval, and the totals are the lossless merge of the intervals.
//
// Memory is bounded whatever the run length: a fixed number of histograms
// (about 270 KB each at DefaultSignificantFigures over DefaultHighest) plus
// one small row per interval, at most MaxIntervals rows.
//
// The package is clock-free: callers pass the times. It never imports the
// load generator; the edge is one way, load -> metrics -> frame.
package metrics

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Defaults for Options.
const (
	// DefaultHighest is the largest latency a histogram tracks exactly;
	// larger values are recorded as DefaultHighest and counted as clamped.
	DefaultHighest = time.Hour
	// DefaultSignificantFigures is the HDR precision (3: 0.1 % relative error).
	DefaultSignificantFigures = 3
	// DefaultMaxErrorSamples is how many distinct error messages a result keeps.
	DefaultMaxErrorSamples = 5
	// DefaultMaxIntervals bounds the series (about 320 bytes a row, so
	// 6.4 MB; 5.5 hours of 1 s intervals); once reached, the last interval
	// runs to the end of the run.
	DefaultMaxIntervals = 20_000
)

// Outcome classifies one request.
type Outcome int

// Outcomes. OK covers 1xx, 2xx and 3xx responses; every other outcome is an
// error. Status4xx and Status5xx have a response (and a latency); the
// transport outcomes (Timeout, Conn, Other) have none and are not put in the
// latency histograms. Interrupted is a request cut off by the hard stop; it
// is counted apart and is not an error.
const (
	OK Outcome = iota
	Status4xx
	Status5xx
	Timeout
	Conn
	Other
	Interrupted
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"ok", "4xx", "5xx", "timeout", "conn", "other", "interrupted"}

// String returns the outcome's short name, used in column names (errors_4xx).
func (o Outcome) String() string {
	if o < 0 || o >= numOutcomes {
		return fmt.Sprintf("Outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// IsError reports whether the outcome counts as an error.
func (o Outcome) IsError() bool { return o != OK && o != Interrupted }

// HasLatency reports whether a sample with this outcome carries a latency.
func (o Outcome) HasLatency() bool { return o == OK || o == Status4xx || o == Status5xx }

// Sample is one finished request.
type Sample struct {
	Outcome Outcome
	// Latency is measured from the request's intended start: in an open
	// model the time it was due, otherwise when it was sent.
	Latency time.Duration
	// Uncorrected is measured from when the request was actually sent. In
	// closed models it equals Latency; it is only recorded when
	// Options.Uncorrected is set.
	Uncorrected time.Duration
	// Late marks a send that started later than intended (open models).
	Late bool
	// Phase timings, recorded when Options.Phases is set: Connect is the
	// dial time (0 on a reused connection), Wait from the end of the send
	// to the first response byte, Read from the first byte to the end of
	// the body.
	Connect, Wait, Read time.Duration
	// Bytes on the wire, headers included.
	BytesIn, BytesOut int64
	// Err describes a failed request; a few distinct messages are kept.
	Err error
}

// Options configure a Recorder. The zero value is usable.
type Options struct {
	// Shards is the number of independent interval histograms samples are
	// spread over; 0 means 2×GOMAXPROCS, at most 8.
	Shards int
	// Uncorrected keeps a second latency histogram of Sample.Uncorrected
	// (open models, where it differs from Latency).
	Uncorrected bool
	// Phases keeps histograms of the phase timings.
	Phases bool
	// Highest is the largest trackable latency; 0 means DefaultHighest.
	Highest time.Duration
	// SignificantFigures is the HDR precision, 1–5; 0 means
	// DefaultSignificantFigures.
	SignificantFigures int
	// MaxIntervals bounds the series; 0 means DefaultMaxIntervals.
	MaxIntervals int
	// Hlog, when set, gets the run as an HdrHistogram interval log: the
	// header when the Recorder is created, each interval when it is cut
	// (see HlogWriter).
	Hlog *HlogWriter
}

// hists is a set of histograms sharing one configuration.
type hists struct {
	lat, unc         *hdrhistogram.Histogram
	conn, wait, read *hdrhistogram.Histogram
}

// counters are the exact numbers kept beside the histograms.
type counters struct {
	n        int64 // samples (all outcomes except Interrupted)
	outcomes [numOutcomes]int64
	late     int64
	bytesIn  int64
	bytesOut int64
	sum      int64 // exact latency sum (ns) of samples with latency
	uncSum   int64
	min, max int64 // exact, ns; min < 0 means unset
	clamped  int64
}

func (c *counters) reset() { *c = counters{min: -1} }

func (c *counters) add(o *counters) {
	c.n += o.n
	for i := range c.outcomes {
		c.outcomes[i] += o.outcomes[i]
	}
	c.late += o.late
	c.bytesIn += o.bytesIn
	c.bytesOut += o.bytesOut
	c.sum += o.sum
	c.uncSum += o.uncSum
	if o.min >= 0 && (c.min < 0 || o.min < c.min) {
		c.min = o.min
	}
	if o.max > c.max {
		c.max = o.max
	}
	c.clamped += o.clamped
}

type shard struct {
	mu sync.Mutex
	h  hists
	c  counters
	_  [64]byte // keep shards' locks on separate cache lines
}

// Recorder aggregates Samples into interval and total histograms. Record
// is safe for concurrent use; Cut and Finish must be called from one
// goroutine at a time (they may run concurrently with Record).
type Recorder struct {
	opts    Options
	highest int64
	shards  []*shard
	start   time.Time
	last    time.Time

	mu        sync.Mutex // guards the fields below and errSample
	interval  hists      // scratch: the interval being closed
	total     hists
	totalC    counters
	intervals []Interval
	errs      []string
	errSeen   map[string]bool
	finished  bool
	capped    bool // MaxIntervals reached: Cuts wait for Finish
}

// NewRecorder returns a Recorder whose first interval starts at start.
func NewRecorder(start time.Time, o Options) (*Recorder, error) {
	if o.Shards < 0 {
		return nil, fmt.Errorf("metrics: Shards must not be negative, got %d", o.Shards)
	}
	if o.Shards == 0 {
		o.Shards = min(2*runtime.GOMAXPROCS(0), 8)
	}
	if o.Highest < 0 {
		return nil, fmt.Errorf("metrics: Highest must not be negative, got %v", o.Highest)
	}
	if o.Highest == 0 {
		o.Highest = DefaultHighest
	}
	if o.Highest < time.Microsecond {
		return nil, fmt.Errorf("metrics: Highest must be at least 1µs, got %v", o.Highest)
	}
	if o.MaxIntervals < 0 {
		return nil, fmt.Errorf("metrics: MaxIntervals must not be negative, got %d", o.MaxIntervals)
	}
	if o.MaxIntervals == 0 {
		o.MaxIntervals = DefaultMaxIntervals
	}
	if o.SignificantFigures == 0 {
		o.SignificantFigures = DefaultSignificantFigures
	}
	if o.SignificantFigures < 1 || o.SignificantFigures > 5 {
		return nil, fmt.Errorf("metrics: SignificantFigures must be 1–5, got %d", o.SignificantFigures)
	}
	r := &Recorder{opts: o, highest: int64(o.Highest), start: start, last: start, errSeen: map[string]bool{}}
	r.shards = make([]*shard, o.Shards)
	for i := range r.shards {
		r.shards[i] = &shard{h: r.newHists()}
		r.shards[i].c.reset()
	}
	r.interval = r.newHists()
	r.total = r.newHists()
	r.totalC.reset()
	if o.Hlog != nil {
		o.Hlog.begin(start, o)
	}
	return r, nil
}

func (r *Recorder) newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, r.highest, r.opts.SignificantFigures)
}

func (r *Recorder) newHists() hists {
	h := hists{lat: r.newHist()}
	if r.opts.Uncorrected {
		h.unc = r.newHist()
	}
	if r.opts.Phases {
		h.conn, h.wait, h.read = r.newHist(), r.newHist(), r.newHist()
	}
	return h
}

// Shards returns the number of shards; Record's shard argument is taken
// modulo this number.
func (r *Recorder) Shards() int { return len(r.shards) }

// clamp bounds v to the trackable range and reports whether it was clamped.
func (r *Recorder) clamp(d time.Duration) (int64, bool) {
	v := int64(d)
	if v < 1 {
		return 1, false
	}
	if v > r.highest {
		return r.highest, true
	}
	return v, false
}

// Record adds one sample to shard (any int; a worker passes its own index
// so that workers spread over the shards). It is safe for concurrent use
// and does not allocate unless s.Err is a message not seen before.
func (r *Recorder) Record(shardIdx int, s *Sample) {
	sh := r.shards[uint(shardIdx)%uint(len(r.shards))]
	sh.mu.Lock()
	c := &sh.c
	if s.Outcome >= 0 && s.Outcome < numOutcomes {
		c.outcomes[s.Outcome]++
	} else {
		c.outcomes[Other]++
	}
	if s.Outcome != Interrupted {
		c.n++
	}
	if s.Late && s.Outcome != Interrupted {
		c.late++ // late is a share of the counted sends
	}
	c.bytesIn += s.BytesIn
	c.bytesOut += s.BytesOut
	if s.Outcome.HasLatency() {
		v, cl := r.clamp(s.Latency)
		if cl {
			c.clamped++
		}
		_ = sh.h.lat.RecordValue(v)
		c.sum += int64(s.Latency)
		if c.min < 0 || int64(s.Latency) < c.min {
			c.min = int64(s.Latency)
		}
		if int64(s.Latency) > c.max {
			c.max = int64(s.Latency)
		}
		if sh.h.unc != nil {
			u, _ := r.clamp(s.Uncorrected)
			_ = sh.h.unc.RecordValue(u)
			c.uncSum += int64(s.Uncorrected)
		}
		if sh.h.conn != nil {
			v, _ := r.clamp(s.Connect)
			_ = sh.h.conn.RecordValue(v)
			v, _ = r.clamp(s.Wait)
			_ = sh.h.wait.RecordValue(v)
			v, _ = r.clamp(s.Read)
			_ = sh.h.read.RecordValue(v)
		}
	}
	sh.mu.Unlock()
	if s.Err != nil && s.Outcome != Interrupted {
		r.noteErr(s.Err.Error())
	}
}

func (r *Recorder) noteErr(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) >= DefaultMaxErrorSamples || r.errSeen[msg] {
		return
	}
	r.errSeen[msg] = true
	r.errs = append(r.errs, msg)
}

func mergeInto(dst, src hists) {
	dst.lat.Merge(src.lat)
	if dst.unc != nil {
		dst.unc.Merge(src.unc)
	}
	if dst.conn != nil {
		dst.conn.Merge(src.conn)
		dst.wait.Merge(src.wait)
		dst.read.Merge(src.read)
	}
}

func (h hists) reset() {
	for _, x := range []*hdrhistogram.Histogram{h.lat, h.unc, h.conn, h.wait, h.read} {
		if x != nil {
			x.Reset()
		}
	}
}

// Cut closes the interval that ends at now: it collects every shard, adds
// a row to the series and merges the interval into the totals. A Cut at or
// before the previous one is ignored. gauge is a caller-defined level for
// the interval (active VUs, target rate); pass NaN for none.
func (r *Recorder) Cut(now time.Time, gauge float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.intervals) >= r.opts.MaxIntervals-1 {
		r.capped = true
		return
	}
	r.cutLocked(now, gauge, false)
}

// cutLocked closes the interval ending at now. On the final cut an empty
// tail shorter than half the previous interval is folded into that
// interval rather than becoming a row of its own (a run's last requests
// often finish just after a boundary, and a near-empty row is noise in a
// throughput chart); lengths still add up to the run.
func (r *Recorder) cutLocked(now time.Time, gauge float64, final bool) {
	if r.finished || !now.After(r.last) {
		return
	}
	r.interval.reset()
	var c counters
	c.reset()
	for _, sh := range r.shards {
		sh.mu.Lock()
		mergeInto(r.interval, sh.h)
		sh.h.reset()
		c.add(&sh.c)
		sh.c.reset()
		sh.mu.Unlock()
	}
	if n := len(r.intervals); final && n > 0 && c.n == 0 && c.outcomes[Interrupted] == 0 && now.Sub(r.last) < r.intervals[n-1].Length/2 {
		r.intervals[n-1].Length += now.Sub(r.last)
		r.last = now
		return
	}
	row := Interval{
		Start:    r.last.Sub(r.start),
		Length:   now.Sub(r.last),
		Gauge:    gauge,
		counters: c,
	}
	row.Latency = statsOf(r.interval.lat, &c, false)
	if r.interval.unc != nil {
		row.Uncorrected = statsOf(r.interval.unc, &c, true)
	}
	r.intervals = append(r.intervals, row)
	if r.opts.Hlog != nil {
		r.opts.Hlog.interval(&r.intervals[len(r.intervals)-1], r.interval)
	}
	mergeInto(r.total, r.interval)
	r.totalC.add(&c)
	r.last = now
}

// Interval is one row of the series.
type Interval struct {
	Start  time.Duration // from the run's start
	Length time.Duration
	Gauge  float64
	// Latency and Uncorrected summarise the samples completed in the interval.
	Latency, Uncorrected Stats
	counters
}

// Count is the number of samples completed in the interval.
func (iv Interval) Count() int64 { return iv.n }

// Errors is the number of errors in the interval.
func (iv Interval) Errors() int64 { return errorsOf(&iv.counters) }

func errorsOf(c *counters) int64 {
	var e int64
	for o := Outcome(0); o < numOutcomes; o++ {
		if o.IsError() {
			e += c.outcomes[o]
		}
	}
	return e
}

// Stats are latency statistics. Min, Max and Avg are exact; the
// percentiles come from the HDR histogram (within its precision).
type Stats struct {
	Count                                   int64
	Min, Avg, Med, P90, P95, P99, P999, Max time.Duration
	hist                                    *hdrhistogram.Histogram
}

func statsOf(h *hdrhistogram.Histogram, c *counters, unc bool) Stats {
	s := Stats{Count: h.TotalCount()}
	if s.Count == 0 {
		return s
	}
	if unc {
		s.Min = time.Duration(h.Min())
		s.Max = time.Duration(h.Max())
		s.Avg = time.Duration(c.uncSum / s.Count)
	} else {
		s.Min = time.Duration(c.min)
		s.Max = time.Duration(c.max)
		s.Avg = time.Duration(c.sum / s.Count)
	}
	s.Med = time.Duration(h.ValueAtQuantile(50))
	s.P90 = time.Duration(h.ValueAtQuantile(90))
	s.P95 = time.Duration(h.ValueAtQuantile(95))
	s.P99 = time.Duration(h.ValueAtQuantile(99))
	s.P999 = time.Duration(h.ValueAtQuantile(99.9))
	// HDR percentiles report the top of a bucket; never beyond the exact max.
	for _, p := range []*time.Duration{&s.Med, &s.P90, &s.P95, &s.P99, &s.P999} {
		if *p > s.Max {
			*p = s.Max
		}
		if *p < s.Min {
			*p = s.Min
		}
	}
	return s
}

// Finish closes the last interval at now and returns the result. labels
// are copied into it (strategy, workload, load, ...). Finish may be
// called once; Record calls after it are ignored by the result.
func (r *Recorder) Finish(now time.Time, gauge float64, labels map[string]string) *Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cutLocked(now, gauge, true)
	r.finished = true
	res := &Result{
		Labels:       map[string]string{},
		Start:        r.start,
		Elapsed:      r.last.Sub(r.start),
		Intervals:    r.intervals,
		ErrorSamples: append([]string(nil), r.errs...),
		c:            r.totalC,
		total:        r.total,
	}
	for k, v := range labels {
		res.Labels[k] = v
	}
	res.Latency = statsOf(r.total.lat, &r.totalC, false)
	res.Latency.hist = r.total.lat
	if r.total.unc != nil {
		res.Uncorrected = statsOf(r.total.unc, &r.totalC, true)
		res.Uncorrected.hist = r.total.unc
	}
	if r.capped {
		res.Warn(fmt.Sprintf("the series reached MaxIntervals=%d: its last interval runs to the end", r.opts.MaxIntervals))
	}
	if r.totalC.clamped > 0 {
		res.Warn(fmt.Sprintf("%d latencies above %v were recorded as %v", r.totalC.clamped, time.Duration(r.highest), time.Duration(r.highest)))
	}
	return res
}
