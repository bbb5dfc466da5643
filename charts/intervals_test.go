package charts_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
)

// traceFrame is a trace of n /sync-sleep-like requests through a pool of 40:
// queue, limiter_wait, io and respond per request, in waves of 40; and the
// GIL taking turns between two threads every 5 ms.
func traceFrame(name string, n int) *frame.Frame {
	f := frame.New("trace")
	for i := 0; i < n; i++ {
		wave := float64(i / 40)
		start := wave * 1000
		row := func(thread, phase string, s, e float64) {
			f.MustAppend(frame.Row{"strategy": name, "request": i + 1, "worker": 0, "thread": thread, "phase": phase, "start_ms": s, "end_ms": e})
		}
		row("loop queue", "queue", 0, 0.2)
		row("anyio wait", "limiter_wait", 0.2, start+0.3)
		row(fmt.Sprintf("anyio-%d", i%40+1), "handler", start+0.3, start+1000.3)
		row(fmt.Sprintf("anyio-%d", i%40+1), "io", start+0.3, start+1000.3)
		row("responses", "respond", start+1000.3, start+1000.5)
	}
	for k := 0; k < 20; k++ {
		th := fmt.Sprintf("gthread-%d", k%2+1)
		f.MustAppend(frame.Row{"strategy": name, "request": k%2 + 1, "worker": 0, "thread": th, "phase": "gil", "start_ms": float64(5 * k), "end_ms": float64(5*k + 5)})
		f.MustAppend(frame.Row{"strategy": name, "request": k%2 + 2, "worker": 0, "thread": fmt.Sprintf("gthread-%d", (k+1)%2+1), "phase": "gil_wait", "start_ms": float64(5 * k), "end_ms": float64(5*k + 5)})
	}
	f.MustAppend(frame.Row{"strategy": name, "request": 1, "worker": 0, "thread": "loop", "phase": "loop_blocked", "start_ms": 0.0, "end_ms": 0.2})
	return f
}

func TestWaterfall(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		f        *frame.Frame
		rows     int
		sampled  bool
		problem  string
		subtitle string
		phases   string
	}{
		{"10 requests", traceFrame("/sync-sleep", 10), 10, false, "", "10 requests, one row each by arrival", "queue,limiter_wait,gil_wait,io,respond"},
		{"1000 requests", traceFrame("/sync-sleep", 1000), 112, true, "", "sampled: 112 of 1000 requests drawn (every 9th by arrival)", "queue,limiter_wait,io,respond"},
		{"nil", nil, 0, false, "charts.Waterfall: the frame is nil", "", ""},
		{"not a trace", frame.New("x").MustAppend(frame.Row{"rps": 1.0}), 0, false, `has no column "request"`, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ch := charts.Waterfall(c.f)
			if c.problem != "" {
				if err := ch.Err(); err == nil || !strings.Contains(err.Error(), c.problem) {
					t.Fatalf("Err() = %v; want %q", err, c.problem)
				}
				if !strings.Contains(ch.HTML(), "conclab-chart-problem") {
					t.Error("a problem chart does not draw its problem box")
				}
				return
			}
			if err := ch.Err(); err != nil {
				t.Fatal(err)
			}
			if got := len(ch.Rows()); got != c.rows {
				t.Errorf("rows = %d; want %d", got, c.rows)
			}
			if got := strings.Join(ch.Phases(), ","); got != c.phases {
				t.Errorf("phases = %s; want %s (no handler, gil: those are not request waits or steps)", got, c.phases)
			}
			if (len(ch.Notes()) > 0 && strings.Contains(ch.Notes()[0], "Sampled")) != c.sampled {
				t.Errorf("notes %v; sampled = %v", ch.Notes(), c.sampled)
			}
			opt := ch.Option()
			for _, want := range []string{`"type":"custom"`, "renderItem", c.subtitle, `"inverse":true`} {
				if !strings.Contains(opt, want) {
					t.Errorf("option lacks %q", want)
				}
			}
			svg := ch.SVG()
			bars := 0
			for _, m := range regexp.MustCompile(`<path class="bars" fill="#[0-9a-f]{6}" d="([^"]*)"/>`).FindAllStringSubmatch(svg, -1) {
				bars += strings.Count(m[1], "M")
			}
			if !strings.HasPrefix(svg, "<svg") || bars != ch.Bars() {
				t.Errorf("SVG draws %d bars for %d intervals", bars, ch.Bars())
			}
			if !strings.Contains(ch.HTML(), `data-conclab-chart="1"`) {
				t.Error("HTML has no chart container")
			}
		})
	}
}

// Two strategies side by side: rows are labelled with their strategy, in
// the frame's order.
func TestWaterfallTwoStrategies(t *testing.T) {
	t.Parallel()
	f, err := frame.Concat("t", traceFrame("model", 5), traceFrame("real CPython", 5))
	if err != nil {
		t.Fatal(err)
	}
	rows := charts.Waterfall(f).Rows()
	if len(rows) != 10 || rows[0] != "model #1" || rows[5] != "real CPython #1" {
		t.Errorf("rows = %v", rows)
	}
}

func TestLanes(t *testing.T) {
	t.Parallel()
	ch := charts.Lanes(traceFrame("flask 1w x 2t", 10))
	if err := ch.Err(); err != nil {
		t.Fatal(err)
	}
	rows := ch.Rows()
	if len(rows) < 3 || rows[0] != "loop" || rows[1] != "anyio-1" {
		t.Errorf("lanes = %v; want loop first, then anyio-1, anyio-2 ...", rows)
	}
	if got := strings.Join(ch.Phases(), ","); got != "gil,gil_wait,loop_blocked,io" {
		t.Errorf("phases = %s", got)
	}
	goNative := frame.New("t").MustAppend(frame.Row{"strategy": "goroutines", "request": 1, "thread": "goroutines", "phase": "handler", "start_ms": 0.0, "end_ms": 1.0})
	if err := charts.Lanes(goNative).Err(); err == nil || !strings.Contains(err.Error(), "no lane phases") {
		t.Errorf("Lanes of a Go-native trace: %v; want a problem naming the missing lane phases", err)
	}
}

// An interval's tooltip line is an index into the option's label table,
// which holds each line once.
func TestIntervalLabelsTable(t *testing.T) {
	t.Parallel()
	for _, ch := range []*charts.IntervalChart{charts.Waterfall(traceFrame("model", 50)), charts.Lanes(traceFrame("model", 50))} {
		var opt struct {
			Series []struct {
				Data [][]any `json:"data"`
			} `json:"series"`
			Conclab struct {
				Labels []string `json:"labels"`
			} `json:"conclab"`
		}
		if err := json.Unmarshal([]byte(ch.Option()), &opt); err != nil {
			t.Fatal(err)
		}
		labels := opt.Conclab.Labels
		seen := map[string]bool{}
		for _, l := range labels {
			if seen[l] {
				t.Errorf("%s: label %q twice in the table", ch, l)
			}
			seen[l] = true
		}
		used, n := map[int]bool{}, 0
		for _, s := range opt.Series {
			for _, d := range s.Data {
				i, ok := d[4].(float64)
				if !ok || int(i) < 0 || int(i) >= len(labels) {
					t.Fatalf("%s: bar %v: label index out of the table of %d", ch, d, len(labels))
				}
				used[int(i)] = true
				n++
			}
		}
		if n != ch.Bars() || len(used) != len(labels) || len(labels) == 0 {
			t.Errorf("%s: %d bars (want %d), %d of %d labels used", ch, n, ch.Bars(), len(used), len(labels))
		}
	}
}
