package charts

import (
	"encoding/json"
	"fmt"
)

// MIMEType is the MIME type of a chart's own output: JSON holding the
// ECharts option of each chart of the output, its size and its notes, drawn
// by conclab's JupyterLab extension (JupyterLab 4, Notebook 7, Voilà):
//
//	{"charts": [{"title": "...", "option": "{...}", "width": 900, "height": 420, "notes": ["..."]},
//	            {"problem": "Cannot draw ..."}]}
//
// The option is JSON text in a string: a saved notebook stores a JSON
// output indented, one array element per line, which made a waterfall's
// data five times its size; a string stays on one line.
// A chart's bundle carries it beside text/html (the chart drawn by its own
// script, for nbconvert, `conclab run --html` and front ends without the
// extension), image/svg+xml (viewers that run no scripts) and text/plain.
// Functions in the option are strings "conclab:NAME" that the renderers
// resolve (charts/render.js); the version in the type changes when the
// payload does in a way an older extension cannot draw.
const MIMEType = "application/vnd.conclab.echarts.v1+json"

// mimeChart is one chart of a MIMEType payload.
type mimeChart struct {
	Title   string   `json:"title,omitempty"`
	Option  string   `json:"option,omitempty"`
	Width   int      `json:"width,omitempty"`
	Height  int      `json:"height,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	Problem string   `json:"problem,omitempty"`
}

// mimePayload is the MIMEType JSON of an output.
type mimePayload struct {
	Charts []mimeChart `json:"charts"`
}

// mimeData returns the MIMEType value of an output of charts, or nil when
// none of them can be drawn (a problem box alone needs no renderer).
func mimeData(charts ...mimeChart) json.RawMessage {
	drawable := false
	for _, c := range charts {
		drawable = drawable || c.Problem == ""
	}
	if !drawable {
		return nil
	}
	b, err := json.Marshal(mimePayload{Charts: charts})
	if err != nil {
		// Options are built from finite numbers and strings; a failure here
		// is a bug, and the output still has its text/html.
		return nil
	}
	return b
}

// mimeEntry describes the chart for its MIMEType output.
func (c *Chart) mimeEntry() mimeChart {
	c.mu.Lock()
	defer c.mu.Unlock()
	ss, notes, problem := c.checkPoints()
	if problem != "" {
		return mimeChart{Title: c.title, Problem: fmt.Sprintf("Cannot draw %q: %s", orDefault(c.title, "chart"), problem)}
	}
	return mimeChart{Title: c.title, Option: c.option(ss, "option"), Width: c.width, Height: c.height, Notes: notes}
}

// mimeEntry describes the chart for its MIMEType output.
func (c *IntervalChart) mimeEntry() mimeChart {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.problem != "" {
		return mimeChart{Title: c.title, Problem: fmt.Sprintf("Cannot draw %q: %s", orDefault(c.title, "chart"), c.problem)}
	}
	return mimeChart{Title: c.title, Option: c.option("option"), Width: c.width, Height: c.height,
		Notes: append([]string(nil), c.notes...)}
}

// withMIME adds the MIMEType entry for charts to a bundle's data, when any
// of them can be drawn.
func withMIME(data map[string]any, charts ...mimeChart) {
	if m := mimeData(charts...); m != nil {
		data[MIMEType] = m
	}
}
