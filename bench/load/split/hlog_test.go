package split

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/conclab/conclab/bench/metrics"
)

// agent records samples into a recorder that logs, like one load agent.
// If all is not nil, the agent's latencies are merged into it.
func agent(t *testing.T, start time.Time, seed int64, n int, o metrics.Options, segment string, all ...*hdrhistogram.Histogram) (*metrics.Result, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	hw := NewHlogWriter(&buf, HlogHeader{Labels: map[string]string{metrics.LabelLoad: "seg " + segment, metrics.LabelStrategy: "sync"},
		GaugeName: "vus", Segment: segment, Whole: "whole", Uncorrected: o.Uncorrected, Phases: o.Phases})
	o.OnCut = func(c *metrics.Cut) {
		hw.Interval(c)
		for _, h := range all {
			h.Merge(c.Histograms.Latency)
		}
	}
	rec, err := metrics.NewRecorder(start, o)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(seed))
	for iv := 0; iv < 5; iv++ {
		for i := 0; i < n; i++ {
			s := metrics.Sample{Outcome: metrics.OK, Latency: time.Duration(rng.ExpFloat64() * float64(5*time.Millisecond)), BytesIn: 100, BytesOut: 50}
			s.Uncorrected = s.Latency / 2
			s.Late = i%7 == 0
			switch i % 50 {
			case 1:
				s.Outcome, s.Err = metrics.Status5xx, errors.New("503")
			case 2:
				s.Outcome, s.Latency, s.Err = metrics.Conn, 0, errors.New("connect: connection refused")
			case 3:
				s.Outcome = metrics.Interrupted
			}
			rec.Record(i, &s)
		}
		rec.Cut(start.Add(time.Duration(iv+1)*100*time.Millisecond), 2)
	}
	res := rec.Finish(start.Add(520*time.Millisecond), 2, map[string]string{metrics.LabelLoad: "seg " + segment})
	res.Dropped = seed
	res.Warn("agent " + segment + " warned")
	if err := hw.End(res); err != nil {
		t.Fatal(err)
	}
	return res, &buf
}

// One log merged alone gives back the run's own frames.
func TestHlogRoundTrip(t *testing.T) {
	start := time.Date(2026, 12, 1, 9, 0, 0, 123456789, time.UTC)
	res, buf := agent(t, start, 1, 400, metrics.Options{Uncorrected: true}, "")
	got, err := Merge(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	want, have := res.Summary(), got.Summary()
	for _, col := range []string{"count", "errors", "errors_5xx", "errors_conn", "interrupted", "dropped", "late",
		"min_ms", "avg_ms", "med_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "bytes_in", "bytes_out",
		"uncorrected_med_ms", "uncorrected_p99_ms", "elapsed_s"} {
		if w, h := want.Float(col, 0), have.Float(col, 0); w != h {
			t.Errorf("%s: merged %v; the run %v", col, h, w)
		}
	}
	if len(got.Intervals) != len(res.Intervals) {
		t.Fatalf("%d intervals; the run has %d", len(got.Intervals), len(res.Intervals))
	}
	for i := range got.Intervals {
		if g, w := got.Intervals[i], res.Intervals[i]; g.Count() != w.Count() || g.Latency.P99 != w.Latency.P99 || g.Gauge != w.Gauge {
			t.Errorf("interval %d: count %d p99 %v gauge %v; want %d %v %v", i, g.Count(), g.Latency.P99, g.Gauge, w.Count(), w.Latency.P99, w.Gauge)
		}
	}
	if got.GaugeName != "vus" || len(got.ErrorSamples) != 2 {
		t.Errorf("gauge %q errors %q", got.GaugeName, got.ErrorSamples)
	}
}

// Three agents' logs merge into exactly what one recorder of all their
// samples reports: counts summed, percentiles from one histogram.
func TestHlogMergeEqualsOneHistogram(t *testing.T) {
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var logs []io.Reader
	all := hdrhistogram.New(1, int64(metrics.DefaultHighest), metrics.DefaultSignificantFigures)
	var count, errs, late int64
	for i, seg := range []string{"0/3", "1/3", "2/3"} {
		res, buf := agent(t, start.Add(time.Duration(i)*time.Millisecond), int64(i+1), 300+i*50, metrics.Options{}, seg, all)
		logs = append(logs, buf)
		count += res.Count()
		errs += res.Errors()
		late += res.Late()
	}
	got, err := Merge(logs...)
	if err != nil {
		t.Fatal(err)
	}
	if got.Count() != count || got.Errors() != errs || got.Late() != late || got.Dropped != 1+2+3 {
		t.Errorf("count %d errors %d late %d dropped %d; want %d %d %d 6", got.Count(), got.Errors(), got.Late(), got.Dropped, count, errs, late)
	}
	for _, q := range []float64{50, 90, 99, 99.9} {
		if g, w := got.Percentile(q), time.Duration(all.ValueAtQuantile(q)); g != w {
			t.Errorf("p%v = %v; one histogram of all samples: %v", q, g, w)
		}
	}
	if got.Labels[metrics.LabelLoad] != "whole" || got.Labels[metrics.LabelStrategy] != "sync" {
		t.Errorf("labels %v; want load=whole strategy=sync", got.Labels)
	}
	if n := len(got.Warnings); n != 3 || !strings.HasPrefix(got.Warnings[0], "log 1: agent 0/3") {
		t.Errorf("warnings %q; want each agent's, prefixed", got.Warnings)
	}
	// The series: agents' intervals align (1 ms apart), gauges add up.
	var sum int64
	for _, iv := range got.Intervals {
		sum += iv.Count()
		if iv.Gauge != 6 {
			t.Errorf("interval at %v: gauge %v; want 3 agents × 2", iv.Start, iv.Gauge)
		}
	}
	if sum != count || len(got.Intervals) != 5 {
		t.Errorf("series: %d rows adding up to %d; want 5 rows, %d", len(got.Intervals), sum, count)
	}
}

// HdrHistogram's own Go reader reads the log: every interval histogram,
// with the right counts and tags.
func TestHlogReadByHdrHistogram(t *testing.T) {
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	res, buf := agent(t, start, 3, 200, metrics.Options{Uncorrected: true}, "")
	r := hdrhistogram.NewHistogramLogReader(bytes.NewReader(buf.Bytes()))
	byTag := map[string]int64{}
	n := 0
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		n++
		byTag[h.Tag()] += h.TotalCount()
		if n == 1 && h.StartTimeMs() != start.UnixMilli() {
			t.Errorf("first interval starts at %d ms; want %d", h.StartTimeMs(), start.UnixMilli())
		}
	}
	if byTag["latency"] != res.Latency.Count || byTag["uncorrected"] != res.Latency.Count || n != 2*len(res.Intervals) {
		t.Errorf("read %d histograms, counts %v; want %d and %d each", n, byTag, 2*len(res.Intervals), res.Latency.Count)
	}
}

// A log from another writer (no conclab comments, absolute timestamps,
// no tags) merges: its requests are the histogram counts.
func TestHlogForeignLog(t *testing.T) {
	h := hdrhistogram.New(1, 3600e9, 3)
	for i := 1; i <= 100; i++ {
		_ = h.RecordValue(int64(i) * 1e6)
	}
	payload, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	log := "#[StartTime: 1764579600.000 (seconds since epoch), Tue Dec 01 09:00:00 UTC 2026]\n" + hlogLegend + "\n" +
		"1764579600.000,1.000,100.000," + string(payload) + "\n" +
		"1764579601.000,1.000,100.000," + string(payload) + "\n"
	got, err := Merge(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if got.Count() != 200 || got.Errors() != 0 || len(got.Intervals) != 2 || got.Elapsed != 2*time.Second {
		t.Errorf("count %d errors %d intervals %d elapsed %v; want 200 0 2 2s", got.Count(), got.Errors(), len(got.Intervals), got.Elapsed)
	}
	if p := got.Percentile(50); p < 49*time.Millisecond || p > 51*time.Millisecond {
		t.Errorf("p50 %v; want 50ms", p)
	}
}

func TestHlogBadInput(t *testing.T) {
	for _, tc := range []struct{ name, log, want string }{
		{"empty", "", "not an HdrHistogram interval log"},
		{"text", "hello\n", "want StartTimestamp"},
		{"bad payload", "#[StartTime: 0 (s)]\nTag=latency,0.0,1.0,1.0,HISTnotbase64\n", "histogram"},
		{"bad header", hlogHeaderTag + "{nope]\n", "conclab header"},
		{"newer", hlogHeaderTag + `{"version":99}]` + "\n", "newer"},
		{"far apart", "#[StartTime: 1 (s)]\n#[conclab-interval {\"t_ns\":100000000000000,\"len_ns\":1000}]\n", "one run"},
	} {
		_, err := Merge(strings.NewReader(tc.log))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v; want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Merge(); err == nil {
		t.Errorf("no logs: no error")
	}
	if _, err := MergeFiles("/no/such.hlog"); err == nil {
		t.Errorf("missing file: no error")
	}
}

// A log cut short (no totals) still merges, with a warning.
func TestHlogIncomplete(t *testing.T) {
	_, buf := agent(t, time.Now(), 1, 50, metrics.Options{}, "")
	s := buf.String()
	s = s[:strings.LastIndex(s, hlogEndTag)]
	got, err := Merge(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "no closing totals") {
		t.Errorf("warnings %q", got.Warnings)
	}
}

func TestComplete(t *testing.T) {
	dir := t.TempDir()
	_, buf := agent(t, time.Now(), 1, 20, metrics.Options{}, "")
	full := buf.String()
	for _, tc := range []struct {
		name, content string
		want          bool
	}{
		{"done", full, true},
		{"running", full[:strings.LastIndex(full, hlogEndTag)], false},
		{"cut mid-line", full[:len(full)-5], false},
		{"empty", "", false},
	} {
		p := dir + "/" + tc.name + ".hlog"
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := Complete(p); err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if _, err := Complete(dir + "/missing.hlog"); err == nil {
		t.Errorf("missing file: no error")
	}
}
