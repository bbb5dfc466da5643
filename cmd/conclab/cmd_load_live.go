package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
)

// liveView shows a run as it goes. On a terminal (stdout) it is a compact
// panel redrawn in place — progress, requests per second with a sparkline
// of the intervals, the last interval's p50/p95/p99, errors — cleared
// before the summary is printed. When stdout is not a terminal it writes a
// plain line at most every plainEvery to stderr (stdout keeps the summary
// or the JSON alone). It is fed by load.Options.OnStart, OnInterval and
// Progress, from the run's goroutines.
type liveView struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	title string
	plan  load.Plan
	prog  load.Progress

	rps      []float64 // per interval, the last sparkWidth
	last     metrics.Interval
	haveLast bool
	drawn    int // lines of the panel on the screen

	plainAt                 time.Duration // when the last plain line was written
	plainCount, plainErrors int64         // since that line
	plainLength             time.Duration
}

const (
	sparkWidth = 32
	plainEvery = time.Second
)

// newLiveView draws on stdout when it is a terminal (unless --json: then
// there is no view), else writes lines to stderr.
func newLiveView(stdout, stderr io.Writer, title string, jsonOut bool) *liveView {
	if isTerminal(stdout) {
		if jsonOut {
			return nil
		}
		return &liveView{w: stdout, tty: true, title: title}
	}
	return &liveView{w: stderr, title: title}
}

func (v *liveView) start(p load.Plan) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.plan = p
	if !v.tty {
		fmt.Fprintf(v.w, "conclab load: %s · %s · %s\n", v.title, p.Labels[metrics.LabelLoad], p.Protocol)
	}
}

func (v *liveView) progress(p load.Progress) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.prog = p
	if v.tty {
		v.draw()
	}
}

func (v *liveView) interval(c *metrics.Cut) {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	iv := *c.Interval
	if iv.Length > 0 {
		v.rps = append(v.rps, float64(iv.N)/iv.Length.Seconds())
		if len(v.rps) > sparkWidth {
			v.rps = v.rps[len(v.rps)-sparkWidth:]
		}
	}
	v.last, v.haveLast = iv, true
	v.prog.Done, v.prog.Errors = c.Total.N, c.Total.Errors()
	if v.tty {
		v.draw()
		return
	}
	v.plainCount += iv.N
	v.plainErrors += iv.Errors()
	v.plainLength += iv.Length
	end := iv.Start + iv.Length
	if end-v.plainAt >= plainEvery || c.Final {
		v.plainLine(end)
		v.plainAt, v.plainCount, v.plainErrors, v.plainLength = end, 0, 0, 0
	}
}

// plainLine is one line of the non-terminal view: what happened since the
// previous line, and the last interval's percentiles.
func (v *liveView) plainLine(end time.Duration) {
	rps := 0.0
	if v.plainLength > 0 {
		rps = float64(v.plainCount) / v.plainLength.Seconds()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  t=%.1fs  rps=%.0f", end.Seconds(), rps)
	if v.last.Latency.Count > 0 {
		fmt.Fprintf(&b, "  p50=%s p95=%s p99=%s", short(v.last.Latency.Med), short(v.last.Latency.P95), short(v.last.Latency.P99))
	}
	fmt.Fprintf(&b, "  errors=%d  requests=%d", v.prog.Errors, v.prog.Done)
	if v.plan.Gauge != "" && !math.IsNaN(v.last.Gauge) {
		fmt.Fprintf(&b, "  %s=%g", v.plan.Gauge, math.Round(v.last.Gauge*10)/10)
	}
	fmt.Fprintln(v.w, b.String())
}

// draw redraws the panel in place: back to its first line, clear to the
// end of the screen, the lines again.
func (v *liveView) draw() {
	lines := v.panel()
	var b strings.Builder
	if v.drawn > 1 {
		fmt.Fprintf(&b, "\033[%dA", v.drawn-1)
	}
	b.WriteString("\r\033[J")
	b.WriteString(strings.Join(lines, "\n"))
	io.WriteString(v.w, b.String())
	v.drawn = len(lines)
}

func (v *liveView) panel() []string {
	p := v.prog
	frac := -1.0
	switch {
	case v.plan.Duration > 0:
		frac = p.Elapsed.Seconds() / v.plan.Duration.Seconds()
	case v.plan.Requests > 0:
		frac = float64(p.Done) / float64(v.plan.Requests)
	}
	const width = 30
	bar := strings.Repeat("-", width)
	if frac >= 0 {
		n := int(math.Min(frac, 1) * width)
		bar = strings.Repeat("=", n) + strings.Repeat("-", width-n)
	}
	head := fmt.Sprintf("  [%s] %6.1fs", bar, p.Elapsed.Seconds())
	if v.plan.Duration > 0 {
		head += fmt.Sprintf(" / %s", v.plan.Duration)
	}
	if v.plan.Gauge != "" {
		head += fmt.Sprintf("   %s %g", v.plan.Gauge, math.Round(p.Level*10)/10)
	}
	if v.plan.Protocol != "" {
		head += "   " + v.plan.Protocol
	}
	rps := "-"
	if n := len(v.rps); n > 0 {
		rps = fmt.Sprintf("%.0f", v.rps[n-1])
	}
	lat := "latency  -"
	if v.haveLast && v.last.Latency.Count > 0 {
		lat = fmt.Sprintf("latency  p50 %s  p95 %s  p99 %s   (last %s)", short(v.last.Latency.Med), short(v.last.Latency.P95),
			short(v.last.Latency.P99), v.last.Length.Round(time.Millisecond))
	}
	failed := 0.0
	if p.Done > 0 {
		failed = 100 * float64(p.Errors) / float64(p.Done)
	}
	return []string{
		"  " + v.title,
		head,
		fmt.Sprintf("  rps      %-9s %s", rps, sparkline(v.rps)),
		"  " + lat,
		fmt.Sprintf("  requests %d   errors %d (%.2f%%)", p.Done, p.Errors, failed),
	}
}

// clear removes the panel (a terminal); the summary follows.
func (v *liveView) clear() {
	if v == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.tty && v.drawn > 0 {
		if v.drawn > 1 {
			fmt.Fprintf(v.w, "\033[%dA", v.drawn-1)
		}
		io.WriteString(v.w, "\r\033[J")
		v.drawn = 0
	}
}

var sparks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws xs scaled to their largest.
func sparkline(xs []float64) string {
	top := 0.0
	for _, x := range xs {
		top = math.Max(top, x)
	}
	var b strings.Builder
	for _, x := range xs {
		i := 0
		if top > 0 {
			i = int(math.Round(x / top * float64(len(sparks)-1)))
		}
		b.WriteRune(sparks[i])
	}
	return b.String()
}

// short formats a latency compactly: 912µs, 2.10ms, 1.23s.
func short(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}
