package charts

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/trace"
)

// DefaultWaterfallRows is the most request rows Waterfall draws; beyond it
// it draws an even sample of each strategy's requests by arrival, and says
// so.
const DefaultWaterfallRows = 120

// traceColumns are the columns Waterfall and Lanes need.
var traceColumns = []string{"request", "start_ms", "end_ms"}

// checkTrace returns a problem message for a frame that is not a trace.
func checkTrace(view string, f *frame.Frame) string {
	if p := check(view, f, traceColumns...); p != "" {
		return p
	}
	if !isLabel(f, "phase") {
		return fmt.Sprintf("%s: frame %q has no label column \"phase\" (have: %s); pass a result's Trace frame", view, f.Name, strings.Join(f.Columns(), ", "))
	}
	return ""
}

// interval is one trace row.
type interval struct {
	strategy, thread, phase string
	worker                  int
	req                     int64
	start, end              float64
}

func readIntervals(f *frame.Frame) []interval {
	out := make([]interval, 0, f.Len())
	hasStrategy, hasThread := isLabel(f, "strategy"), isLabel(f, "thread")
	hasWorker := f.Has("worker")
	for i := 0; i < f.Len(); i++ {
		iv := interval{phase: f.Text("phase", i), req: int64(f.Float("request", i)),
			start: f.Float("start_ms", i), end: f.Float("end_ms", i)}
		if hasStrategy {
			iv.strategy = f.Text("strategy", i)
		}
		if hasThread {
			iv.thread = f.Text("thread", i)
		}
		if hasWorker {
			iv.worker = int(f.Float("worker", i))
		}
		if math.IsNaN(iv.start) || math.IsNaN(iv.end) {
			continue
		}
		out = append(out, iv)
	}
	return out
}

// strategiesOf lists the strategies in order of first appearance.
func strategiesOf(ivs []interval) []string {
	seen := map[string]bool{}
	var out []string
	for _, iv := range ivs {
		if !seen[iv.strategy] {
			seen[iv.strategy] = true
			out = append(out, iv.strategy)
		}
	}
	return out
}

// mergeBars joins bars of one row, band and phase that touch or nearly
// touch (closer than res), keeping the chart's size bounded by its
// resolution; it returns the bars and how many were merged away.
func mergeBars(bars []bar, res float64) ([]bar, int) {
	sort.SliceStable(bars, func(i, j int) bool {
		a, b := bars[i], bars[j]
		if a.row != b.row {
			return a.row < b.row
		}
		if a.band != b.band {
			return a.band < b.band
		}
		if a.phase != b.phase {
			return a.phase < b.phase
		}
		return a.start < b.start
	})
	var out []bar
	merged := 0
	for _, b := range bars {
		if n := len(out); n > 0 {
			l := &out[n-1]
			if l.row == b.row && l.band == b.band && l.phase == b.phase && b.start-l.end < res && (l.end-l.start < res || b.end-b.start < res) {
				l.end = math.Max(l.end, b.end)
				if l.req != b.req {
					l.req = 0
					l.label = "several"
				}
				merged++
				continue
			}
		}
		out = append(out, b)
	}
	return out, merged
}

// orderPhases returns the phases present, in the order of want, then any
// others sorted.
func orderPhases(bars []bar, want []string) []string {
	present := map[string]bool{}
	for _, b := range bars {
		present[b.phase] = true
	}
	var out []string
	for _, p := range want {
		if present[p] {
			out = append(out, p)
			delete(present, p)
		}
	}
	var rest []string
	for p := range present {
		rest = append(rest, p)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// rowHeight sizes a chart of n rows: roomy for ten, a few pixels each for
// hundreds.
func rowHeight(n int, top int) int {
	px := 22.0
	if n > 12 {
		px = math.Max(3, math.Min(22, 540/float64(n)))
	}
	return max(240, min(720, top+50+int(math.Ceil(px*float64(n)))))
}

// Waterfall draws a trace frame (bench.Result.Trace) as a request
// waterfall: one row per request in order of arrival, strategy by strategy,
// each interval of its life a bar coloured by phase — queue, limiter_wait,
// executor_wait, thread_wait, gil_wait, cpu, cpu_nogil, io, write, pool,
// respond — on a common time axis from each strategy's first event (a
// request traced without its steps, as a real server's middleware traces
// it, shows its handler interval). Waves
// through a pool and staircases through a blocked loop show at a glance.
// Beyond DefaultWaterfallRows requests it draws an even sample of each
// strategy's requests (every k-th by arrival), and says so under the title;
// bars closer together than a pixel are merged.
func Waterfall(f *frame.Frame) *IntervalChart { return WaterfallRows(f, DefaultWaterfallRows) }

// WaterfallRows is Waterfall drawing at most maxRows request rows.
func WaterfallRows(f *frame.Frame, maxRows int) *IntervalChart {
	const view = "charts.Waterfall"
	title := "Request waterfall"
	if p := checkTrace(view, f); p != "" {
		return intervalProblem(title, p)
	}
	if maxRows < 1 {
		maxRows = DefaultWaterfallRows
	}
	drawn := map[string]bool{}
	for _, p := range trace.RequestPhases {
		drawn[p] = true
	}
	all := readIntervals(f)
	// A request traced without its steps (a real server's middleware sees
	// only the handler) shows its handler interval instead.
	type rk struct {
		s string
		w int
		r int64
	}
	hasSteps := map[rk]bool{}
	for _, iv := range all {
		if iv.req > 0 && drawn[iv.phase] && !trace.Waits(iv.phase) && iv.phase != trace.Respond {
			hasSteps[rk{iv.strategy, iv.worker, iv.req}] = true
		}
	}
	var ivs []interval
	for _, iv := range all {
		if iv.req > 0 && (drawn[iv.phase] || iv.phase == trace.Handler && !hasSteps[rk{iv.strategy, iv.worker, iv.req}]) {
			ivs = append(ivs, iv)
		}
	}
	if len(ivs) == 0 {
		return intervalProblem(title, fmt.Sprintf("%s: frame %q has no request phases (%s) to draw", view, f.Name, strings.Join(trace.RequestPhases, ", ")))
	}
	strategies := strategiesOf(ivs)
	// Requests per strategy, by arrival (first event).
	type rkey struct {
		s string
		r int64
	}
	first := map[rkey]float64{}
	for _, iv := range ivs {
		k := rkey{iv.strategy, iv.req}
		if v, ok := first[k]; !ok || iv.start < v {
			first[k] = iv.start
		}
	}
	per := map[string][]int64{}
	for k := range first {
		per[k.s] = append(per[k.s], k.r)
	}
	totalReqs := len(first)
	budget := max(1, maxRows/len(strategies))
	rowOf := map[rkey]int{}
	c := newIntervalChart(title)
	c.yName = "request"
	var sampled []string
	for _, s := range strategies {
		reqs := per[s]
		sort.Slice(reqs, func(i, j int) bool {
			a, b := first[rkey{s, reqs[i]}], first[rkey{s, reqs[j]}]
			if a != b {
				return a < b
			}
			return reqs[i] < reqs[j]
		})
		step := 1
		if len(reqs) > budget {
			step = int(math.Ceil(float64(len(reqs)) / float64(budget)))
			sampled = append(sampled, fmt.Sprintf("%s: %d of %d requests (every %s)", orDefault(s, "result"), (len(reqs)+step-1)/step, len(reqs), ordinal(step)))
		}
		for i := 0; i < len(reqs); i += step {
			rowOf[rkey{s, reqs[i]}] = len(c.rows)
			label := fmt.Sprintf("#%d", reqs[i])
			if len(strategies) > 1 {
				label = orDefault(s, "result") + " " + label
			}
			c.rows = append(c.rows, label)
		}
	}
	for _, iv := range ivs {
		row, ok := rowOf[rkey{iv.strategy, iv.req}]
		if !ok {
			continue
		}
		c.xMax = math.Max(c.xMax, iv.end)
		label := iv.thread
		if iv.worker > 0 {
			label = fmt.Sprintf("worker %d · %s", iv.worker, iv.thread)
		}
		if len(strategies) > 1 {
			label = iv.strategy + " · " + label
		}
		c.bars = append(c.bars, bar{row: row, start: iv.start, end: iv.end, phase: iv.phase, req: iv.req, label: label})
	}
	var merged int
	c.bars, merged = mergeBars(c.bars, c.xMax/900)
	c.phases = orderPhases(c.bars, append([]string{trace.Handler}, trace.RequestPhases...))
	if len(sampled) > 0 {
		how := "evenly by arrival"
		if len(sampled) == 1 {
			how = strings.TrimSuffix(sampled[0][strings.Index(sampled[0], "(")+1:], ")") + " by arrival"
		}
		c.subtitle = fmt.Sprintf("sampled: %d of %d requests drawn (%s)", len(c.rows), totalReqs, how)
		c.notes = append(c.notes, "Sampled by arrival: "+strings.Join(sampled, "; ")+".")
	} else {
		c.subtitle = fmt.Sprintf("%d requests, one row each by arrival", totalReqs)
	}
	if merged > 0 {
		c.notes = append(c.notes, fmt.Sprintf("%d intervals closer than a pixel merged into their neighbours.", merged))
	}
	c.height = rowHeight(len(c.rows), 100)
	return c
}

// ordinal is "2nd", "3rd", "10th" (and "one" for 1).
func ordinal(n int) string {
	suf := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suf = "st"
		case 2:
			suf = "nd"
		case 3:
			suf = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suf)
}
