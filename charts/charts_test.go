package charts_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

const libMarker = "data-conclab-echarts="

func TestBadInputSaysSo(t *testing.T) {
	t.Parallel()
	labels := frame.New("labels")
	labels.MustAppend(frame.Row{"strategy": "sync", "rps": "fast"})
	allNaN := frame.New("nan")
	allNaN.MustAppend(frame.Row{"strategy": "sync", "rps": math.NaN()})
	allNaN.MustAppend(frame.Row{"strategy": "asyncio", "rps": math.Inf(-1)})
	tests := []struct {
		name  string
		chart *charts.Chart
		want  string
	}{
		{"nil frame", charts.Throughput(nil), "nil"},
		{"empty frame", charts.Throughput(frame.New("empty")), `"empty" has no rows`},
		{"extra columns are fine", charts.Throughput(sourceFrame().With("x", "y")), ""},
		{"missing rps", charts.Throughput(distributionFrame()), `no column "rps"`},
		{"labels not numbers", charts.Throughput(labels), "holds labels"},
		{"no finite values", charts.Throughput(allNaN), "no finite values"},
		{"no latency columns", charts.Latency(sourceFrame()), "none of the latency columns"},
		{"unknown statistic", charts.Latency(summaryFrame(), "p42"), `unknown statistic "p42"`},
		{"series without t_s", charts.OverTime(summaryFrame(), "rps"), `no column "t_s"`},
		{"cdf without percentile", charts.CDF(summaryFrame()), `no column "latency_ms", "percentile"`},
		{"sweep without x", charts.Sweep(summaryFrame(), "concurrency", "rps"), `no column "concurrency"`},
		{"breakdown without columns", charts.Breakdown(sourceFrame()), "none of the columns queue_wait_ms"},
		{"source missing metric", charts.SourceVsMeasured(sourceFrame(), summaryFrame(), "p95_ms"), `(source): frame "source table" has no column "p95_ms"`},
		{"measured nil", charts.SourceVsMeasured(sourceFrame(), nil, "rps"), "(measured): the frame is nil"},
		{"model vs real: not an agreement frame", charts.ModelVsReal(summaryFrame(), "elapsed_s"), `no column "model", "real"`},
		{"model vs real: unknown metric", charts.ModelVsReal(agreementFrame(), "p99_ms"), `no rows for metric "p99_ms" (have: elapsed_s)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.chart.Err()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Err() = %v; want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Err() = %v; want it to mention %q", err, tt.want)
			}
			h := tt.chart.HTML()
			if !strings.Contains(h, `data-conclab-problem="1"`) || strings.Contains(h, `data-conclab-chart="1"`) {
				t.Fatalf("HTML() of a bad chart is not a problem box: %.200s", h)
			}
			if !strings.Contains(tt.chart.SVG(), "Cannot draw") {
				t.Fatalf("SVG() of a bad chart does not say so")
			}
			if tt.chart.Option() != "" {
				t.Fatalf("Option() of a bad chart = %q; want empty", tt.chart.Option())
			}
		})
	}
}

func TestNonFiniteValuesLeftOutWithNote(t *testing.T) {
	t.Parallel()
	f := frame.New("partial")
	f.MustAppend(frame.Row{"strategy": "sync", "rps": 10.0})
	f.MustAppend(frame.Row{"strategy": "asyncio", "rps": math.NaN()})
	f.MustAppend(frame.Row{"strategy": "ThreadPool", "rps": math.Inf(1)})
	c := charts.Throughput(f)
	if err := c.Err(); err != nil {
		t.Fatalf("Err() = %v; want nil", err)
	}
	notes := strings.Join(c.Notes(), "; ")
	if !strings.Contains(notes, "2 value(s) missing or not finite") {
		t.Fatalf("Notes() = %q; want 2 non-finite values mentioned", notes)
	}
	if opt := c.Option(); regexp.MustCompile(`[:\[,]\s*(NaN|[+-]?Inf)`).MatchString(opt) {
		t.Fatalf("Option() carries a non-finite number: %s", opt)
	}
	log := charts.Latency(summaryFrame().With("x", "y")).LogY()
	z := frame.New("zero")
	z.MustAppend(frame.Row{"strategy": "sync", "avg_ms": 0.0})
	z.MustAppend(frame.Row{"strategy": "asyncio", "avg_ms": 3.0})
	zc := charts.Latency(z).LogY()
	if zc.Err() != nil || !strings.Contains(strings.Join(zc.Notes(), ";"), "≤ 0 left out of the log axis") {
		t.Fatalf("zero on a log axis: Err %v, Notes %q", zc.Err(), zc.Notes())
	}
	if !strings.Contains(log.Option(), `"type":"log"`) {
		t.Fatalf("LogY option has no log axis: %s", log.Option())
	}
}

func TestViewsOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		chart  *charts.Chart
		series []string
		want   []string
	}{
		{"throughput", charts.Throughput(summaryFrame()), []string{"rps"}, []string{`"throughput (req/s)"`, `"goroutines"`}},
		{"latency", charts.Latency(summaryFrame()), strategies, []string{`"avg"`, `"p50"`, `"p95"`, `"p99"`, `"latency (ms)"`}},
		{"latency p90", charts.Latency(summaryFrame(), "p50", "max"), strategies, []string{`"max"`}},
		{"over time", charts.OverTime(seriesFrame(), "p95_ms"), strategies[:4], []string{`"time since start (s)"`, `"p95 (ms)"`}},
		{"cdf", charts.CDF(distributionFrame()).LogX(), strategies[:4], []string{`"percentile (%)"`, `"latency (ms)"`, `"type":"log"`}},
		{"sweep", charts.Sweep(sweepFrame(), "concurrency", "rps"), strategies[:3], []string{`"concurrency"`}},
		{"source vs measured", charts.SourceVsMeasured(sourceFrame(), summaryFrame(), "rps"), []string{"source", "measured"}, []string{`"opacity":0.45`}},
		{"model vs real", charts.ModelVsReal(agreementFrame(), "elapsed_s"), []string{"model", "real CPython"}, []string{`"opacity":0.45`, "1 of 2 agree"}},
		{"breakdown", charts.Breakdown(summaryFrame()), []string{"queue_wait", "gil_wait", "service"}, []string{`"stack":"time"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.chart.Err(); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(tt.chart.SeriesNames(), ","); got != strings.Join(tt.series, ",") {
				t.Fatalf("SeriesNames() = %s; want %s", got, strings.Join(tt.series, ","))
			}
			opt := tt.chart.Option()
			for _, w := range tt.want {
				if !strings.Contains(opt, w) {
					t.Errorf("Option() lacks %s: %s", w, opt)
				}
			}
			if !json.Valid([]byte(opt)) || !strings.Contains(opt, `"valueFormatter":"conclab:number"`) {
				t.Errorf("Option() is not JSON naming the tooltip's number format: %s", opt)
			}
			svg := tt.chart.SVG()
			if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "</svg>") || strings.Contains(svg, "NaN") {
				t.Errorf("SVG() malformed: %.300s", svg)
			}
		})
	}
}

func TestOneColourPerStrategyAcrossCharts(t *testing.T) {
	t.Parallel()
	colour := charts.ColorOf("asyncio")
	if charts.ColorOf("asyncio") != colour {
		t.Fatal("ColorOf is not stable")
	}
	seen := map[string]string{}
	for _, s := range strategies {
		c := charts.ColorOf(s)
		if other, dup := seen[c]; dup {
			t.Fatalf("ColorOf(%q) = ColorOf(%q) = %s; want distinct", s, other, c)
		}
		seen[c] = s
	}
	for _, c := range []*charts.Chart{charts.Throughput(summaryFrame()), charts.Latency(summaryFrame()),
		charts.OverTime(seriesFrame(), "rps"), charts.CDF(distributionFrame())} {
		if !strings.Contains(c.Option(), `"color":"`+colour+`"`) {
			t.Errorf("%s does not draw asyncio in %s", c, colour)
		}
	}
	charts.SetColor("custom-strategy", "#123456")
	if got := charts.ColorOf("custom-strategy"); got != "#123456" {
		t.Fatalf("after SetColor, ColorOf = %s; want #123456", got)
	}
}

func TestSeriesNamedByVaryingLabels(t *testing.T) {
	t.Parallel()
	a := summaryFrame().With("workload", "sleep")
	b := summaryFrame().With("workload", "cpu")
	both, err := frame.Concat("both", a, b)
	if err != nil {
		t.Fatal(err)
	}
	names := charts.Latency(both).SeriesNames()
	if len(names) != 10 || names[0] != "sync · sleep" || names[5] != "sync · cpu" {
		t.Fatalf("SeriesNames() = %q; want strategy · workload", names)
	}
	dup, _ := frame.Concat("dup", sourceFrame(), sourceFrame())
	opt := charts.Throughput(dup).Option()
	if !strings.Contains(opt, `"sync #2"`) {
		t.Fatalf("repeated strategies not told apart: %s", opt)
	}
}

var idPat = regexp.MustCompile(`id="(conclab-chart-[0-9a-f]+-\d+)"`)

// The page tests share the process-wide page flag, so they do not run in
// parallel (parallel tests start after them).

func TestLibraryOncePerPage(t *testing.T) {
	if _, err := charts.LibraryScript(); err != nil {
		t.Skipf("no ECharts bundle (run scripts/setup.sh): %v", err)
	}
	charts.ResetPage()
	first, second := charts.Throughput(summaryFrame()), charts.Latency(summaryFrame())
	h1, h2 := first.HTML(), second.HTML()
	if strings.Count(h1, libMarker) != 1 {
		t.Fatalf("first chart on the page does not carry the library once")
	}
	if strings.Contains(h2, libMarker) {
		t.Fatalf("second chart on the page carries the library again")
	}
	if !strings.Contains(first.HTML(), libMarker) {
		t.Fatalf("a re-render of the chart that carried the library dropped it")
	}
	id1, id2 := idPat.FindStringSubmatch(h1), idPat.FindStringSubmatch(first.HTML())
	if id1 == nil || id2 == nil || id1[1] == id2[1] {
		t.Fatalf("element ids not unique across renders: %v %v", id1, id2)
	}
	charts.ResetPage()
	if !strings.Contains(second.HTML(), libMarker) {
		t.Fatalf("after ResetPage the next chart does not carry the library")
	}
	if charts.NeedsLibrary(h2) != true || charts.NeedsLibrary(h1) != false || charts.NeedsLibrary("<p>no chart</p>") {
		t.Fatalf("NeedsLibrary wrong")
	}
}

// A kernel outlives pages: each front-end session (a page load, a second
// tab, another client) gets the library with its first chart, once.
func TestLibraryOncePerSession(t *testing.T) {
	if _, err := charts.LibraryScript(); err != nil {
		t.Skipf("no ECharts bundle (run scripts/setup.sh): %v", err)
	}
	charts.ResetPage()
	t.Cleanup(func() { cell.SetSession(""); charts.ResetPage() })
	steps := []struct {
		session string
		want    bool
	}{
		{"page-1", true},  // first chart of the first page
		{"page-1", false}, // same page: already there
		{"page-2", true},  // the page reloaded (a new session)
		{"tab-2", true},   // a second tab on the same kernel
		{"page-1", false}, // back in the first page
		{"page-2", false},
	}
	for i, st := range steps {
		cell.SetSession(st.session)
		// A new chart each step: a re-render of a chart that carried the
		// library carries it again whatever the session.
		got := strings.Contains(charts.Throughput(summaryFrame()).HTML(), libMarker)
		if got != st.want {
			t.Fatalf("step %d (session %q): chart carries the library = %v; want %v", i, st.session, got, st.want)
		}
	}
	cell.SetSession("page-3")
	charts.Library() // an explicit copy counts as the session's
	if strings.Contains(charts.Throughput(summaryFrame()).HTML(), libMarker) {
		t.Fatalf("after charts.Library() in a session its next chart carries the library again")
	}
}

func TestLibraryScriptIsAMDSafe(t *testing.T) {
	s, err := charts.LibraryScript()
	if err != nil {
		t.Skipf("no ECharts bundle (run scripts/setup.sh): %v", err)
	}
	if !strings.Contains(s, "(function (define, exports, module) {") || !strings.Contains(s, "}).call(window); }") {
		t.Fatalf("library not wrapped against AMD loaders")
	}
	body := strings.TrimSuffix(s, "</script>")
	if strings.Contains(strings.ToLower(body), "</script") {
		t.Fatalf("library text closes its <script> early")
	}
	if !strings.HasPrefix(charts.LibraryInfo(), "embedded 5.") && !strings.Contains(charts.LibraryInfo(), "echarts.min.js") {
		t.Fatalf("LibraryInfo() = %q", charts.LibraryInfo())
	}
	charts.UseCDN("https://cdn.example/echarts@5.6.0/dist/echarts.min.js")
	cdn, err := charts.LibraryScript()
	charts.UseCDN("")
	if err != nil || !strings.Contains(cdn, "require.config") || !strings.Contains(cdn, `"https://cdn.example/echarts@5.6.0/dist/echarts.min"`) {
		t.Fatalf("CDN script = %q, %v", cdn, err)
	}
}

// recorder is a display.Publisher that keeps what it was sent.
type recorder struct {
	mu      sync.Mutex
	shown   []display.Data
	updated []display.Data
}

func (r *recorder) Display(d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shown = append(r.shown, d)
	return nil
}

func (r *recorder) Update(id string, d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id != d.DisplayID() {
		return errors.New("id mismatch")
	}
	r.updated = append(r.updated, d)
	return nil
}

func (r *recorder) Clear(bool) error { return nil }

func TestLiveUpdatesInPlaceKeepingLibrary(t *testing.T) {
	if _, err := charts.LibraryScript(); err != nil {
		t.Skipf("no ECharts bundle (run scripts/setup.sh): %v", err)
	}
	charts.ResetPage()
	rec := &recorder{}
	restore := display.SetPublisher(rec)
	defer restore()
	live := charts.NewLive()
	for i := 1; i <= 3; i++ {
		part := seriesFrame().Filter(func(r frame.Row) bool { return r["t_s"].(float64) < float64(i*5) })
		if err := live.Show(charts.OverTime(part, "rps")); err != nil {
			t.Fatal(err)
		}
	}
	if len(rec.shown) != 1 || len(rec.updated) != 2 {
		t.Fatalf("Display %d, Update %d times; want 1 and 2", len(rec.shown), len(rec.updated))
	}
	for i, d := range append(rec.shown, rec.updated...) {
		if d.DisplayID() != live.ID() {
			t.Fatalf("version %d has display id %q; want %q", i, d.DisplayID(), live.ID())
		}
		if !strings.Contains(d.Data[display.MIMETypeHTML].(string), libMarker) {
			t.Fatalf("version %d of the live output lost the library", i)
		}
	}
}

func TestRenderBundle(t *testing.T) {
	t.Parallel()
	d, ok := display.Render(charts.Throughput(summaryFrame()))
	if !ok {
		t.Fatal("display.Render does not know a chart")
	}
	for _, mime := range []string{display.MIMETypeHTML, display.MIMETypeSVG, display.MIMETypeText} {
		if s, _ := d.Data[mime].(string); s == "" {
			t.Errorf("bundle lacks %s", mime)
		}
	}
	g, ok := display.Render(charts.Timeline(seriesFrame()))
	if !ok || strings.Count(g.Data[display.MIMETypeHTML].(string), `data-conclab-chart="1"`) != 2 {
		t.Fatal("a Timeline group does not render two charts")
	}
}

func TestReport(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	r := charts.NewReport("Sleep <100 ms>").Add(
		"## Results\nThe **sync** handler serialises.",
		summaryFrame(),
		charts.Throughput(summaryFrame()),
		charts.Timeline(seriesFrame()),
		charts.Throughput(nil),
		display.SVG(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`),
		display.PNG([]byte{0x89, 'P', 'N', 'G'}),
		errors.New("load generator saturated"),
		nil,
	)
	if r.Len() != 8 {
		t.Fatalf("Len() = %d; want 8 (nil skipped)", r.Len())
	}
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"<title>Sleep &lt;100 ms&gt;</title>", "<h2>Results</h2>", "<strong>sync</strong>",
		`class="conclab-frame"`, `data:image/png;base64,iVBORw==`, "load generator saturated", "the frame is nil", "<svg"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(page, `data-conclab-chart="1"`); n != 3 {
		t.Errorf("report has %d chart containers; want 3", n)
	}
	if _, err := charts.LibraryScript(); err == nil && strings.Count(page, libMarker) != 1 {
		t.Errorf("report embeds the library %d times; want 1", strings.Count(page, libMarker))
	}
	if err := charts.NewReport("x").Add(charts.Throughput(summaryFrame())).WriteHTML(failWriter{}); err == nil {
		t.Error("WriteHTML to a failing writer returned nil")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestSourceVsMeasuredNamesGaps(t *testing.T) {
	t.Parallel()
	c := charts.SourceVsMeasured(sourceFrame(), summaryFrame(), "rps")
	notes := strings.Join(c.Notes(), "; ")
	if notes != "no source figure for ProcessPool, goroutines" {
		t.Fatalf("Notes() = %q; want the strategies without a source figure named", notes)
	}
}

func TestModelVsRealNamesDisagreement(t *testing.T) {
	t.Parallel()
	c := charts.ModelVsReal(agreementFrame(), "elapsed_s")
	notes := strings.Join(c.Notes(), "; ")
	if !strings.Contains(notes, "/async-block: model 10, real 14") || strings.Contains(notes, "/sync-sleep") {
		t.Fatalf("Notes() = %q; want the disagreeing row, and only it, named", notes)
	}
}

// Rows match on strategy even when other label columns describe them
// differently on each side (source 004's "rows" note vs the measured order).
func TestSourceVsMeasuredMatchesOnStrategy(t *testing.T) {
	t.Parallel()
	src := frame.New("source")
	src.MustAppend(frame.Row{"strategy": "sync / sync", "rows": "in order", "vs_sync": 1.0})
	src.MustAppend(frame.Row{"strategy": "aiohttp / sync", "rows": "shuffled", "vs_sync": 0.2})
	meas := frame.New("measured")
	meas.MustAppend(frame.Row{"strategy": "sync / sync", "order": "ABC", "vs_sync": 1.0})
	meas.MustAppend(frame.Row{"strategy": "aiohttp / sync", "order": "CAB", "vs_sync": 0.05})
	c := charts.SourceVsMeasured(src, meas, "vs_sync")
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	if n := c.Notes(); len(n) != 0 {
		t.Fatalf("Notes() = %q; want every strategy matched", n)
	}
	if opt := c.Option(); strings.Contains(opt, "in order") || strings.Contains(opt, "CAB") {
		t.Fatalf("categories carry descriptive labels: %s", opt)
	}
}

// A strategy that appears twice (two loads) keeps both rows apart.
func TestSourceVsMeasuredKeepsRepeatedStrategies(t *testing.T) {
	t.Parallel()
	src := frame.New("source")
	src.MustAppend(frame.Row{"strategy": "/sync-sleep", "load": "burst 10", "waits": 1.0})
	src.MustAppend(frame.Row{"strategy": "/sync-sleep", "load": "burst 100", "waits": 3.0})
	meas := frame.New("measured")
	meas.MustAppend(frame.Row{"strategy": "/sync-sleep", "load": "burst 10", "waits": 1.1})
	meas.MustAppend(frame.Row{"strategy": "/sync-sleep", "load": "burst 100", "waits": 3.2})
	c := charts.SourceVsMeasured(src, meas, "waits")
	opt := c.Option()
	if !strings.Contains(opt, "burst 100") || !strings.Contains(opt, "3.2") {
		t.Fatalf("the second load's row was dropped: %s", opt)
	}
}
