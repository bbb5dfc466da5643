package charts

import (
	"strings"

	"github.com/conclab/conclab/display"
)

// Group is several charts shown as one output, one above the other (e.g.
// Timeline's throughput and latency). Like a Chart, it renders itself.
type Group struct {
	charts []*Chart
}

// NewGroup returns a group of the charts, in order; nil charts are skipped.
func NewGroup(charts ...*Chart) *Group {
	g := &Group{}
	for _, c := range charts {
		if c != nil {
			g.charts = append(g.charts, c)
		}
	}
	return g
}

// Charts returns the group's charts.
func (g *Group) Charts() []*Chart { return append([]*Chart(nil), g.charts...) }

// Err returns the first chart's problem, if any.
func (g *Group) Err() error {
	for _, c := range g.charts {
		if err := c.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (g *Group) fragment(withLib bool) string {
	var b strings.Builder
	b.WriteString(`<div class="conclab-chart-group">`)
	for _, c := range g.charts {
		// The library goes with the first chart that can carry it.
		lib := withLib && c.Err() == nil
		b.WriteString(c.fragment(lib))
		if lib {
			withLib = false
		}
	}
	b.WriteString(`</div>`)
	return b.String()
}

// claim decides whether this render of the group carries the library.
func (g *Group) claim() bool {
	lib := false
	for _, c := range g.charts {
		if c.claim() {
			lib = true
		}
	}
	return lib
}

// HTML returns the charts' HTML, carrying the ECharts library when it is the
// page's first chart output (see Chart.HTML).
func (g *Group) HTML() string { return g.fragment(g.claim()) }

// Render returns the group's display bundle: MIMEType (every chart of the
// group, drawn by conclab's JupyterLab extension), text/html and
// text/plain.
func (g *Group) Render() display.Data {
	d := display.HTML(g.HTML())
	d.Data[display.MIMETypeText] = g.text()
	withMIME(d.Data, g.mimeEntries()...)
	return d
}

func (g *Group) text() string {
	names := make([]string, len(g.charts))
	for i, c := range g.charts {
		names[i] = c.String()
	}
	return strings.Join(names, "\n")
}

func (g *Group) mimeEntries() []mimeChart {
	out := make([]mimeChart, len(g.charts))
	for i, c := range g.charts {
		out[i] = c.mimeEntry()
	}
	return out
}

var _ display.Renderer = (*Group)(nil)
