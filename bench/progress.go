package bench

import (
	"fmt"
	"html"
	"strings"
	"sync"
	"time"

	"github.com/conclab/conclab/bench/load"
	"github.com/conclab/conclab/display"
)

// Progress is a snapshot of a running experiment: strategy K of N, its run
// so far. Experiment.Progress receives one when a strategy starts, every
// load.DefaultProgressEvery while its load runs, and one with Done when it
// has finished (after its last repeat).
type Progress struct {
	Strategy string // the strategy's label
	K, N     int    // strategy k of n (1-based)
	// Repeat is the run of this strategy under way, of Repeats
	// (Experiment.Repeat; 1 when not repeating).
	Repeat, Repeats int
	// Elapsed is the current run's time so far; Planned its planned
	// length, 0 when unknown (count-bound loads: Burst, Sequential).
	Elapsed, Planned time.Duration
	// Requests and Errors count the current run's finished requests.
	Requests, Errors int64
	// RPS is the current rate: finished requests a second over about the
	// last second, and over the whole run once Done.
	RPS float64
	// Done marks the strategy finished: every repeat run, its server
	// closed.
	Done bool
}

// String is one line: "[2/4] /async-block  3.1 s / 10 s  120 req  0 err
// 38 req/s", with "run 2/3" after the label when repeating and "done" at
// the end when Done.
func (p Progress) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d/%d] %s", p.K, p.N, p.Strategy)
	if p.Repeats > 1 {
		fmt.Fprintf(&b, " run %d/%d", p.Repeat, p.Repeats)
	}
	fmt.Fprintf(&b, "  %.1f s", p.Elapsed.Seconds())
	if p.Planned > 0 {
		fmt.Fprintf(&b, " / %s", seconds(p.Planned))
	}
	fmt.Fprintf(&b, "  %d req  %d err  %.0f req/s", p.Requests, p.Errors, p.RPS)
	if p.Done {
		b.WriteString("  done")
	}
	return b.String()
}

// seconds formats d as "10 s" or "2.5 s".
func seconds(d time.Duration) string {
	s := d.Seconds()
	if s == float64(int64(s)) {
		return fmt.Sprintf("%d s", int64(s))
	}
	return fmt.Sprintf("%.1f s", s)
}

// rateWindow turns the load generator's cumulative counts into a current
// rate over about the last second.
type rateWindow struct {
	t []time.Duration
	n []int64
}

func (w *rateWindow) add(elapsed time.Duration, done int64) float64 {
	w.t, w.n = append(w.t, elapsed), append(w.n, done)
	for len(w.t) > 2 && elapsed-w.t[1] >= time.Second {
		w.t, w.n = w.t[1:], w.n[1:]
	}
	dt := elapsed - w.t[0]
	if len(w.t) < 2 || dt <= 0 {
		if elapsed > 0 {
			return float64(done) / elapsed.Seconds()
		}
		return 0
	}
	return float64(done-w.n[0]) / dt.Seconds()
}

// fromLoad fills p's run figures from the generator's snapshot.
func (p Progress) fromLoad(lp load.Progress, w *rateWindow) Progress {
	p.Elapsed, p.Planned, p.Requests, p.Errors = lp.Elapsed, lp.Duration, lp.Done, lp.Errors
	p.RPS = w.add(lp.Elapsed, lp.Done)
	return p
}

// liveEvery is the least time between two updates of the live display
// (a strategy's end updates it at once).
const liveEvery = 250 * time.Millisecond

// live is the cell's live progress display: one line per strategy, shown
// once (display.Open) and replaced in place (display.Handle.Update).
type live struct {
	mu    sync.Mutex
	h     *display.Handle
	lines []liveLine
	last  time.Time
}

type liveLine struct {
	p     Progress
	state string // "waiting", "running", "done", "failed: ...", "not run"
}

// openLive shows the display for the strategies, or returns nil when no
// display publisher is installed (nothing is shown then).
func openLive(labels []string, repeats int) *live {
	l := &live{}
	for i, s := range labels {
		l.lines = append(l.lines, liveLine{p: Progress{Strategy: s, K: i + 1, N: len(labels), Repeat: 1, Repeats: repeats}, state: "waiting"})
	}
	h, err := display.Open(l.render())
	if err != nil {
		return nil
	}
	l.h, l.last = h, time.Now()
	return l
}

// update records p and redraws when a strategy finished or liveEvery has
// passed since the last redraw.
func (l *live) update(p Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p.K < 1 || p.K > len(l.lines) {
		return
	}
	l.lines[p.K-1] = liveLine{p: p, state: "running"}
	if p.Done {
		l.lines[p.K-1].state = "done"
	}
	if !p.Done && time.Since(l.last) < liveEvery {
		return
	}
	l.last = time.Now()
	_ = l.h.Update(l.render())
}

// finish redraws the final state: with err, the running strategy failed
// and those after it did not run.
func (l *live) finish(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.lines {
		switch ln := &l.lines[i]; {
		case ln.state == "done":
		case err != nil && ln.state == "running":
			ln.state = "failed: " + err.Error()
		case err != nil:
			ln.state = "not run"
		default:
			ln.state = "done"
			ln.p.Done = true
		}
	}
	_ = l.h.Update(l.render())
}

// render is the display's bundle: text/plain, a line per strategy, and
// text/html with a progress bar per line when its length is known.
func (l *live) render() display.Data {
	var text, h strings.Builder
	h.WriteString(`<div class="conclab-progress" style="font-family:monospace;white-space:pre">`)
	for i, ln := range l.lines {
		line := ln.p.String()
		switch {
		case ln.state == "waiting" || ln.state == "not run":
			line = fmt.Sprintf("[%d/%d] %s  %s", ln.p.K, ln.p.N, ln.p.Strategy, ln.state)
		case strings.HasPrefix(ln.state, "failed"):
			line += "  " + ln.state
		}
		if i > 0 {
			text.WriteByte('\n')
		}
		text.WriteString(line)
		bar := ""
		if ln.p.Planned > 0 || ln.state == "done" {
			frac := 1.0
			if ln.state != "done" {
				frac = min(ln.p.Elapsed.Seconds()/ln.p.Planned.Seconds(), 1)
			}
			bar = fmt.Sprintf(`<progress value="%.3f" max="1" style="width:8em"></progress> `, frac)
		}
		fmt.Fprintf(&h, "<div>%s%s</div>", bar, html.EscapeString(line))
	}
	h.WriteString("</div>")
	return display.MakeData3(display.MIMETypeHTML, text.String(), h.String())
}
