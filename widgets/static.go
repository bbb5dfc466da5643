package widgets

import (
	"fmt"
	"html"
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/conclab/conclab/display"
)

// A widget's static form: its text/html, drawn where no widget manager
// runs — `conclab run --html`, nbconvert when the notebook holds no widget
// state, GitHub, an untrusted notebook in JupyterLab (the widget view is
// not a safe MIME type, so an untrusted output shows the HTML instead).
// It shows the controls with their values at the time the widget was
// displayed, greyed out (nothing there can change them), and an Output's
// outputs. Plain HTML and inline styles: no script, no stylesheet, nothing
// fetched.

const (
	staticRow   = `display:flex;align-items:center;gap:8px;margin:2px 0;font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif`
	staticLabel = `min-width:9em;text-align:right;overflow:hidden;text-overflow:ellipsis;white-space:nowrap`
)

// staticHTML returns the widget's static form.
func (m *model) staticHTML() string {
	m.mu.Lock()
	hook := m.static
	m.mu.Unlock()
	if hook != nil {
		return hook()
	}
	m.mu.Lock()
	st, kind := maps.Clone(m.state), m.kind
	m.mu.Unlock()
	name, _ := st["_model_name"].(string)
	desc, _ := st["description"].(string)
	var body string
	switch name {
	case "IntSliderModel", "FloatSliderModel":
		body = fmt.Sprintf(`<input type="range" disabled min="%s" max="%s" step="%s" value="%s" style="width:20em"> <output>%s</output>`,
			num(st["min"]), num(st["max"]), num(st["step"]), num(st["value"]), html.EscapeString(readout(st)))
	case "IntRangeSliderModel":
		v, _ := st["value"].([]any)
		lo, hi := 0, 0
		if len(v) == 2 {
			lo, hi = asInt(v[0]), asInt(v[1])
		}
		min, max := asInt(st["min"]), asInt(st["max"])
		left, width := 0.0, 0.0
		if max > min {
			left, width = 100*float64(lo-min)/float64(max-min), 100*float64(hi-lo)/float64(max-min)
		}
		body = fmt.Sprintf(`<span style="position:relative;display:inline-block;width:20em;height:6px;background:#ccc;border-radius:3px">`+
			`<span style="position:absolute;left:%.1f%%;width:%.1f%%;top:0;bottom:0;background:#2196f3;border-radius:3px"></span></span> <output>%d – %d</output>`,
			left, width, lo, hi)
	case "DropdownModel":
		var b strings.Builder
		b.WriteString(`<select disabled>`)
		for i, o := range labelsOf(st) {
			sel := ""
			if i == asInt(st["index"]) {
				sel = " selected"
			}
			fmt.Fprintf(&b, `<option%s>%s</option>`, sel, html.EscapeString(o))
		}
		b.WriteString(`</select>`)
		body = b.String()
	case "ToggleButtonsModel":
		var b strings.Builder
		for i, o := range labelsOf(st) {
			style := "border:1px solid #bbb;background:#eee;color:#333"
			if i == asInt(st["index"]) {
				style = "border:1px solid #1976d2;background:#1976d2;color:#fff"
			}
			fmt.Fprintf(&b, `<span style="padding:2px 10px;border-radius:2px;%s">%s</span> `, style, html.EscapeString(o))
		}
		body = b.String()
	case "CheckboxModel":
		checked := ""
		if v, _ := st["value"].(bool); v {
			checked = " checked"
		}
		return fmt.Sprintf(`<div class="conclab-widget" style="%s"><span style="%s"></span><label><input type="checkbox" disabled%s> %s</label></div>`,
			staticRow, staticLabel, checked, html.EscapeString(desc))
	case "TextModel":
		v, _ := st["value"].(string)
		body = fmt.Sprintf(`<input type="text" disabled value="%s" style="width:20em">`, html.EscapeString(v))
	case "ButtonModel":
		return fmt.Sprintf(`<div class="conclab-widget" style="%s"><button disabled>%s</button></div>`, staticRow, html.EscapeString(desc))
	case "LabelModel":
		v, _ := st["value"].(string)
		return fmt.Sprintf(`<div class="conclab-widget" style="%s">%s</div>`, staticRow, html.EscapeString(v))
	case "HTMLModel":
		v, _ := st["value"].(string)
		return `<div class="conclab-widget">` + v + `</div>`
	case "IntProgressModel":
		body = fmt.Sprintf(`<progress value="%d" max="%d" style="width:20em"></progress> <output>%d/%d</output>`,
			asInt(st["value"]), asInt(st["max"]), asInt(st["value"]), asInt(st["max"]))
	default:
		return `<pre>` + html.EscapeString(kind) + `</pre>`
	}
	return fmt.Sprintf(`<div class="conclab-widget" style="%s"><span style="%s" title="%s">%s</span>%s</div>`,
		staticRow, staticLabel, html.EscapeString(desc), html.EscapeString(desc), body)
}

// readout is a slider's value as its readout shows it.
func readout(st map[string]any) string {
	if st["_model_name"] == "IntSliderModel" {
		return strconv.Itoa(asInt(st["value"]))
	}
	f := asFloat(st["value"])
	format, _ := st["readout_format"].(string)
	// d3-format's ".Nf" (the kind's default ".2f"); anything else as %g.
	if strings.HasPrefix(format, ".") && strings.HasSuffix(format, "f") {
		if n, err := strconv.Atoi(format[1 : len(format)-1]); err == nil && n >= 0 && n <= 12 {
			return strconv.FormatFloat(f, 'f', n, 64)
		}
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func num(v any) string {
	f := asFloat(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "0"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func labelsOf(st map[string]any) []string {
	ls, _ := st["_options_labels"].([]any)
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i], _ = l.(string)
	}
	return out
}

// boxHTML is a box's static form: its children in a row or a column.
func boxHTML(kind string, children []Widget) string {
	dir := "column"
	if kind == "HBox" {
		dir = "row;flex-wrap:wrap;gap:4px 16px"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="conclab-widget-box" style="display:flex;flex-direction:%s">`, dir)
	for _, c := range children {
		if c != nil {
			b.WriteString(c.base().staticHTML())
		}
	}
	b.WriteString(`</div>`)
	return b.String()
}

// outputsHTML is an Output's outputs as static HTML: a display's richest
// format of text/html, image/svg+xml, image/png, image/jpeg, text/plain;
// stream text and errors as preformatted text.
func outputsHTML(entries []outEntry) string {
	var b strings.Builder
	b.WriteString(`<div class="conclab-widget-output">`)
	for _, e := range entries {
		switch e.out["output_type"] {
		case "stream":
			s, _ := e.out["text"].(string)
			color := ""
			if e.out["name"] == "stderr" {
				color = "background:#fdd;"
			}
			fmt.Fprintf(&b, `<pre style="%smargin:0">%s</pre>`, color, html.EscapeString(s))
		case "error":
			fmt.Fprintf(&b, `<pre style="background:#fdd;margin:0">%s: %s</pre>`,
				html.EscapeString(fmt.Sprint(e.out["ename"])), html.EscapeString(fmt.Sprint(e.out["evalue"])))
		case "display_data":
			data, _ := e.out["data"].(map[string]any)
			b.WriteString(bundleHTML(data))
		}
	}
	b.WriteString(`</div>`)
	return b.String()
}

// bundleHTML draws one display bundle (as nbformat stores it) in HTML.
func bundleHTML(data map[string]any) string {
	if s, ok := data[display.MIMETypeHTML].(string); ok {
		return `<div>` + s + `</div>`
	}
	if s, ok := data[display.MIMETypeSVG].(string); ok {
		return `<div>` + s + `</div>`
	}
	for _, t := range []string{display.MIMETypePNG, display.MIMETypeJPEG} {
		if s, ok := data[t].(string); ok {
			return fmt.Sprintf(`<img src="data:%s;base64,%s">`, t, html.EscapeString(strings.TrimSpace(s)))
		}
	}
	if s, ok := data[display.MIMETypeText].(string); ok {
		return `<pre style="margin:0">` + html.EscapeString(s) + `</pre>`
	}
	return ""
}
