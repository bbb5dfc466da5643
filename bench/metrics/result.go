package metrics

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/conclab/conclab/bench/frame"
)

// Standard label names. Callers may add any others in Result.Labels.
const (
	LabelStrategy = "strategy"
	LabelWorkload = "workload"
	LabelLoad     = "load"
)

// DistributionPercentiles are the rows of Result.Distribution.
var DistributionPercentiles = []float64{0, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 95, 97.5, 99, 99.5, 99.9, 99.95, 99.99, 100}

// Result is the outcome of one run. Its frames carry Labels on every row,
// so results of several runs combine with frame.Concat (or Summaries).
// A Result is safe for concurrent reads once returned.
type Result struct {
	// Labels are copied into every frame row: strategy, workload, load and
	// any the caller adds. Set them before asking for frames.
	Labels map[string]string
	Start  time.Time
	// Elapsed is the time from the start to the end of the last interval.
	Elapsed time.Duration
	// Latency covers every response (2xx–5xx), measured from the intended
	// start. Uncorrected is set only for open models: the same responses
	// measured from the actual send.
	Latency, Uncorrected Stats
	// Intervals is the series, in order.
	Intervals []Interval
	// GaugeName names Interval.Gauge in the series frame ("vus",
	// "target_rps"); empty means no gauge column.
	GaugeName string
	// Dropped counts arrivals the generator could not start (open model:
	// every allowed connection busy).
	Dropped int64
	// Warnings are the generator's self-check findings: a non-empty list
	// means the figures may describe the generator rather than the target.
	Warnings []string
	// ErrorSamples holds a few distinct error messages, first seen first.
	ErrorSamples []string
	// Protocol is the HTTP protocol the requests used ("HTTP/1.1", "h2",
	// "h2c"); Connections is how many connections were opened, Streams
	// how many HTTP/2 streams (requests sent over them; 0 for HTTP/1.1).
	Protocol             string
	Connections, Streams int64
	// Thresholds are the outcomes of the thresholds checked
	// (CheckThresholds), in their order.
	Thresholds []ThresholdResult

	c     Counts
	total Histograms
}

// Warn appends a warning.
func (r *Result) Warn(msg string) { r.Warnings = append(r.Warnings, msg) }

// Count is the number of requests completed (any outcome but interrupted).
func (r *Result) Count() int64 { return r.c.N }

// Errors is the number of failed requests (4xx, 5xx, timeouts, connection
// and other errors).
func (r *Result) Errors() int64 { return r.c.Errors() }

// Outcomes returns how many requests ended with outcome o.
func (r *Result) Outcomes(o Outcome) int64 {
	if o < 0 || o >= NumOutcomes {
		return 0
	}
	return r.c.Outcomes[o]
}

// Late is the number of sends that started later than intended.
func (r *Result) Late() int64 { return r.c.Late }

// BytesIn and BytesOut are the bytes received and sent.
func (r *Result) BytesIn() int64  { return r.c.BytesIn }
func (r *Result) BytesOut() int64 { return r.c.BytesOut }

// RPS is completed requests per second of elapsed time.
func (r *Result) RPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.c.N) / r.Elapsed.Seconds()
}

// Percentile returns the latency at percentile p (0–100) over the whole run.
func (r *Result) Percentile(p float64) time.Duration {
	if r.total.Latency == nil || r.total.Latency.TotalCount() == 0 {
		return 0
	}
	return time.Duration(r.total.Latency.ValueAtQuantile(p))
}

// Phases returns connect, wait and read statistics, or ok=false when
// phase timings were not recorded.
func (r *Result) Phases() (connect, wait, read Stats, ok bool) {
	if r.total.Connect == nil {
		return Stats{}, Stats{}, Stats{}, false
	}
	return histStats(r.total.Connect), histStats(r.total.Wait), histStats(r.total.Read), true
}

func histStats(h *hdrhistogram.Histogram) Stats {
	s := Stats{Count: h.TotalCount()}
	if s.Count == 0 {
		return s
	}
	s.Min, s.Max = time.Duration(h.Min()), time.Duration(h.Max())
	s.Avg = time.Duration(h.Mean())
	s.Med = time.Duration(h.ValueAtQuantile(50))
	s.P90 = time.Duration(h.ValueAtQuantile(90))
	s.P95 = time.Duration(h.ValueAtQuantile(95))
	s.P99 = time.Duration(h.ValueAtQuantile(99))
	s.P999 = time.Duration(h.ValueAtQuantile(99.9))
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// labelFrame starts a frame whose first columns are the result's labels:
// strategy, workload, load, then the others sorted.
func (r *Result) labelFrame(name string) (*frame.Frame, frame.Row) {
	f := frame.New(name)
	row := frame.Row{}
	keys := []string{LabelStrategy, LabelWorkload, LabelLoad}
	var extra []string
	for k := range r.Labels {
		if k != LabelStrategy && k != LabelWorkload && k != LabelLoad {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range append(keys, extra...) {
		_ = f.AddColumn(k, frame.Label)
		row[k] = r.Labels[k]
	}
	return f, row
}

func addNumCols(f *frame.Frame, cols ...string) {
	for _, c := range cols {
		_ = f.AddColumn(c, frame.Number)
	}
}

func putStats(row frame.Row, prefix string, s Stats) {
	if s.Count == 0 {
		return // leave NaN: no latency to report
	}
	row[prefix+"min_ms"] = ms(s.Min)
	row[prefix+"avg_ms"] = ms(s.Avg)
	row[prefix+"med_ms"] = ms(s.Med)
	row[prefix+"p90_ms"] = ms(s.P90)
	row[prefix+"p95_ms"] = ms(s.P95)
	row[prefix+"p99_ms"] = ms(s.P99)
	row[prefix+"p999_ms"] = ms(s.P999)
	row[prefix+"max_ms"] = ms(s.Max)
}

var statCols = []string{"min_ms", "avg_ms", "med_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms"}

func prefixed(p string, cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = p + c
	}
	return out
}

// Summary returns a one-row frame: labels, count, errors (total and by
// kind), interrupted, dropped, late, elapsed_s, rps, the latency statistics
// in ms, bytes_in, bytes_out, connections (opened), protocol (a label,
// when known); when thresholds were checked, thresholds (how many) and
// thresholds_failed (how many failed: 0 is a pass); for open models the
// uncorrected statistics (uncorrected_*_ms); with phase timings
// connect_/wait_/read_ avg and p99.
func (r *Result) Summary() *frame.Frame {
	f, row := r.labelFrame("summary")
	addNumCols(f, "count", "errors", "errors_4xx", "errors_5xx", "errors_timeout", "errors_conn", "errors_other",
		"interrupted", "dropped", "late", "elapsed_s", "rps")
	addNumCols(f, statCols...)
	addNumCols(f, "bytes_in", "bytes_out", "connections")
	row["count"] = r.c.N
	row["errors"] = r.Errors()
	for _, o := range []Outcome{Status4xx, Status5xx, Timeout, Conn, Other} {
		row["errors_"+o.String()] = r.c.Outcomes[o]
	}
	row["interrupted"] = r.c.Outcomes[Interrupted]
	row["dropped"] = r.Dropped
	row["late"] = r.c.Late
	row["elapsed_s"] = r.Elapsed.Seconds()
	row["rps"] = r.RPS()
	putStats(row, "", r.Latency)
	row["bytes_in"] = r.c.BytesIn
	row["bytes_out"] = r.c.BytesOut
	row["connections"] = r.Connections
	if r.Protocol != "" {
		_ = f.AddColumn("protocol", frame.Label)
		row["protocol"] = r.Protocol
	}
	if len(r.Thresholds) > 0 {
		addNumCols(f, "thresholds", "thresholds_failed")
		row["thresholds"] = len(r.Thresholds)
		row["thresholds_failed"] = len(r.FailedThresholds())
	}
	if r.total.Uncorrected != nil {
		addNumCols(f, prefixed("uncorrected_", statCols)...)
		putStats(row, "uncorrected_", r.Uncorrected)
	}
	if c, w, rd, ok := r.Phases(); ok {
		for _, p := range []struct {
			name string
			s    Stats
		}{{"connect", c}, {"wait", w}, {"read", rd}} {
			addNumCols(f, p.name+"_avg_ms", p.name+"_p99_ms")
			if p.s.Count > 0 {
				row[p.name+"_avg_ms"] = ms(p.s.Avg)
				row[p.name+"_p99_ms"] = ms(p.s.P99)
			}
		}
	}
	f.MustAppend(row)
	return f
}

// Series returns one row per interval: labels, t_s (interval start in
// seconds from the run start), interval_s, count, errors, rps, the latency
// statistics of the requests completed in the interval, bytes_in,
// bytes_out, late, the gauge (GaugeName) when set, and for open models
// uncorrected_med_ms and uncorrected_p99_ms. The counts add up to Summary's.
func (r *Result) Series() *frame.Frame {
	f, base := r.labelFrame("series")
	addNumCols(f, "t_s", "interval_s")
	if r.GaugeName != "" {
		addNumCols(f, r.GaugeName)
	}
	addNumCols(f, "count", "errors", "rps")
	addNumCols(f, statCols...)
	addNumCols(f, "bytes_in", "bytes_out", "late")
	if r.total.Uncorrected != nil {
		addNumCols(f, "uncorrected_med_ms", "uncorrected_p99_ms")
	}
	for _, iv := range r.Intervals {
		row := frame.Row{}
		for k, v := range base {
			row[k] = v
		}
		row["t_s"] = iv.Start.Seconds()
		row["interval_s"] = iv.Length.Seconds()
		if r.GaugeName != "" {
			row[r.GaugeName] = iv.Gauge
		}
		row["count"] = iv.N
		row["errors"] = iv.Errors()
		if iv.Length > 0 {
			row["rps"] = float64(iv.N) / iv.Length.Seconds()
		}
		putStats(row, "", iv.Latency)
		row["bytes_in"] = iv.BytesIn
		row["bytes_out"] = iv.BytesOut
		row["late"] = iv.Late
		if r.total.Uncorrected != nil && iv.Uncorrected.Count > 0 {
			row["uncorrected_med_ms"] = ms(iv.Uncorrected.Med)
			row["uncorrected_p99_ms"] = ms(iv.Uncorrected.P99)
		}
		f.MustAppend(row)
	}
	return f
}

// Distribution returns the latency distribution: one row per percentile
// in DistributionPercentiles with labels, percentile (0–100), latency_ms
// and, for open models, uncorrected_ms. It is empty when no response was
// recorded.
func (r *Result) Distribution() *frame.Frame {
	f, base := r.labelFrame("distribution")
	addNumCols(f, "percentile", "latency_ms")
	if r.total.Uncorrected != nil {
		addNumCols(f, "uncorrected_ms")
	}
	if r.total.Latency == nil || r.total.Latency.TotalCount() == 0 {
		return f
	}
	for _, p := range DistributionPercentiles {
		row := frame.Row{}
		for k, v := range base {
			row[k] = v
		}
		row["percentile"] = p
		row["latency_ms"] = ms(clampTo(time.Duration(r.total.Latency.ValueAtQuantile(p)), r.Latency))
		if r.total.Uncorrected != nil {
			row["uncorrected_ms"] = ms(clampTo(time.Duration(r.total.Uncorrected.ValueAtQuantile(p)), r.Uncorrected))
		}
		f.MustAppend(row)
	}
	return f
}

func clampTo(d time.Duration, s Stats) time.Duration {
	if d > s.Max {
		return s.Max
	}
	if d < s.Min {
		return s.Min
	}
	return d
}

// Summaries concatenates the summary frames of several results (labels
// tell them apart). Nil results are skipped.
func Summaries(results ...*Result) *frame.Frame {
	fs := make([]*frame.Frame, 0, len(results))
	for _, r := range results {
		if r != nil {
			fs = append(fs, r.Summary())
		}
	}
	f, err := frame.Concat("summary", fs...)
	if err != nil { // cannot happen: every summary has the same kinds
		panic(err)
	}
	return f
}

func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Millisecond:
		return fmt.Sprintf("%.2fµs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.2fms", ms(d))
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}

func statsLine(s Stats) string {
	return fmt.Sprintf("avg=%s min=%s med=%s max=%s p(90)=%s p(95)=%s p(99)=%s",
		fmtDur(s.Avg), fmtDur(s.Min), fmtDur(s.Med), fmtDur(s.Max), fmtDur(s.P90), fmtDur(s.P95), fmtDur(s.P99))
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// String is a k6-style text summary.
func (r *Result) String() string {
	var b strings.Builder
	pad := func(name string) string { return "     " + name + strings.Repeat(".", max(2, 28-len(name))) + ": " }
	if l := r.Labels[LabelLoad]; l != "" {
		fmt.Fprintf(&b, "     load: %s\n", l)
	}
	for _, k := range []string{LabelStrategy, LabelWorkload} {
		if v := r.Labels[k]; v != "" {
			fmt.Fprintf(&b, "     %s: %s\n", k, v)
		}
	}
	if r.Protocol != "" {
		fmt.Fprintf(&b, "     protocol: %s · %d connections", r.Protocol, r.Connections)
		if r.Streams > 0 {
			fmt.Fprintf(&b, " · %d streams", r.Streams)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%s%s\n", pad("http_req_duration"), statsLine(r.Latency))
	if r.total.Uncorrected != nil {
		fmt.Fprintf(&b, "%s%s\n", pad("  uncorrected (from send)"), statsLine(r.Uncorrected))
	}
	if c, w, rd, ok := r.Phases(); ok {
		fmt.Fprintf(&b, "%savg=%s p(99)=%s\n", pad("http_req_connecting"), fmtDur(c.Avg), fmtDur(c.P99))
		fmt.Fprintf(&b, "%savg=%s p(99)=%s\n", pad("http_req_waiting"), fmtDur(w.Avg), fmtDur(w.P99))
		fmt.Fprintf(&b, "%savg=%s p(99)=%s\n", pad("http_req_receiving"), fmtDur(rd.Avg), fmtDur(rd.P99))
	}
	failed := 0.0
	if r.c.N > 0 {
		failed = 100 * float64(r.Errors()) / float64(r.c.N)
	}
	fmt.Fprintf(&b, "%s%.2f%% %d out of %d\n", pad("http_req_failed"), failed, r.Errors(), r.c.N)
	if e := r.Errors(); e > 0 {
		var kinds []string
		for _, o := range []Outcome{Status4xx, Status5xx, Timeout, Conn, Other} {
			if n := r.c.Outcomes[o]; n > 0 {
				kinds = append(kinds, fmt.Sprintf("%s=%d", o, n))
			}
		}
		fmt.Fprintf(&b, "%s%s\n", pad("  by kind"), strings.Join(kinds, " "))
	}
	fmt.Fprintf(&b, "%s%d %.1f/s\n", pad("http_reqs"), r.c.N, r.RPS())
	if n := r.c.Outcomes[Interrupted]; n > 0 {
		fmt.Fprintf(&b, "%s%d\n", pad("interrupted"), n)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "%s%d\n", pad("dropped_iterations"), r.Dropped)
	}
	fmt.Fprintf(&b, "%s%s %s/s\n", pad("data_received"), humanBytes(r.c.BytesIn), humanBytes(int64(float64(r.c.BytesIn)/math.Max(r.Elapsed.Seconds(), 1e-9))))
	fmt.Fprintf(&b, "%s%s %s/s\n", pad("data_sent"), humanBytes(r.c.BytesOut), humanBytes(int64(float64(r.c.BytesOut)/math.Max(r.Elapsed.Seconds(), 1e-9))))
	fmt.Fprintf(&b, "%s%s\n", pad("elapsed"), fmtDur(r.Elapsed))
	if len(r.Thresholds) > 0 {
		verdict := "all passed"
		if n := len(r.FailedThresholds()); n > 0 {
			verdict = fmt.Sprintf("%d of %d FAILED", n, len(r.Thresholds))
		}
		fmt.Fprintf(&b, "%s%s\n", pad("thresholds"), verdict)
		for _, tr := range r.Thresholds {
			mark := "✓"
			if !tr.Passed {
				mark = "✗"
			}
			note := ""
			if tr.Aborted {
				note = "  (stopped the run: certain to fail)"
			}
			fmt.Fprintf(&b, "       %s %-24s %s%s\n", mark, tr.Threshold.String(), tr.Measured(), note)
		}
	}
	for _, e := range r.ErrorSamples {
		fmt.Fprintf(&b, "\n     error: %s", e)
	}
	if len(r.ErrorSamples) > 0 {
		b.WriteString("\n")
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "\n     WARN %s", w)
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// HTML renders the summary table followed by any warnings and error
// samples, so a Result that ends a notebook cell shows itself.
func (r *Result) HTML() string {
	var b strings.Builder
	b.WriteString(r.Summary().HTML())
	for _, e := range r.ErrorSamples {
		fmt.Fprintf(&b, "<p><b>error:</b> %s</p>", html.EscapeString(e))
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "<p><b>warning:</b> %s</p>", html.EscapeString(w))
	}
	return b.String()
}

// ThresholdFrame returns the checked thresholds, one row each: labels,
// threshold (as written), value (in the unit shown by measured: ms for
// latencies, percent for error rates, else a count or requests per
// second; NaN when there was nothing to measure), measured (the value as
// text) and passed (1 or 0). It is empty when none was checked.
func (r *Result) ThresholdFrame() *frame.Frame {
	f, base := r.labelFrame("thresholds")
	_ = f.AddColumn("threshold", frame.Label)
	addNumCols(f, "value")
	_ = f.AddColumn("measured", frame.Label)
	addNumCols(f, "passed")
	for _, tr := range r.Thresholds {
		row := frame.Row{}
		for k, v := range base {
			row[k] = v
		}
		row["threshold"] = tr.Threshold.String()
		v := tr.Value
		switch {
		case tr.Threshold.stat.latency():
			v /= float64(time.Millisecond)
		case tr.Threshold.stat == statErrorRate:
			v *= 100
		}
		row["value"] = v
		row["measured"] = tr.Measured()
		row["passed"] = 0
		if tr.Passed {
			row["passed"] = 1
		}
		f.MustAppend(row)
	}
	return f
}
