package charts

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/conclab/conclab/bench/trace"
	"github.com/conclab/conclab/display"
)

// PhaseColors are the fixed colours of trace phases in Waterfall and Lanes:
// waits warm and pale, the GIL red (waiting) and orange (held, or CPU work
// holding it), I/O blue, the blocked loop purple.
var PhaseColors = map[string]string{
	trace.Queue:        "#bab0ac",
	trace.LimiterWait:  "#9c755f",
	trace.ExecutorWait: "#d4a6c8",
	trace.ThreadWait:   "#ff9da7",
	trace.GILWait:      "#e15759",
	trace.CPU:          "#f28e2b",
	trace.CPUNoGIL:     "#edc948",
	trace.IO:           "#4e79a7",
	trace.Write:        "#76b7b2",
	trace.Pool:         "#59a14f",
	trace.Respond:      "#8cd17d",
	trace.GIL:          "#f28e2b",
	trace.LoopBlocked:  "#b07aa1",
	trace.Accept:       "#79706e",
	trace.Handler:      "#a0cbe8",
	trace.Framework:    "#d37295",
}

func phaseColor(p string) string {
	if c, ok := PhaseColors[p]; ok {
		return c
	}
	return ColorOf(p)
}

// bar is one interval drawn on a row: band 0 fills the row, 1, 2 and 3 its
// top, middle and bottom thirds.
type bar struct {
	row        int
	start, end float64
	phase      string
	req        int64
	label      string // the tooltip's line: thread, or lane
	band       int
}

// IntervalChart draws intervals of time on rows — a request waterfall or
// per-thread lanes (Waterfall, Lanes) — in ECharts with the same static SVG
// fallback as a Chart, and renders the same ways (Render, HTML, SVG, in a
// Report). A chart built from bad input draws a box saying what is wrong,
// and Err returns it. The setters chain. It is safe for concurrent use.
type IntervalChart struct {
	mu         sync.Mutex
	title      string
	subtitle   string
	yName      string
	rows       []string
	bars       []bar
	phases     []string // legend order: those present
	notes      []string
	problem    string
	width      int
	height     int
	carriesLib bool
	xMax       float64
}

func newIntervalChart(title string) *IntervalChart {
	return &IntervalChart{title: title, width: DefaultWidth, height: DefaultHeight}
}

func intervalProblem(title, msg string) *IntervalChart {
	c := newIntervalChart(title)
	c.problem = msg
	c.height = 120
	return c
}

// Title sets the chart's title.
func (c *IntervalChart) Title(t string) *IntervalChart {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.title = t
	return c
}

// Subtitle sets the line under the title (the view puts what it sampled
// or merged there; setting it replaces that, the notes keep it).
func (c *IntervalChart) Subtitle(s string) *IntervalChart {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subtitle = s
	return c
}

// Size sets the maximum width and the height in CSS pixels (at least 200
// and 120).
func (c *IntervalChart) Size(width, height int) *IntervalChart {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.width, c.height = max(width, 200), max(height, 120)
	return c
}

// Err returns the problem with the chart's input, or nil.
func (c *IntervalChart) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.problem != "" {
		return errors.New(c.problem)
	}
	return nil
}

// Notes returns the remarks shown under the chart (sampling, merging).
func (c *IntervalChart) Notes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.notes...)
}

// Rows returns the row labels, top to bottom.
func (c *IntervalChart) Rows() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.rows...)
}

// Phases returns the phases drawn, in legend order.
func (c *IntervalChart) Phases() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.phases...)
}

// Bars returns the number of intervals drawn.
func (c *IntervalChart) Bars() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.bars)
}

// String describes the chart in one line.
func (c *IntervalChart) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.problem != "" {
		return fmt.Sprintf("chart %q: %s", c.title, c.problem)
	}
	return fmt.Sprintf("chart %q: %d rows, %d intervals", c.title, len(c.rows), len(c.bars))
}

// gridLeft is the plot's left edge: room for the row labels.
func (c *IntervalChart) gridLeft() float64 {
	w := 40.0
	for _, r := range c.rows {
		w = math.Max(w, textWidth(r, 11)+14)
	}
	return math.Min(w, 220)
}

func (c *IntervalChart) option(id string) string {
	gridTop := 84
	if c.subtitle != "" {
		gridTop = 100
	}
	legendTop := gridTop - 30
	type obj = map[string]any
	// A bar's tooltip line (its thread or lane) is an index into one table
	// of them: the same few names repeat over thousands of bars.
	var labels []string
	labelIndex := map[string]int{}
	var series []any
	for _, p := range c.phases {
		var data [][]any
		for _, b := range c.bars {
			if b.phase == p {
				li, ok := labelIndex[b.label]
				if !ok {
					li = len(labels)
					labelIndex[b.label] = li
					labels = append(labels, b.label)
				}
				data = append(data, []any{b.row, round3(b.start), round3(b.end), b.req, li, b.band})
			}
		}
		series = append(series, obj{
			"type": "custom", "name": p, "renderItem": "conclab:intervalBar",
			"itemStyle":   obj{"color": phaseColor(p)},
			"encode":      obj{"x": []int{1, 2}, "y": 0},
			"data":        data,
			"progressive": 0, "animation": false,
		})
	}
	labelEvery := 0
	if n := len(c.rows); n > 40 {
		labelEvery = n/25 - 1
	}
	o := obj{
		"animation": false,
		"title": obj{"text": c.title, "subtext": c.subtitle, "left": "center", "top": "6",
			"textStyle": obj{"fontSize": 16}},
		"legend":  obj{"show": true, "type": "scroll", "top": fmt.Sprint(legendTop), "left": "center", "data": c.phases},
		"tooltip": obj{"show": true, "trigger": "item", "formatter": "conclab:intervalTooltip"},
		"grid":    obj{"top": fmt.Sprint(gridTop), "left": fmt.Sprint(int(c.gridLeft())), "right": "30", "bottom": "50"},
		"xAxis": obj{"type": "value", "name": "time (ms)", "nameLocation": "middle", "nameGap": 28, "min": 0,
			"max": niceMax(c.xMax)},
		"yAxis": obj{"type": "category", "data": c.rows, "inverse": true,
			"axisLabel": obj{"interval": labelEvery, "fontSize": 11}, "axisTick": obj{"show": false},
			"splitLine": obj{"show": len(c.rows) <= 60}},
		"series": series,
		// Not ECharts': the tables the named functions read (render.js
		// takes it out of the option before drawing).
		"conclab": obj{"labels": labels},
	}
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(o)
	_ = id
	return strings.TrimSpace(buf.String())
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// svgNum prints a coordinate to a tenth of a pixel, without a trailing ".0".
func svgNum(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// niceMax rounds the end of the time axis up to a tick.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	s := newScale(0, v, false, 0, 1)
	return s.hi
}

// Option returns the chart's ECharts option as JSON: the item renderer and
// the tooltip are named "conclab:intervalBar" and "conclab:intervalTooltip",
// functions the chart's renderers hold (see MIMEType), and the tooltip's
// lines are indexes into the option's "conclab" table, which the renderers
// take out before drawing; "" for a problem chart.
func (c *IntervalChart) Option() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.problem != "" {
		return ""
	}
	return c.option("option")
}

// SVG returns a static drawing of the same intervals, for viewers that run
// no scripts.
func (c *IntervalChart) SVG() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.problem != "" {
		return problemSVG(c.title, c.problem)
	}
	return c.svgLocked()
}

func (c *IntervalChart) svgLocked() string {
	W, H := float64(c.width), float64(c.height)
	gridTop := 84.0
	if c.subtitle != "" {
		gridTop = 100
	}
	legendTop := gridTop - 30
	x0, x1 := c.gridLeft(), W-30
	y0, y1 := gridTop, H-50
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">`, W, H, W, H)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="#fff"/>`, W, H)
	fmt.Fprintf(&b, `<text x="%g" y="26" font-size="16" font-weight="bold" text-anchor="middle" fill="#333">%s</text>`, W/2, esc(c.title))
	if c.subtitle != "" {
		fmt.Fprintf(&b, `<text x="%g" y="46" text-anchor="middle" fill="#888">%s</text>`, W/2, esc(c.subtitle))
	}
	total := 0.0
	for _, p := range c.phases {
		total += 25 + textWidth(p, 12) + 10
	}
	x := math.Max(10, (W-total)/2)
	for _, p := range c.phases {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.0f" width="18" height="11" rx="2" fill="%s"/>`, x, legendTop+2, phaseColor(p))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.0f" fill="#333">%s</text>`, x+23, legendTop+12, esc(p))
		x += 25 + textWidth(p, 12) + 10
	}
	sx := newScale(0, c.xMax, false, x0, x1)
	n := float64(max(len(c.rows), 1))
	rowH := (y1 - y0) / n
	for _, t := range sx.ticks {
		px := sx.at(t)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`, px, y0, px, y1)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#666">%s</text>`, px, y1+16, tickLabel(t))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#333">time (ms)</text>`, (x0+x1)/2, y1+36)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>`, x0, y1, x1, y1)
	every := 1
	if len(c.rows) > 40 {
		every = len(c.rows) / 25
	}
	for i, r := range c.rows {
		if i%every != 0 {
			continue
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" font-size="11" fill="#555">%s</text>`, x0-6, y0+(float64(i)+0.5)*rowH+4, esc(r))
	}
	// One path per phase, a rectangle per bar ("M x y h w v h h -w z"): a
	// trace draws thousands of bars, and an element each made the drawing
	// (stored twice in a notebook) several times larger.
	paths := map[string]*strings.Builder{}
	for _, br := range c.bars {
		h := rowH * 0.8
		y := y0 + float64(br.row)*rowH + (rowH-h)/2
		if br.band > 0 {
			h /= 3
			y += float64(br.band-1) * h
		}
		a, e := sx.at(br.start), sx.at(br.end)
		w, hh := math.Max(e-a, 0.6), math.Max(h, 0.6)
		d := paths[br.phase]
		if d == nil {
			d = &strings.Builder{}
			paths[br.phase] = d
		}
		fmt.Fprintf(d, "M%s %sh%sv%sh-%sz", svgNum(a), svgNum(y), svgNum(w), svgNum(hh), svgNum(w))
	}
	for _, p := range c.phases {
		if d := paths[p]; d != nil {
			fmt.Fprintf(&b, `<path class="bars" fill="%s" d="%s"/>`, phaseColor(p), d.String())
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// claim decides whether this render carries the ECharts library.
func (c *IntervalChart) claim() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.problem != "" {
		return false
	}
	if !c.carriesLib && claimLibrary() {
		c.carriesLib = true
	}
	return c.carriesLib
}

// HTML returns the chart as an HTML fragment: the static SVG in a container
// that ECharts replaces once window.echarts exists; the page's first chart
// carries the library (see Chart.HTML).
func (c *IntervalChart) HTML() string { return c.fragment(c.claim()) }

func (c *IntervalChart) fragment(withLib bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.problem != "" {
		return problemBox(fmt.Sprintf("Cannot draw %q: %s", orDefault(c.title, "chart"), c.problem))
	}
	notes := append([]string(nil), c.notes...)
	var b strings.Builder
	notes = openContainer(&b, c.width, withLib, notes)
	writeChart(&b, c.title, c.height, c.svgLocked(), notes, c.option("option"))
	b.WriteString(`</div>`)
	return b.String()
}

// Render returns the display bundle: MIMEType, text/html, image/svg+xml,
// text/plain (see Chart.Render).
func (c *IntervalChart) Render() display.Data {
	d := display.HTML(c.HTML())
	d.Data[display.MIMETypeSVG] = c.SVG()
	d.Data[display.MIMETypeText] = c.String()
	withMIME(d.Data, c.mimeEntry())
	return d
}

// Display shows the chart in the current cell's output.
func (c *IntervalChart) Display() error { return display.Display(c.Render()) }

var _ display.Renderer = (*IntervalChart)(nil)
