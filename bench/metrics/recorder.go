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
	// NumOutcomes is the number of outcomes (the length of Counts.Outcomes).
	NumOutcomes
)

var outcomeNames = [NumOutcomes]string{"ok", "4xx", "5xx", "timeout", "conn", "other", "interrupted"}

// String returns the outcome's short name, used in column names (errors_4xx).
func (o Outcome) String() string {
	if o < 0 || o >= NumOutcomes {
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
	// OnCut, when set, is called each time an interval closes (Cut, and
	// Finish's last cut) with the interval, its histograms and the run so
	// far; see Cut. It runs while the Recorder is locked for cutting (Record
	// goes on meanwhile), so it must be quick and must not call the
	// Recorder's Cut or Finish.
	OnCut func(*Cut)
}

// Histograms are the HDR histograms of one interval or of a whole run: the
// latency (from the intended start), the uncorrected latency (from the
// send; with Options.Uncorrected) and the phase timings (with
// Options.Phases). Values are nanoseconds. A nil field is not kept.
type Histograms struct {
	Latency, Uncorrected *hdrhistogram.Histogram
	Connect, Wait, Read  *hdrhistogram.Histogram
}

// Counts are the exact numbers kept beside the histograms: requests by
// outcome, late sends, bytes, and the latency sum, minimum and maximum
// of the requests with a latency (Min < 0 when there is none).
type Counts struct {
	N        int64 // samples (every outcome but Interrupted)
	Outcomes [NumOutcomes]int64
	Late     int64
	BytesIn  int64
	BytesOut int64
	Sum      int64 // exact latency sum (ns) of samples with latency
	UncSum   int64 // the same of the uncorrected latencies
	Min, Max int64 // exact, ns; Min < 0 means unset
	Clamped  int64 // latencies above the histograms' range
}

// Errors is the number of errors counted.
func (c Counts) Errors() int64 {
	var e int64
	for o := Outcome(0); o < NumOutcomes; o++ {
		if o.IsError() {
			e += c.Outcomes[o]
		}
	}
	return e
}

func (c *Counts) reset() { *c = Counts{Min: -1} }

// Add adds o to c: sums, the smaller minimum, the larger maximum.
func (c *Counts) Add(o *Counts) {
	c.N += o.N
	for i := range c.Outcomes {
		c.Outcomes[i] += o.Outcomes[i]
	}
	c.Late += o.Late
	c.BytesIn += o.BytesIn
	c.BytesOut += o.BytesOut
	c.Sum += o.Sum
	c.UncSum += o.UncSum
	if o.Min >= 0 && (c.Min < 0 || o.Min < c.Min) {
		c.Min = o.Min
	}
	if o.Max > c.Max {
		c.Max = o.Max
	}
	c.Clamped += o.Clamped
}

type shard struct {
	mu sync.Mutex
	h  Histograms
	c  Counts
	_  [64]byte // keep shards' locks on separate cache lines
}

// Recorder aggregates Samples into interval and total histograms. Record
// and Add are safe for concurrent use; Cut and Finish must be called from
// one goroutine at a time (they may run concurrently with Record).
type Recorder struct {
	opts    Options
	highest int64
	shards  []*shard
	start   time.Time
	last    time.Time

	mu        sync.Mutex // guards the fields below and errSample
	interval  Histograms // scratch: the interval being closed
	total     Histograms
	totalC    Counts
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
	return r, nil
}

func (r *Recorder) newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, r.highest, r.opts.SignificantFigures)
}

func (r *Recorder) newHists() Histograms {
	h := Histograms{Latency: r.newHist()}
	if r.opts.Uncorrected {
		h.Uncorrected = r.newHist()
	}
	if r.opts.Phases {
		h.Connect, h.Wait, h.Read = r.newHist(), r.newHist(), r.newHist()
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
	if s.Outcome >= 0 && s.Outcome < NumOutcomes {
		c.Outcomes[s.Outcome]++
	} else {
		c.Outcomes[Other]++
	}
	if s.Outcome != Interrupted {
		c.N++
	}
	if s.Late && s.Outcome != Interrupted {
		c.Late++ // late is a share of the counted sends
	}
	c.BytesIn += s.BytesIn
	c.BytesOut += s.BytesOut
	if s.Outcome.HasLatency() {
		v, cl := r.clamp(s.Latency)
		if cl {
			c.Clamped++
		}
		_ = sh.h.Latency.RecordValue(v)
		c.Sum += int64(s.Latency)
		if c.Min < 0 || int64(s.Latency) < c.Min {
			c.Min = int64(s.Latency)
		}
		if int64(s.Latency) > c.Max {
			c.Max = int64(s.Latency)
		}
		if sh.h.Uncorrected != nil {
			u, _ := r.clamp(s.Uncorrected)
			_ = sh.h.Uncorrected.RecordValue(u)
			c.UncSum += int64(s.Uncorrected)
		}
		if sh.h.Connect != nil {
			v, _ := r.clamp(s.Connect)
			_ = sh.h.Connect.RecordValue(v)
			v, _ = r.clamp(s.Wait)
			_ = sh.h.Wait.RecordValue(v)
			v, _ = r.clamp(s.Read)
			_ = sh.h.Read.RecordValue(v)
		}
	}
	sh.mu.Unlock()
	if s.Err != nil && s.Outcome != Interrupted {
		r.noteErr(s.Err.Error())
	}
}

// Add adds an interval's worth of already aggregated requests — their
// counts and histograms, e.g. read back from a log — to the interval
// being recorded, as if each had been Recorded. Histograms the Recorder
// does not keep are ignored; those it keeps and h lacks add nothing. It
// is an error when a histogram holds values beyond the Recorder's range:
// they are lost, and the Recorder should be discarded.
func (r *Recorder) Add(c Counts, h Histograms) error {
	sh := r.shards[0]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.c.Add(&c)
	for _, p := range []struct {
		name     string
		dst, src *hdrhistogram.Histogram
	}{{"latency", sh.h.Latency, h.Latency}, {"uncorrected", sh.h.Uncorrected, h.Uncorrected},
		{"connect", sh.h.Connect, h.Connect}, {"wait", sh.h.Wait, h.Wait}, {"read", sh.h.Read, h.Read}} {
		if p.dst == nil || p.src == nil {
			continue
		}
		if dropped := p.dst.Merge(p.src); dropped > 0 {
			return fmt.Errorf("metrics: %d %s values beyond the recorder's range (%v)", dropped, p.name, time.Duration(p.dst.HighestTrackableValue()))
		}
	}
	return nil
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

func mergeInto(dst, src Histograms) {
	dst.Latency.Merge(src.Latency)
	if dst.Uncorrected != nil {
		dst.Uncorrected.Merge(src.Uncorrected)
	}
	if dst.Connect != nil {
		dst.Connect.Merge(src.Connect)
		dst.Wait.Merge(src.Wait)
		dst.Read.Merge(src.Read)
	}
}

func (h Histograms) reset() {
	for _, x := range []*hdrhistogram.Histogram{h.Latency, h.Uncorrected, h.Connect, h.Wait, h.Read} {
		if x != nil && x.TotalCount() > 0 { // an empty one is all zeros already: no 270 KB to clear
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

// Cut is what Options.OnCut receives when an interval closes. It is valid
// only during the call: the histograms are reused afterwards.
type Cut struct {
	// Start is the Recorder's start; the interval's Start is from it.
	Start time.Time
	// Interval is the row just added to the series.
	Interval *Interval
	// Histograms are the interval's.
	Histograms Histograms
	// Total counts the run so far, this interval included.
	Total Counts
	// Final is set on Finish's last cut.
	Final bool

	total *hdrhistogram.Histogram // the run so far's latencies
}

// TotalPercentile is the latency at percentile p (0–100) of the run so
// far, within the exact minimum and maximum; 0 when there is none.
func (c *Cut) TotalPercentile(p float64) time.Duration {
	if c.total == nil || c.total.TotalCount() == 0 {
		return 0
	}
	return min(max(time.Duration(c.total.ValueAtQuantile(p)), time.Duration(c.Total.Min)), time.Duration(c.Total.Max))
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
	var c Counts
	c.reset()
	for _, sh := range r.shards {
		sh.mu.Lock()
		mergeInto(r.interval, sh.h)
		sh.h.reset()
		c.Add(&sh.c)
		sh.c.reset()
		sh.mu.Unlock()
	}
	if n := len(r.intervals); final && n > 0 && c.N == 0 && c.Outcomes[Interrupted] == 0 && now.Sub(r.last) < r.intervals[n-1].Length/2 {
		r.intervals[n-1].Length += now.Sub(r.last)
		r.last = now
		return
	}
	row := Interval{
		Start:  r.last.Sub(r.start),
		Length: now.Sub(r.last),
		Gauge:  gauge,
		Counts: c,
	}
	row.Latency = statsOf(r.interval.Latency, &c, false)
	if r.interval.Uncorrected != nil {
		row.Uncorrected = statsOf(r.interval.Uncorrected, &c, true)
	}
	r.intervals = append(r.intervals, row)
	mergeInto(r.total, r.interval)
	r.totalC.Add(&c)
	r.last = now
	if r.opts.OnCut != nil {
		r.opts.OnCut(&Cut{Start: r.start, Interval: &r.intervals[len(r.intervals)-1], Histograms: r.interval,
			Total: r.totalC, Final: final, total: r.total.Latency})
	}
}

// Interval is one row of the series.
type Interval struct {
	Start  time.Duration // from the run's start
	Length time.Duration
	Gauge  float64
	// Latency and Uncorrected summarise the samples completed in the interval.
	Latency, Uncorrected Stats
	// Counts are the interval's exact counts.
	Counts
}

// Count is the number of samples completed in the interval.
func (iv Interval) Count() int64 { return iv.N }

// Stats are latency statistics. Min, Max and Avg are exact; the
// percentiles come from the HDR histogram (within its precision).
type Stats struct {
	Count                                   int64
	Min, Avg, Med, P90, P95, P99, P999, Max time.Duration
	hist                                    *hdrhistogram.Histogram
}

func statsOf(h *hdrhistogram.Histogram, c *Counts, unc bool) Stats {
	s := Stats{Count: h.TotalCount()}
	if s.Count == 0 {
		return s
	}
	if unc {
		s.Min = time.Duration(h.Min())
		s.Max = time.Duration(h.Max())
		s.Avg = time.Duration(c.UncSum / s.Count)
	} else {
		s.Min = time.Duration(c.Min)
		s.Max = time.Duration(c.Max)
		s.Avg = time.Duration(c.Sum / s.Count)
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
	res.Latency = statsOf(r.total.Latency, &r.totalC, false)
	res.Latency.hist = r.total.Latency
	if r.total.Uncorrected != nil {
		res.Uncorrected = statsOf(r.total.Uncorrected, &r.totalC, true)
		res.Uncorrected.hist = r.total.Uncorrected
	}
	if r.capped {
		res.Warn(fmt.Sprintf("the series reached MaxIntervals=%d: its last interval runs to the end", r.opts.MaxIntervals))
	}
	if r.totalC.Clamped > 0 {
		res.Warn(fmt.Sprintf("%d latencies above %v were recorded as %v", r.totalC.Clamped, time.Duration(r.highest), time.Duration(r.highest)))
	}
	return res
}
