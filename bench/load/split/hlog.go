package split

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/conclab/conclab/bench/metrics"
)

// HdrHistogram interval logs.
//
// The text format is the one HdrHistogram's HistogramLogWriter and
// HistogramLogReader (Java, Go, JavaScript, wrk2's tools) share:
//
//	#[Histogram log format version 1.3]
//	#[StartTime: 1764580000.123 (seconds since epoch), 2026-12-01T09:06:40.123Z]
//	#[BaseTime: 1764580000.123 (seconds since epoch)]
//	"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//	Tag=latency,0.000,0.100,5.123,HISTFAAAA...
//
// one line per interval and metric: the tag, the interval's start in
// seconds from BaseTime, its length, its largest value in milliseconds,
// and the interval histogram (values in nanoseconds) in HdrHistogram's V2
// compressed encoding, base64. The tags are HlogTags. Any HdrHistogram
// reader reads the histograms; readers skip lines that start with '#'.
//
// conclab adds such comment lines, so that merging loses nothing a single
// run reports: a header (#[conclab-hlog {...}]: labels, gauge, segment,
// the interval length),
// before each interval its exact counters (#[conclab-interval {...}]:
// requests by outcome, late sends, bytes, the exact latency sum, min and
// max), and at the end the run's totals (#[conclab-end {...}]: elapsed,
// dropped arrivals, warnings and error samples). Merge reads logs with or
// without them.

// HlogTags are the tags of the interval histograms in a log: the latency
// (from the intended start), the uncorrected latency (open models, from
// the send) and the phase timings (with load.Options.PhaseTimings).
var HlogTags = []string{"latency", "uncorrected", "connect", "wait", "read"}

const (
	hlogHeaderTag   = "#[conclab-hlog "
	hlogIntervalTag = "#[conclab-interval "
	hlogEndTag      = "#[conclab-end "
	hlogVersion     = 1
	hlogLegend      = `"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"`
)

// HlogHeader describes the run a log records.
type HlogHeader struct {
	// Labels are the result's labels (strategy, workload, load, ...).
	Labels map[string]string
	// GaugeName names the per-interval gauge ("vus", "target_rps"), if any.
	GaugeName string
	// Segment is the share of the whole run this agent ran ("0/3"), empty
	// for a whole run; Whole is then the whole model's load label, which a
	// merge of all the segments reports.
	Segment, Whole string
	// Tick is the length of the run's intervals (the series interval; the
	// first and last may be shorter). Merge lays its series on this
	// grid; 0 leaves it to the intervals' most common length.
	Tick time.Duration
	// Uncorrected and Phases say which histograms the intervals carry
	// besides the latency (the header records them; the intervals'
	// histograms are what they are).
	Uncorrected, Phases bool
}

type hlogHeaderJSON struct {
	Version     int               `json:"version"`
	Labels      map[string]string `json:"labels"`
	Gauge       string            `json:"gauge,omitempty"`
	Segment     string            `json:"segment,omitempty"`
	Whole       string            `json:"whole,omitempty"`
	Tick        int64             `json:"tick_ns,omitempty"`
	Uncorrected bool              `json:"uncorrected,omitempty"`
	Phases      bool              `json:"phases,omitempty"`
	Start       int64             `json:"start_unix_ns"`
}

type hlogIntervalJSON struct {
	Start    int64                      `json:"t_ns"`
	Length   int64                      `json:"len_ns"`
	Gauge    *float64                   `json:"gauge,omitempty"`
	N        int64                      `json:"n"`
	Outcomes [metrics.NumOutcomes]int64 `json:"outcomes"` // ok, 4xx, 5xx, timeout, conn, other, interrupted
	Late     int64                      `json:"late"`
	BytesIn  int64                      `json:"bytes_in"`
	BytesOut int64                      `json:"bytes_out"`
	Sum      int64                      `json:"sum_ns"`
	UncSum   int64                      `json:"unc_sum_ns"`
	Min      int64                      `json:"min_ns"`
	Max      int64                      `json:"max_ns"`
	Clamped  int64                      `json:"clamped"`
}

type hlogEndJSON struct {
	Elapsed     int64    `json:"elapsed_ns"`
	Dropped     int64    `json:"dropped"`
	Warnings    []string `json:"warnings"`
	Errors      []string `json:"errors"`
	Protocol    string   `json:"protocol,omitempty"`
	Connections int64    `json:"connections,omitempty"`
	Streams     int64    `json:"streams,omitempty"`
}

// HlogWriter writes one run as an HdrHistogram interval log, as the run
// goes: Begin writes the header, Interval one set of interval histograms
// (it has the signature of metrics.Options.OnCut and of
// load.Options.OnInterval, so either can feed it), End the run's totals.
// Run wires it to a load run (Agent.Log). Writes go straight to the
// underlying writer (wrap a file in a bufio.Writer and flush it after End
// if you like; a log on a volume is most useful written as the run goes).
// The first write error is kept and returned by End. It is safe for
// concurrent use.
type HlogWriter struct {
	w      io.Writer
	header HlogHeader
	mu     sync.Mutex
	err    error
	start  time.Time
	begun  bool
}

// NewHlogWriter returns a writer of one run's log to w.
func NewHlogWriter(w io.Writer, h HlogHeader) *HlogWriter {
	return &HlogWriter{w: w, header: h}
}

func (hw *HlogWriter) printf(format string, args ...any) {
	if hw.err != nil {
		return
	}
	if _, err := fmt.Fprintf(hw.w, format, args...); err != nil {
		hw.err = fmt.Errorf("split: hlog: %w", err)
	}
}

func (hw *HlogWriter) comment(prefix string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		if hw.err == nil {
			hw.err = fmt.Errorf("split: hlog: %w", err)
		}
		return
	}
	hw.printf("%s%s]\n", prefix, b)
}

func epochSecs(t time.Time) string {
	ns := t.UnixNano()
	return fmt.Sprintf("%d.%03d", ns/1e9, (ns%1e9)/1e6)
}

// Begin writes the header lines for a run that started at start; only
// the first call writes.
func (hw *HlogWriter) Begin(start time.Time) {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	hw.begin(start)
}

func (hw *HlogWriter) begin(start time.Time) {
	if hw.begun {
		return
	}
	hw.begun, hw.start = true, start
	labels := hw.header.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	hw.printf("#[Histogram log format version 1.3]\n")
	hw.comment(hlogHeaderTag, hlogHeaderJSON{Version: hlogVersion, Labels: labels, Gauge: hw.header.GaugeName,
		Segment: hw.header.Segment, Whole: hw.header.Whole, Tick: int64(hw.header.Tick), Uncorrected: hw.header.Uncorrected,
		Phases: hw.header.Phases, Start: start.UnixNano()})
	hw.printf("#[StartTime: %s (seconds since epoch), %s]\n", epochSecs(start), start.UTC().Format(time.RFC3339Nano))
	hw.printf("#[BaseTime: %s (seconds since epoch)]\n", epochSecs(start))
	hw.printf("%s\n", hlogLegend)
}

// Interval writes one interval: its counters, then a histogram per tag.
// Times in the histogram lines are relative to BaseTime, which is the
// start rounded to the millisecond as written.
func (hw *HlogWriter) Interval(c *metrics.Cut) {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	hw.begin(c.Start)
	iv := c.Interval
	n := &iv.Counts
	rec := hlogIntervalJSON{Start: int64(iv.Start), Length: int64(iv.Length), N: n.N, Outcomes: n.Outcomes,
		Late: n.Late, BytesIn: n.BytesIn, BytesOut: n.BytesOut, Sum: n.Sum, UncSum: n.UncSum,
		Min: n.Min, Max: n.Max, Clamped: n.Clamped}
	if g := iv.Gauge; g == g { // not NaN
		rec.Gauge = &g
	}
	hw.comment(hlogIntervalTag, rec)
	base := time.Duration(hw.start.UnixNano() % 1e6) // BaseTime is truncated to ms
	startS := (iv.Start + base).Seconds()
	h := c.Histograms
	for i, x := range []*hdrhistogram.Histogram{h.Latency, h.Uncorrected, h.Connect, h.Wait, h.Read} {
		if x == nil {
			continue
		}
		payload, err := x.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			if hw.err == nil {
				hw.err = fmt.Errorf("split: hlog: encode %s: %w", HlogTags[i], err)
			}
			return
		}
		hw.printf("Tag=%s,%.3f,%.3f,%.3f,%s\n", HlogTags[i], startS, iv.Length.Seconds(), float64(x.Max())/1e6, payload)
	}
}

// End writes the run's totals (elapsed, dropped arrivals, warnings, error
// samples, protocol and connections) after the last interval and returns
// the first error met while writing the log. Call it once, with the
// finished result.
func (hw *HlogWriter) End(res *metrics.Result) error {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	hw.begin(res.Start)
	hw.comment(hlogEndTag, hlogEndJSON{Elapsed: int64(res.Elapsed), Dropped: res.Dropped,
		Warnings: nonNilStrings(res.Warnings), Errors: nonNilStrings(res.ErrorSamples),
		Protocol: res.Protocol, Connections: res.Connections, Streams: res.Streams})
	return hw.err
}

// Err returns the first error met while writing, if any.
func (hw *HlogWriter) Err() error {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	return hw.err
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
