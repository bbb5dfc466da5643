package charts

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	gecharts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

	"github.com/conclab/conclab/display"
)

// Default chart size in CSS pixels. The width is a maximum: a chart fills a
// narrower output area.
const (
	DefaultWidth  = 900
	DefaultHeight = 420
)

type kind int

const (
	barKind kind = iota
	lineKind
)

// series is one named series of the model both renderers draw from.
type series struct {
	name    string
	color   string
	stack   string
	opacity float64   // 0 means 1
	ys      []float64 // per category (bars) or per point (lines); NaN = missing
	xs      []float64 // numeric x per point (lines)
	// itemColors colours each bar by its category (one-series bar charts
	// whose categories are strategies).
	itemColors []string
	// absentOK marks NaN values as expected gaps (no note about them).
	absentOK bool
}

// Chart is a chart of a result frame. It renders itself in a notebook (HTML
// with ECharts, and a static SVG of the same data for viewers that run no
// scripts), in a Report, and on any page that follows the package's
// embedding contract. A chart built from bad input (no rows, missing
// columns, no finite values) is still a Chart: it draws a box saying what was
// wrong, and Err returns the same message.
//
// The setters (Title, LogY, Size, ...) change the chart and return it, so
// they chain: charts.Latency(f).LogY().Title("...").
// A Chart is safe for concurrent use.
type Chart struct {
	mu         sync.Mutex
	title      string
	subtitle   string
	kind       kind
	categories []string
	xName      string
	yName      string
	xNumeric   bool
	xLog, yLog bool
	series     []series
	notes      []string
	problem    string
	width      int
	height     int
	carriesLib bool
}

func newChart(title string) *Chart {
	return &Chart{title: title, width: DefaultWidth, height: DefaultHeight}
}

// problemChart returns a chart that shows msg instead of data.
func problemChart(title, msg string) *Chart {
	c := newChart(title)
	c.problem = msg
	c.height = 120
	return c
}

// Err returns the problem with the chart's input, or nil when it has data to
// draw. Notes about dropped values (NaN, non-positive values on a log axis)
// are not errors; they are shown under the chart.
func (c *Chart) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, _, problem := c.checkPoints(); problem != "" {
		return errors.New(problem)
	}
	return nil
}

// Notes returns the remarks shown under the chart (values left out and why).
func (c *Chart) Notes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, notes, _ := c.checkPoints()
	return notes
}

// Title sets the chart's title.
func (c *Chart) Title(title string) *Chart {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.title = title
	return c
}

// Subtitle sets the line under the title.
func (c *Chart) Subtitle(s string) *Chart {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subtitle = s
	return c
}

// LogY draws the value axis on a log scale (latencies spanning decades).
// Values that are not positive cannot be drawn on it and are left out with a
// note.
func (c *Chart) LogY() *Chart {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.yLog = true
	return c
}

// LogX draws a numeric x axis (CDF latencies, sweeps) on a log scale; it has
// no effect on category axes.
func (c *Chart) LogX() *Chart {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.xNumeric {
		c.xLog = true
	}
	return c
}

// Size sets the chart's maximum width and its height in CSS pixels; values
// below 200 (width) or 120 (height) are raised to those.
func (c *Chart) Size(width, height int) *Chart {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.width = max(width, 200)
	c.height = max(height, 120)
	return c
}

// SeriesNames returns the names of the chart's series in drawing order.
func (c *Chart) SeriesNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, len(c.series))
	for i, s := range c.series {
		out[i] = s.name
	}
	return out
}

// String describes the chart in one line (the text/plain of its bundle).
func (c *Chart) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.problem != "" {
		return fmt.Sprintf("chart %q: %s", c.title, c.problem)
	}
	return fmt.Sprintf("chart %q: %d series", c.title, len(c.series))
}

// checkPoints removes values that cannot be drawn (NaN, ±Inf, and
// non-positive values on a log axis) and records notes; it turns the chart
// into a problem chart when nothing drawable is left. Called with c.mu held.
func (c *Chart) checkPoints() (series []series, notes []string, problem string) {
	if c.problem != "" {
		return nil, c.notes, c.problem
	}
	notes = append(notes, c.notes...)
	nonFinite, nonPos, drawable := 0, 0, 0
	for _, s := range c.series {
		t := s
		t.ys = append([]float64(nil), s.ys...)
		t.xs = append([]float64(nil), s.xs...)
		for i, y := range t.ys {
			bad := math.IsNaN(y) || math.IsInf(y, 0)
			if c.xNumeric && i < len(t.xs) && (math.IsNaN(t.xs[i]) || math.IsInf(t.xs[i], 0)) {
				bad = true
			}
			switch {
			case bad:
				if !(s.absentOK && math.IsNaN(y)) {
					nonFinite++
				}
				t.ys[i] = math.NaN()
			case c.yLog && y <= 0, c.xLog && i < len(t.xs) && t.xs[i] <= 0:
				nonPos++
				t.ys[i] = math.NaN()
			default:
				drawable++
			}
		}
		series = append(series, t)
	}
	if nonFinite > 0 {
		notes = append(notes, fmt.Sprintf("%d value(s) missing or not finite (NaN/Inf) left out", nonFinite))
	}
	if nonPos > 0 {
		notes = append(notes, fmt.Sprintf("%d value(s) ≤ 0 left out of the log axis", nonPos))
	}
	if drawable == 0 {
		return nil, notes, "no finite values to draw (" + strings.Join(notes, "; ") + ")"
	}
	return series, notes, ""
}

// The functions an option names, resolved by the renderers from
// charts/render.js (an option is JSON, so that an untrusted notebook's
// output only draws): numbers printed compactly (integers from 100, 3
// significant digits below 1) in tooltips and on top of bars.
const (
	hookNumber types.FuncStr = "conclab:number"
	hookLabel  types.FuncStr = "conclab:label"
)

// layout returns the top offsets of the legend and the plot area.
func (c *Chart) layout(nseries int) (legendTop, gridTop int) {
	legendTop = 36
	if c.subtitle != "" {
		legendTop = 54
	}
	gridTop = legendTop + 14
	if nseries > 1 {
		gridTop = legendTop + 42
	}
	return
}

// option builds the ECharts option JSON with go-echarts (functions named
// "conclab:NAME", see render.js). Called with c.mu held and drawable series.
func (c *Chart) option(ss []series, id string) string {
	legendTop, gridTop := c.layout(len(ss))
	global := []gecharts.GlobalOpts{
		gecharts.WithInitializationOpts(opts.Initialization{ChartID: id}),
		gecharts.WithAnimation(false),
		gecharts.WithTitleOpts(opts.Title{Title: c.title, Subtitle: c.subtitle, Left: "center", Top: "6",
			TitleStyle: &opts.TextStyle{FontSize: 16}}),
		gecharts.WithLegendOpts(opts.Legend{Show: opts.Bool(len(ss) > 1), Type: "scroll",
			Top: fmt.Sprint(legendTop), Left: "center"}),
		gecharts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis",
			ValueFormatter: hookNumber}),
		gecharts.WithGridOpts(opts.Grid{Top: fmt.Sprint(gridTop), Left: "70", Right: "40", Bottom: "55"}),
	}
	yAxis := opts.YAxis{Name: c.yName, Type: "value", NameLocation: "middle", NameGap: 52}
	if c.yLog {
		yAxis.Type = "log"
		lo := math.Inf(1)
		for _, s := range ss {
			for _, y := range s.ys {
				if !math.IsNaN(y) {
					lo = math.Min(lo, y)
				}
			}
		}
		yAxis.Min = logFloor(lo)
	}
	global = append(global, gecharts.WithYAxisOpts(yAxis))
	if c.kind == barKind {
		rotate := 0.0
		if len(c.categories) > 6 {
			rotate = 30
		}
		global = append(global, gecharts.WithXAxisOpts(opts.XAxis{Name: c.xName, Type: "category",
			NameLocation: "middle", NameGap: 32,
			AxisLabel: &opts.AxisLabel{Interval: "0", Rotate: rotate, ShowMinLabel: opts.Bool(true), ShowMaxLabel: opts.Bool(true)}}))
		bar := gecharts.NewBar()
		bar.SetGlobalOptions(global...)
		bar.SetXAxis(c.categories)
		for _, s := range ss {
			data := make([]opts.BarData, len(s.ys))
			for i, y := range s.ys {
				d := opts.BarData{Value: "-"}
				if !math.IsNaN(y) {
					d.Value = y
				}
				if i < len(s.itemColors) {
					d.ItemStyle = &opts.ItemStyle{Color: s.itemColors[i]}
				}
				data[i] = d
			}
			style := opts.ItemStyle{Color: s.color}
			if s.opacity > 0 && s.opacity < 1 {
				style.Opacity = opts.Float(float32(s.opacity))
				for i := range data {
					if data[i].ItemStyle != nil {
						data[i].ItemStyle.Opacity = opts.Float(float32(s.opacity))
					}
				}
			}
			seriesOpts := []gecharts.SeriesOpts{gecharts.WithItemStyleOpts(style),
				gecharts.WithBarChartOpts(opts.BarChart{Stack: s.stack, BarGap: "10%", BarCategoryGap: "25%"})}
			if len(ss) == 1 && len(s.itemColors) > 0 {
				// One bar per strategy: print its value on top, so a short bar
				// beside a tall one still reads.
				seriesOpts = append(seriesOpts, gecharts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top",
					Formatter: hookLabel}))
			}
			bar.AddSeries(s.name, data, seriesOpts...)
		}
		bar.Validate()
		return finishJSON(string(bar.JSONNotEscaped()))
	}
	xType := "value"
	if c.xLog {
		xType = "log"
	}
	global = append(global, gecharts.WithXAxisOpts(opts.XAxis{Name: c.xName, Type: xType,
		NameLocation: "middle", NameGap: 30, Scale: opts.Bool(!c.xLog)}))
	line := gecharts.NewLine()
	line.SetGlobalOptions(global...)
	for _, s := range ss {
		var data []opts.LineData
		for i, y := range s.ys {
			if math.IsNaN(y) || i >= len(s.xs) {
				continue
			}
			data = append(data, opts.LineData{Value: []any{s.xs[i], y}})
		}
		line.AddSeries(s.name, data,
			gecharts.WithItemStyleOpts(opts.ItemStyle{Color: s.color}),
			gecharts.WithLineStyleOpts(opts.LineStyle{Color: s.color, Width: 2}),
			gecharts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(len(data) <= 30), SymbolSize: 5}))
	}
	line.Validate()
	return finishJSON(string(line.JSONNotEscaped()))
}

// finishJSON trims go-echarts' JSON.
func finishJSON(s string) string { return strings.TrimSpace(s) }

// Option returns the chart's ECharts option as JSON; the functions it needs
// (the tooltip's number format, ...) are strings "conclab:NAME" that the
// chart's renderers resolve (see MIMEType). It is "" for a problem chart.
func (c *Chart) Option() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ss, _, problem := c.checkPoints()
	if problem != "" {
		return ""
	}
	return c.option(ss, "option")
}

// ids makes element ids unique across renders, processes and pages.
var ids struct {
	prefix string
	n      atomic.Uint64
	once   sync.Once
}

func newElementID() string {
	ids.once.Do(func() {
		var b [4]byte
		_, _ = rand.Read(b[:])
		ids.prefix = "conclab-chart-" + hex.EncodeToString(b[:])
	})
	return fmt.Sprintf("%s-%d", ids.prefix, ids.n.Add(1))
}

// HTML returns the chart as an HTML fragment: a container holding the static
// SVG, and a script that replaces it with the ECharts chart once
// window.echarts exists. The first chart rendered on a page (see ResetPage)
// carries the ECharts library; so does every later render of that same
// chart, so that an output updated in place keeps it.
func (c *Chart) HTML() string {
	withLib := c.claim()
	return c.fragment(withLib)
}

// claim decides whether this render carries the library.
func (c *Chart) claim() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.problem != "" {
		return false
	}
	if c.carriesLib {
		return true
	}
	if claimLibrary() {
		c.carriesLib = true
	}
	return c.carriesLib
}

// Render returns the chart's display bundle: MIMEType (drawn by conclab's
// JupyterLab extension), text/html (HTML), image/svg+xml (SVG, for viewers
// that run no scripts) and text/plain. A chart that cannot be drawn has no
// MIMEType entry: its HTML is the box saying why.
func (c *Chart) Render() display.Data {
	d := display.HTML(c.HTML())
	d.Data[display.MIMETypeSVG] = c.SVG()
	d.Data[display.MIMETypeText] = c.String()
	withMIME(d.Data, c.mimeEntry())
	return d
}

// Display shows the chart in the current cell's output.
func (c *Chart) Display() error { return display.Display(c.Render()) }

var _ display.Renderer = (*Chart)(nil)
