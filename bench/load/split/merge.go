package split

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/conclab/conclab/bench/metrics"
)

// MaxHlogLine bounds one line of a log read by Merge (a compressed
// histogram is a few hundred bytes to a few kB).
const MaxHlogLine = 4 << 20

// hlogFile is one parsed log.
type hlogFile struct {
	name      string
	start     time.Time // StartTime (absolute)
	header    *hlogHeaderJSON
	end       *hlogEndJSON
	intervals []*hlogInterval
}

// hlogInterval is one interval of a log: its counters (exact when the log
// has conclab's comments, else derived from the latency histogram) and
// its compressed histograms by tag.
type hlogInterval struct {
	start, length time.Duration // from the file's start
	gauge         float64
	c             metrics.Counts
	exact         bool
	payloads      map[string]string
}

// MergeFiles reads the interval logs at paths and merges them (see
// Merge).
func MergeFiles(paths ...string) (*metrics.Result, error) {
	files := make([]*hlogFile, 0, len(paths))
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("split: %w", err)
		}
		lf, err := parseHlog(p, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		files = append(files, lf)
	}
	return mergeHlogFiles(files)
}

// Merge combines HdrHistogram interval logs — written by HlogWriter
// (conclab load --hlog) on one or many machines, or by any HdrHistogram
// log writer — into one Result whose Summary, Series and Distribution
// frames have the columns a single run's have:
//
//   - counts, errors by kind, interrupted, late, dropped, bytes and the
//     exact latency sum, min and max are the sums (min of mins, max of
//     maxes) of the logs' own counters, so they are exact;
//   - percentiles come from the merged histogram of every interval of
//     every log (the HDR histograms add losslessly);
//   - the series has one row per tick on a grid from the earliest start
//     (the tick is the longest the writers recorded in their headers,
//     HlogHeader.Tick, else the most common interval length): each log
//     interval goes to the row its midpoint falls in, and the gauge of a
//     row is the sum over logs (VUs or target rate of all agents
//     together) of the gauge of each log's interval covering the row
//     most;
//   - elapsed runs from the earliest start to the latest end;
//   - labels that agree across logs are kept; for segments of one run the
//     load label is the whole model's; warnings and error samples are
//     kept, each warning prefixed by its log's name.
//
// A log from another HdrHistogram writer has no conclab counters: its
// requests are the latency histogram's count, all successful. A log
// without its closing totals (the agent stopped early) still merges,
// with a warning.
func Merge(logs ...io.Reader) (*metrics.Result, error) {
	files := make([]*hlogFile, 0, len(logs))
	for i, r := range logs {
		lf, err := parseHlog(fmt.Sprintf("log %d", i+1), r)
		if err != nil {
			return nil, err
		}
		files = append(files, lf)
	}
	return mergeHlogFiles(files)
}

func parseHlog(name string, r io.Reader) (*hlogFile, error) {
	f := &hlogFile{name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxHlogLine)
	var startSec, baseSec float64
	var haveStart, haveBase bool
	var cur *hlogInterval // the interval conclab's comment opened
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		bad := func(err error) error { return fmt.Errorf("split: %s line %d: %w", name, lineNo, err) }
		switch {
		case line == "":
		case strings.HasPrefix(line, hlogHeaderTag):
			var h hlogHeaderJSON
			if err := json.Unmarshal([]byte(strings.TrimSuffix(line[len(hlogHeaderTag):], "]")), &h); err != nil {
				return nil, bad(fmt.Errorf("conclab header: %w", err))
			}
			if h.Version > hlogVersion {
				return nil, bad(fmt.Errorf("conclab header version %d is newer than this reader's (%d)", h.Version, hlogVersion))
			}
			f.header = &h
		case strings.HasPrefix(line, hlogIntervalTag):
			var iv hlogIntervalJSON
			if err := json.Unmarshal([]byte(strings.TrimSuffix(line[len(hlogIntervalTag):], "]")), &iv); err != nil {
				return nil, bad(fmt.Errorf("conclab interval: %w", err))
			}
			if err := iv.check(); err != nil {
				return nil, bad(fmt.Errorf("conclab interval: %w", err))
			}
			cur = &hlogInterval{start: time.Duration(iv.Start), length: time.Duration(iv.Length), gauge: math.NaN(),
				exact: true, payloads: map[string]string{}}
			if iv.Gauge != nil {
				cur.gauge = *iv.Gauge
			}
			cur.c = metrics.Counts{N: iv.N, Outcomes: iv.Outcomes, Late: iv.Late, BytesIn: iv.BytesIn, BytesOut: iv.BytesOut,
				Sum: iv.Sum, UncSum: iv.UncSum, Min: iv.Min, Max: iv.Max, Clamped: iv.Clamped}
			f.intervals = append(f.intervals, cur)
		case strings.HasPrefix(line, hlogEndTag):
			var e hlogEndJSON
			if err := json.Unmarshal([]byte(strings.TrimSuffix(line[len(hlogEndTag):], "]")), &e); err != nil {
				return nil, bad(fmt.Errorf("conclab totals: %w", err))
			}
			f.end = &e
		case strings.HasPrefix(line, "#[StartTime:"):
			v, err := leadingFloat(line[len("#[StartTime:"):])
			if err != nil {
				return nil, bad(fmt.Errorf("StartTime: %w", err))
			}
			if v > maxEpochSecs {
				return nil, bad(fmt.Errorf("StartTime %v s is out of range", v))
			}
			startSec, haveStart = v, true
		case strings.HasPrefix(line, "#[BaseTime:"):
			v, err := leadingFloat(line[len("#[BaseTime:"):])
			if err != nil {
				return nil, bad(fmt.Errorf("BaseTime: %w", err))
			}
			if v > maxEpochSecs {
				return nil, bad(fmt.Errorf("BaseTime %v s is out of range", v))
			}
			baseSec, haveBase = v, true
		case strings.HasPrefix(line, "#"), strings.HasPrefix(line, `"StartTimestamp"`):
		default:
			tag := ""
			rest := line
			if strings.HasPrefix(rest, "Tag=") {
				t, after, ok := strings.Cut(rest[len("Tag="):], ",")
				if !ok {
					return nil, bad(fmt.Errorf("tag without fields"))
				}
				tag, rest = t, after
			}
			fields := strings.SplitN(rest, ",", 4)
			if len(fields) != 4 {
				return nil, bad(fmt.Errorf("want StartTimestamp,Interval_Length,Interval_Max,Histogram, got %q", truncateLine(line)))
			}
			ts, err1 := strconv.ParseFloat(fields[0], 64)
			ln, err2 := strconv.ParseFloat(fields[1], 64)
			if err1 != nil || err2 != nil || !(ts >= 0 && ts <= maxEpochSecs) || !(ln >= 0 && ln <= maxEpochSecs) {
				return nil, bad(fmt.Errorf("bad interval times in %q", truncateLine(line)))
			}
			if !haveStart {
				startSec, haveStart = ts, true
			}
			if !haveBase { // HdrHistogram's rule: relative stamps are far before StartTime
				if ts < startSec-365*24*3600 {
					baseSec = startSec
				}
				haveBase = true
			}
			if tag == "" {
				tag = "latency"
			}
			abs := baseSec + ts
			off := time.Duration(math.Round((abs - startSec) * float64(time.Second)))
			if off < 0 && !cur.isExact() {
				if off < -time.Millisecond { // more than the stamps' rounding
					return nil, bad(fmt.Errorf("interval starts %v before the log's StartTime", (-off).Round(time.Millisecond)))
				}
				off = 0
			}
			if cur == nil || (!cur.exact && (cur.start != off || cur.payloads[tag] != "")) {
				cur = &hlogInterval{start: off, length: time.Duration(math.Round(ln * float64(time.Second))), gauge: math.NaN(), payloads: map[string]string{}}
				cur.c = metrics.Counts{Min: -1}
				f.intervals = append(f.intervals, cur)
			}
			if cur.payloads[tag] != "" {
				return nil, bad(fmt.Errorf("two %q histograms for one interval", tag))
			}
			cur.payloads[tag] = fields[3]
			h, err := decodeHist(fields[3])
			if err != nil {
				return nil, bad(fmt.Errorf("%s histogram: %w", tag, err))
			}
			if !cur.exact && tag == "latency" {
				n := h.TotalCount()
				cur.c.N, cur.c.Outcomes[metrics.OK] = n, n
				if n > 0 {
					cur.c.Sum = int64(h.Mean() * float64(n))
					cur.c.Min, cur.c.Max = h.Min(), h.Max()
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("split: %s: %w", name, err)
	}
	if !haveStart && f.header == nil {
		return nil, fmt.Errorf("split: %s is not an HdrHistogram interval log (no StartTime and no intervals)", name)
	}
	if f.header != nil && f.header.Start != 0 {
		f.start = time.Unix(0, f.header.Start)
	} else {
		f.start = time.Unix(0, int64(startSec*1e9))
	}
	return f, nil
}

// maxEpochSecs bounds the times a log states, in seconds (year 2255):
// beyond it a time.Duration or time.Time would overflow.
const maxEpochSecs = 9e9

func (cur *hlogInterval) isExact() bool { return cur != nil && cur.exact }

// check rejects a conclab interval comment that no writer writes: negative
// times or counts, or times beyond a run's range.
func (iv *hlogIntervalJSON) check() error {
	const maxNs = int64(maxEpochSecs * 1e9)
	switch {
	case iv.Start < 0:
		return fmt.Errorf("t_ns %d: the interval starts before the log's start", iv.Start)
	case iv.Start > maxNs || iv.Length < 0 || iv.Length > maxNs:
		return fmt.Errorf("t_ns %d, len_ns %d out of range", iv.Start, iv.Length)
	}
	for _, v := range append([]int64{iv.N, iv.Late, iv.BytesIn, iv.BytesOut, iv.Clamped}, iv.Outcomes[:]...) {
		if v < 0 || v > maxHistCount {
			return fmt.Errorf("count %d out of range 0..%d", v, int64(maxHistCount))
		}
	}
	return nil
}

func leadingFloat(s string) (float64, error) {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && (s[end] == '.' || (s[end] >= '0' && s[end] <= '9')) {
		end++
	}
	return strconv.ParseFloat(s[:end], 64)
}

func truncateLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// gridStep is the merged series' interval: the longest tick the writers
// recorded (a shorter one's intervals then fall several to a row, never
// leaving rows empty between them), else the most common interval length
// over all logs (ties: the longer), so that a short first or last
// interval does not set the grid; 1 s when there are no intervals.
func gridStep(files []*hlogFile) time.Duration {
	var tick time.Duration
	lengths := map[time.Duration]int{}
	for _, f := range files {
		if f.header != nil {
			tick = max(tick, time.Duration(f.header.Tick))
		}
		for _, iv := range f.intervals {
			if iv.length > 0 {
				lengths[iv.length]++
			}
		}
	}
	if tick > 0 {
		return tick
	}
	step, most := time.Second, 0
	for l, n := range lengths {
		if n > most || (n == most && l > step) {
			step, most = l, n
		}
	}
	return step
}

// hlogBucket is one row of the merged series.
type hlogBucket struct {
	intervals []*hlogInterval
	gauges    map[int]gaugeSpan // per file: the gauge of its interval that covers the row most
}

type gaugeSpan struct {
	gauge   float64
	overlap time.Duration
}

func mergeHlogFiles(files []*hlogFile) (*metrics.Result, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("split: no logs to merge")
	}
	// The grid: from the earliest start, in steps of gridStep.
	origin := files[0].start
	step := gridStep(files)
	uncorrected, phases := false, true
	for _, f := range files {
		if f.start.Before(origin) {
			origin = f.start
		}
		if f.header != nil {
			uncorrected = uncorrected || f.header.Uncorrected
			phases = phases && f.header.Phases
		} else {
			phases = false
		}
		for _, iv := range f.intervals {
			if iv.payloads["uncorrected"] != "" {
				uncorrected = true
			}
		}
	}
	// The merged histograms take the finest precision and widest range met.
	highest, sigfig := int64(metrics.DefaultHighest), metrics.DefaultSignificantFigures
	for _, f := range files {
		for _, iv := range f.intervals {
			if p := iv.payloads["latency"]; p != "" {
				h, err := decodeHist(p)
				if err != nil {
					return nil, fmt.Errorf("split: %s: histogram: %w", f.name, err)
				}
				highest = max(highest, h.HighestTrackableValue())
				sigfig = max(sigfig, int(h.SignificantFigures()))
				break
			}
		}
	}

	var buckets []*hlogBucket
	var end time.Duration // latest end, from origin
	for _, f := range files {
		off := f.start.Sub(origin)
		for _, iv := range f.intervals {
			mid := off + iv.start + iv.length/2
			if mid < 0 { // parseHlog rejects these; never index with them
				return nil, fmt.Errorf("split: %s: an interval starts %v before the log's start", f.name, (-mid).Round(time.Millisecond))
			}
			k := int(mid / step)
			if k >= metrics.DefaultMaxIntervals-1 {
				return nil, fmt.Errorf("split: the logs span more than %d intervals of %v (%s starts %v after the earliest): are they from one run?",
					metrics.DefaultMaxIntervals-1, step, f.name, off.Round(time.Millisecond))
			}
			for len(buckets) <= k {
				buckets = append(buckets, &hlogBucket{gauges: map[int]gaugeSpan{}})
			}
			buckets[k].intervals = append(buckets[k].intervals, iv)
			end = max(end, off+iv.start+iv.length)
		}
		if f.end != nil {
			end = max(end, off+time.Duration(f.end.Elapsed))
		}
	}

	// A row's gauge is the agents' levels added up: for each log, that of
	// its interval covering the row the most (so that an agent whose
	// intervals ran longer than the grid, on a loaded machine, still
	// counts in every row it spans).
	for fi, f := range files {
		off := f.start.Sub(origin)
		for _, iv := range f.intervals {
			if math.IsNaN(iv.gauge) {
				continue
			}
			from, to := off+iv.start, off+iv.start+iv.length
			for k := max(int(from/step), 0); k < len(buckets) && time.Duration(k)*step < to; k++ {
				lo, hi := max(from, time.Duration(k)*step), min(to, time.Duration(k+1)*step)
				if ov := hi - lo; ov > 0 && ov > buckets[k].gauges[fi].overlap {
					buckets[k].gauges[fi] = gaugeSpan{iv.gauge, ov}
				}
			}
		}
	}

	// The merged run is recorded as one: each row's intervals are added
	// to a recorder (their exact counts and their histograms) and cut on
	// the grid, so the frames come from the same code as a single run's.
	rec, err := metrics.NewRecorder(origin, metrics.Options{Shards: 1, Uncorrected: uncorrected, Phases: phases,
		Highest: time.Duration(highest), SignificantFigures: sigfig})
	if err != nil {
		return nil, fmt.Errorf("split: %w", err)
	}
	last := math.NaN()
	for k, b := range buckets {
		for _, iv := range b.intervals {
			var h metrics.Histograms
			for tag, dst := range map[string]**hdrhistogram.Histogram{"latency": &h.Latency, "uncorrected": &h.Uncorrected,
				"connect": &h.Connect, "wait": &h.Wait, "read": &h.Read} {
				if p := iv.payloads[tag]; p != "" {
					if *dst, err = decodeHist(p); err != nil {
						return nil, fmt.Errorf("split: histogram (%s): %w", tag, err)
					}
				}
			}
			if err := rec.Add(iv.c, h); err != nil {
				return nil, fmt.Errorf("split: %w", err)
			}
		}
		gauge := math.NaN()
		if len(b.gauges) > 0 { // the agents' levels add up
			gauge = 0
			for _, g := range b.gauges {
				gauge += g.gauge
			}
		}
		if k < len(buckets)-1 {
			rec.Cut(origin.Add(time.Duration(k+1)*step), gauge)
		}
		last = gauge
	}
	res := rec.Finish(origin.Add(max(end, time.Duration(len(buckets)-1)*step+1)), last, mergeLabels(files))
	res.Warnings = nil // the recorder's own; the logs' follow
	var protocols []string
	seenErr := map[string]bool{}
	var spreadMin, spreadMax time.Duration = -1, 0
	var clamped int64
	for _, iv := range res.Intervals {
		clamped += iv.Clamped
	}
	for _, f := range files {
		if f.header != nil && res.GaugeName == "" {
			res.GaugeName = f.header.Gauge
		}
		off := f.start.Sub(origin)
		if spreadMin < 0 || off < spreadMin {
			spreadMin = off
		}
		spreadMax = max(spreadMax, off)
		if f.end == nil {
			if f.header != nil {
				res.Warn(fmt.Sprintf("%s has no closing totals: its agent stopped before the end of its run (what it logged is merged)", f.name))
			}
			continue
		}
		res.Dropped += f.end.Dropped
		res.Connections += f.end.Connections
		res.Streams += f.end.Streams
		if p := f.end.Protocol; p != "" && !slices.Contains(protocols, p) {
			protocols = append(protocols, p)
		}
		for _, w := range f.end.Warnings {
			res.Warn(f.name + ": " + w)
		}
		for _, e := range f.end.Errors {
			if !seenErr[e] && len(res.ErrorSamples) < metrics.DefaultMaxErrorSamples {
				seenErr[e] = true
				res.ErrorSamples = append(res.ErrorSamples, e)
			}
		}
	}
	sort.Strings(protocols)
	res.Protocol = strings.Join(protocols, " + ")
	if d := spreadMax - spreadMin; len(files) > 1 && d > max(step, 100*time.Millisecond) {
		res.Warn(fmt.Sprintf("the logs' starts are %v apart (more than an interval): the agents did not begin together, so the series mixes different moments of the run", d.Round(time.Millisecond)))
	}
	if clamped > 0 {
		res.Warn(fmt.Sprintf("%d latencies above the histogram range were recorded at its top", clamped))
	}
	return res, nil
}

// mergeLabels keeps the labels every log agrees on; the load label of
// segments of one whole run is the whole's; other disagreements are
// joined with " + ".
func mergeLabels(files []*hlogFile) map[string]string {
	values := map[string][]string{}
	wholes := map[string]bool{}
	for _, f := range files {
		if f.header == nil {
			continue
		}
		if f.header.Whole != "" {
			wholes[f.header.Whole] = true
		}
		for k, v := range f.header.Labels {
			values[k] = append(values[k], v)
		}
	}
	out := map[string]string{}
	for k, vs := range values {
		uniq := map[string]bool{}
		var list []string
		for _, v := range vs {
			if !uniq[v] {
				uniq[v] = true
				list = append(list, v)
			}
		}
		sort.Strings(list)
		out[k] = strings.Join(list, " + ")
	}
	if len(wholes) == 1 {
		for w := range wholes {
			out[metrics.LabelLoad] = w
		}
	}
	return out
}

// Complete reports whether the log at path is complete: it ends with the
// closing totals HlogWriter.End writes. A log still being written by a
// running agent, or cut short, is not. A missing file is an error.
func Complete(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("split: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("split: %w", err)
	}
	const tail = 64 << 10 // the totals line holds at most a few warnings
	off := max(st.Size()-tail, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return false, fmt.Errorf("split: %w", err)
	}
	i := strings.LastIndex(string(buf), "\n"+hlogEndTag)
	return i >= 0 && strings.HasSuffix(strings.TrimRight(string(buf), "\n"), "]") && !strings.Contains(string(buf[i+1:]), "\nTag="), nil
}
