package charts_test

import (
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/charts"
	"github.com/conclab/conclab/display"
)

// payload is the MIMEType JSON as a front end reads it.
type payload struct {
	Charts []struct {
		Title   string   `json:"title"`
		Option  string   `json:"option"`
		Width   int      `json:"width"`
		Height  int      `json:"height"`
		Notes   []string `json:"notes"`
		Problem string   `json:"problem"`
	} `json:"charts"`
}

func mimePayload(t *testing.T, d display.Data) (payload, bool) {
	t.Helper()
	v, ok := d.Data[charts.MIMEType]
	if !ok {
		return payload{}, false
	}
	// What the kernel and the notebook writer do with a bundle entry.
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s does not marshal: %v", charts.MIMEType, err)
	}
	var p payload
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("%s is not the documented payload: %v: %s", charts.MIMEType, err, b)
	}
	return p, true
}

func TestMIMEBundle(t *testing.T) {
	t.Parallel()
	twoBad := charts.NewGroup(charts.Throughput(summaryFrame()), charts.Throughput(frame.New("empty")))
	tests := []struct {
		name     string
		v        display.Renderer
		charts   int // entries; 0: no MIMEType entry at all
		problems int
		notes    string
	}{
		{"throughput", charts.Throughput(summaryFrame()), 1, 0, ""},
		{"latency log", charts.Latency(summaryFrame()).LogY().Size(700, 300), 1, 0, ""},
		{"timeline group", charts.Timeline(seriesFrame()), 2, 0, ""},
		{"group with a bad chart", twoBad, 2, 1, ""},
		{"waterfall", charts.Waterfall(traceFrame("model", 50)), 1, 0, ""},
		{"lanes", charts.Lanes(traceFrame("model", 5)), 1, 0, ""},
		{"NaN left out", charts.Throughput(nanFrame()), 1, 0, "missing or not finite"},
		{"empty frame: a problem box only", charts.Throughput(frame.New("empty")), 0, 0, ""},
		{"bad trace: a problem box only", charts.Waterfall(summaryFrame()), 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := tt.v.Render()
			p, ok := mimePayload(t, d)
			if tt.charts == 0 {
				if ok {
					t.Fatalf("a chart that cannot be drawn has a %s entry", charts.MIMEType)
				}
				if !strings.Contains(d.Data[display.MIMETypeHTML].(string), `data-conclab-problem="1"`) {
					t.Fatal("its HTML is not the problem box")
				}
				return
			}
			if !ok {
				t.Fatalf("bundle lacks %s", charts.MIMEType)
			}
			for _, mime := range []string{display.MIMETypeHTML, display.MIMETypeText} {
				if s, _ := d.Data[mime].(string); s == "" {
					t.Errorf("bundle lacks %s beside %s", mime, charts.MIMEType)
				}
			}
			if len(p.Charts) != tt.charts {
				t.Fatalf("%d charts in the payload; want %d", len(p.Charts), tt.charts)
			}
			problems := 0
			for i, c := range p.Charts {
				if c.Problem != "" {
					problems++
					if len(c.Option) != 0 || !strings.HasPrefix(c.Problem, "Cannot draw") {
						t.Errorf("chart %d: problem entry %+v", i, c)
					}
					continue
				}
				var opt map[string]any
				if err := json.Unmarshal([]byte(c.Option), &opt); err != nil {
					t.Fatalf("chart %d: option is not a JSON object: %v", i, err)
				}
				if s, _ := opt["series"].([]any); len(s) == 0 {
					t.Errorf("chart %d: option has no series", i)
				}
				if c.Width < 200 || c.Height < 120 || c.Title == "" {
					t.Errorf("chart %d: title %q, size %dx%d", i, c.Title, c.Width, c.Height)
				}
			}
			if problems != tt.problems {
				t.Errorf("%d problem entries; want %d", problems, tt.problems)
			}
			if notes := strings.Join(p.Charts[0].Notes, "; "); !strings.Contains(notes, tt.notes) {
				t.Errorf("notes %q; want %q", notes, tt.notes)
			}
		})
	}
	p, _ := mimePayload(t, charts.Latency(summaryFrame()).Size(700, 300).Render())
	if p.Charts[0].Width != 700 || p.Charts[0].Height != 300 {
		t.Errorf("Size(700, 300) gives %dx%d in the payload", p.Charts[0].Width, p.Charts[0].Height)
	}
}

func nanFrame() *frame.Frame {
	f := frame.New("with NaN")
	f.MustAppend(frame.Row{"strategy": "sync", "rps": 10.0})
	f.MustAppend(frame.Row{"strategy": "asyncio", "rps": 3.0})
	f.MustAppend(frame.Row{"strategy": "ThreadPool", "rps": math.NaN()})
	return f
}

// Every function an option names is one render.js holds: an unknown name
// would fail in the browser only.
func TestOptionHooksAreInRenderJS(t *testing.T) {
	t.Parallel()
	js, err := os.ReadFile("render.js")
	if err != nil {
		t.Fatal(err)
	}
	var opts []string
	for _, v := range allViews() {
		switch c := v.(type) {
		case *charts.Chart:
			opts = append(opts, c.Option())
		case *charts.Group:
			for _, c := range c.Charts() {
				opts = append(opts, c.Option())
			}
		}
	}
	opts = append(opts, charts.Waterfall(traceFrame("model", 5)).Option(), charts.Lanes(traceFrame("model", 5)).Option())
	names := map[string]bool{}
	for _, o := range opts {
		for _, m := range regexp.MustCompile(`"conclab:([A-Za-z]+)"`).FindAllStringSubmatch(o, -1) {
			names[m[1]] = true
		}
	}
	for _, want := range []string{"number", "label", "intervalBar", "intervalTooltip"} {
		if !names[want] {
			t.Errorf("no option names conclab:%s (names: %v)", want, names)
		}
	}
	for n := range names {
		if !regexp.MustCompile(`(?m)^\s+` + n + `: `).Match(js) {
			t.Errorf("options name conclab:%s, which render.js does not define", n)
		}
	}
}

// Chart text reaches the page only as escaped JSON: a title cannot end the
// chart's <script> or start markup.
func TestHTMLEscapesOptionText(t *testing.T) {
	t.Parallel()
	h := charts.Throughput(summaryFrame()).Title(`</script><img src=x onerror=alert(1)>`).HTML()
	if strings.Contains(h, "</script><img") || strings.Contains(h, "<img src=x") {
		t.Fatalf("the title reaches the HTML unescaped: %.400s", h)
	}
	if !strings.Contains(h, `\u003c/script\u003e\u003cimg src=x onerror=alert(1)\u003e`) {
		t.Fatalf("the title is not in the option as escaped JSON")
	}
	if n := strings.Count(h, "window.conclabCharts"); n == 0 {
		t.Fatalf("the chart's script does not draw through render.js")
	}
}

func TestLiveCarriesMIMEType(t *testing.T) {
	t.Parallel()
	live := charts.NewLive()
	for i, sub := range []string{"update 1", "update 2"} {
		d := live.Bundle(charts.Latency(summaryFrame()).Subtitle(sub))
		p, ok := mimePayload(t, d)
		if !ok || d.DisplayID() != live.ID() {
			t.Fatalf("version %d: %s present %v, display id %q", i, charts.MIMEType, ok, d.DisplayID())
		}
		if !strings.Contains(p.Charts[0].Option, `"subtext":"`+sub+`"`) {
			t.Fatalf("version %d does not carry its subtitle %q", i, sub)
		}
	}
	g, ok := mimePayload(t, live.Bundle(charts.Timeline(seriesFrame())))
	if !ok || len(g.Charts) != 2 {
		t.Fatalf("a Live group: %s present %v, %d charts", charts.MIMEType, ok, len(g.Charts))
	}
}
