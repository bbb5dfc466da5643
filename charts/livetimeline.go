package charts

import (
	"context"
	"errors"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench"
	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/bench/metrics"
	"github.com/conclab/conclab/display"
)

// DefaultLiveEvery is the least time between two redraws of a
// LiveTimeline: at most two updates a second, whatever the series
// interval.
const DefaultLiveEvery = 500 * time.Millisecond

// LiveTimeline is Timeline drawn while a load runs — throughput and tail
// latency over time, one line per strategy, growing as each series
// interval closes (k6's web dashboard, Locust's charts) — in one output
// updated in place (a display id: the notebook keeps one chart, whatever
// the number of updates), redrawn at most once every DefaultLiveEvery.
// Finish replaces it with Timeline of the run's series: the chart the
// cell would show after the run, point for point.
//
// Feed it from the load generator's hooks (Watch, or OnStart and
// OnInterval in load.Options): with bench.Run through Experiment.Options,
// with load.Run directly. LiveRun does all of it for an experiment. The
// hooks are quick (they record a row); drawing happens on a goroutine of
// its own, which ends when no redraw is due. Safe for concurrent use.
type LiveTimeline struct {
	live  *Live
	every time.Duration
	wake  chan struct{} // closed by Finish and Stop

	mu      sync.Mutex
	runs    []*liveRun          // one per load run, in order
	expect  []map[string]string // label sets of runs to come (LiveRun)
	dirty   bool                // rows came since the last draw
	drawing bool                // the drawing goroutine exists
	last    time.Time           // the last draw
	done    bool                // Finish or Stop was called
	draws   int

	showMu sync.Mutex // orders the Shows; final is set under it
	final  bool
}

// liveRun is one load run's rows so far.
type liveRun struct {
	labels map[string]string
	t, rps []float64
	lat    []float64 // p95_ms, NaN where an interval had no response
}

// NewLiveTimeline returns a live timeline; nothing is shown until its
// first interval.
func NewLiveTimeline() *LiveTimeline {
	return &LiveTimeline{live: NewLive(), every: DefaultLiveEvery, wake: make(chan struct{})}
}

// SetEvery sets the least time between two redraws (DefaultLiveEvery
// unless set; at least 50 ms).
func (lt *LiveTimeline) SetEvery(d time.Duration) *LiveTimeline {
	lt.mu.Lock()
	lt.every = max(d, 50*time.Millisecond)
	lt.mu.Unlock()
	return lt
}

// Watch chains the timeline's OnStart and OnInterval onto o's (any set
// before still run first).
func (lt *LiveTimeline) Watch(o *load.Options) {
	start, interval := o.OnStart, o.OnInterval
	o.OnStart = func(p load.Plan) {
		if start != nil {
			start(p)
		}
		lt.OnStart(p)
	}
	o.OnInterval = func(c *metrics.Cut) {
		if interval != nil {
			interval(c)
		}
		lt.OnInterval(c)
	}
}

// OnStart begins a load run's lines (load.Options.OnStart). A run with the
// labels of an earlier one (a bench repeat) replaces its rows.
func (lt *LiveTimeline) OnStart(p load.Plan) {
	labels := make(map[string]string, len(p.Labels))
	for k, v := range p.Labels {
		labels[k] = v
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.done {
		return
	}
	for i, r := range lt.runs {
		if sameLabels(r.labels, labels) {
			lt.runs = append(lt.runs[:i], lt.runs[i+1:]...)
			break
		}
	}
	lt.runs = append(lt.runs, &liveRun{labels: labels})
}

// OnInterval adds the closed interval's point to the current run's lines
// (load.Options.OnInterval) and schedules a redraw.
func (lt *LiveTimeline) OnInterval(c *metrics.Cut) {
	if c == nil || c.Interval == nil {
		return
	}
	iv := c.Interval
	rps := math.NaN()
	if iv.Length > 0 {
		rps = float64(iv.N) / iv.Length.Seconds()
	}
	lat := math.NaN()
	if iv.Latency.Count > 0 {
		lat = float64(iv.Latency.P95) / float64(time.Millisecond)
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.done {
		return
	}
	if len(lt.runs) == 0 { // fed without OnStart
		lt.runs = append(lt.runs, &liveRun{labels: map[string]string{}})
	}
	r := lt.runs[len(lt.runs)-1]
	r.t = append(r.t, iv.Start.Seconds())
	r.rps = append(r.rps, rps)
	r.lat = append(r.lat, lat)
	lt.dirty = true
	if !lt.drawing {
		lt.drawing = true
		go lt.drawLoop()
	}
}

// drawLoop redraws while rows keep coming, at most once every lt.every.
func (lt *LiveTimeline) drawLoop() {
	for {
		lt.mu.Lock()
		if !lt.dirty || lt.done {
			lt.drawing = false
			lt.mu.Unlock()
			return
		}
		if wait := lt.every - time.Since(lt.last); wait > 0 {
			lt.mu.Unlock()
			select {
			case <-time.After(wait):
			case <-lt.wake:
			}
			continue
		}
		f := lt.frameLocked()
		lt.dirty, lt.last = false, time.Now()
		lt.mu.Unlock()
		g := Timeline(f)
		lt.showMu.Lock()
		if !lt.final {
			_ = lt.live.Show(g)
			lt.mu.Lock()
			lt.draws++
			lt.mu.Unlock()
		}
		lt.showMu.Unlock()
	}
}

// frameLocked is the rows so far as a series frame: strategy (the name
// Timeline will give the run's line in the final series), t_s, rps,
// p95_ms.
func (lt *LiveTimeline) frameLocked() *frame.Frame {
	f := frame.New("series")
	_ = f.AddColumn("strategy", frame.Label)
	for _, c := range []string{"t_s", "rps", "p95_ms"} {
		_ = f.AddColumn(c, frame.Number)
	}
	sets := append([]map[string]string(nil), lt.expect...)
	for _, r := range lt.runs {
		sets = append(sets, r.labels)
	}
	for _, r := range lt.runs {
		name := seriesName(r.labels, sets)
		for i := range r.t {
			f.MustAppend(frame.Row{"strategy": name, "t_s": r.t[i], "rps": r.rps[i], "p95_ms": r.lat[i]})
		}
	}
	return f
}

// Finish stops the live drawing and shows Timeline(series) in its place —
// the run's series (bench's Result.Series, metrics.Result.Series): the
// chart a cell shows after the run.
func (lt *LiveTimeline) Finish(series *frame.Frame) error {
	lt.stop()
	lt.showMu.Lock()
	defer lt.showMu.Unlock()
	lt.final = true
	return lt.live.Show(Timeline(series))
}

// Stop stops the live drawing, leaving the chart as it is but for the
// points that came since its last redraw, which are drawn (a run that
// failed or was cancelled shows how far it got). Safe to call twice, and
// after Finish (then it does nothing).
func (lt *LiveTimeline) Stop() error {
	dirty := lt.stop()
	lt.showMu.Lock()
	defer lt.showMu.Unlock()
	if lt.final || !dirty {
		return nil
	}
	lt.mu.Lock()
	f := lt.frameLocked()
	lt.mu.Unlock()
	lt.final = true
	return lt.live.Show(Timeline(f))
}

// stop ends the drawing loop and reports whether rows were not drawn yet.
func (lt *LiveTimeline) stop() (dirty bool) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if !lt.done {
		lt.done = true
		close(lt.wake)
	}
	dirty, lt.dirty = lt.dirty, false
	return dirty
}

// Draws returns how many live redraws were shown so far (Finish's is not
// counted).
func (lt *LiveTimeline) Draws() int {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.draws
}

// ID returns the display id of the output.
func (lt *LiveTimeline) ID() string { return lt.live.ID() }

// LiveRun runs e with bench.Run while a LiveTimeline of its strategies
// draws in the cell, then replaces it with Timeline(res.Series) — the chart
// the cell would show after the run — and returns the result:
//
//	res, err := charts.LiveRun(ctx, e)
//
// bench.Run's progress line shows above it as usual. When the run fails or
// ctx ends, the chart stays as far as it got and the error is returned.
// With no display publisher (a test, a plain program) it is bench.Run.
func LiveRun(ctx context.Context, e bench.Experiment) (*bench.Result, error) {
	lt := NewLiveTimeline()
	for _, s := range e.Strategies {
		if s == nil {
			continue
		}
		w := e.Workload
		if x, ok := e.Workloads[s.Label()]; ok {
			w = x
		}
		lt.expect = append(lt.expect, map[string]string{metrics.LabelStrategy: s.Label(), metrics.LabelWorkload: w.Label()})
	}
	lt.Watch(&e.Options)
	res, err := bench.Run(ctx, e)
	if err != nil {
		_ = lt.Stop()
		return nil, err
	}
	if err := lt.Finish(res.Series); err != nil && !errors.Is(err, display.ErrNoPublisher) {
		return res, err
	}
	return res, nil
}

// seriesName is the name Timeline gives a run's line in the final series
// (rowKeys): its strategy, then each other label that differs between the
// runs (workload, load, then the rest by name), joined with " · ". A label
// a set does not have takes no part in the comparison.
func seriesName(labels map[string]string, sets []map[string]string) string {
	cols := []string{metrics.LabelWorkload, metrics.LabelLoad}
	var extra []string
	for _, s := range sets {
		for k := range s {
			if k != metrics.LabelStrategy && k != metrics.LabelWorkload && k != metrics.LabelLoad {
				extra = append(extra, k)
			}
		}
	}
	sort.Strings(extra)
	var parts []string
	if v := labels[metrics.LabelStrategy]; v != "" {
		parts = append(parts, v)
	}
	seen := map[string]bool{}
	for _, col := range append(cols, extra...) {
		if seen[col] {
			continue
		}
		seen[col] = true
		v, ok := labels[col]
		if !ok || v == "" || !varies(col, sets) {
			continue
		}
		parts = append(parts, v)
	}
	if len(parts) == 0 {
		return "series"
	}
	return strings.Join(parts, " · ")
}

func varies(col string, sets []map[string]string) bool {
	first, have := "", false
	for _, s := range sets {
		v, ok := s[col]
		if !ok {
			continue
		}
		if have && v != first {
			return true
		}
		first, have = v, true
	}
	return false
}

func sameLabels(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
