package charts

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/conclab/conclab/bench/frame"
	"github.com/conclab/conclab/display"
)

// Report is one self-contained HTML page built from frames (tables),
// charts, Markdown text and display bundles, in the order added. The page
// embeds ECharts once in its head (or loads it from the CDN set by UseCDN)
// and needs no network. Used by `conclab load --html` and the notebook
// runner. A Report is not safe for concurrent use.
type Report struct {
	title string
	items []any
}

// NewReport returns an empty report with a title (the page's <title> and
// first heading).
func NewReport(title string) *Report { return &Report{title: title} }

// Add appends items: *frame.Frame (an HTML table), *Chart, *Group, string
// (Markdown), display.Data (its richest format: HTML, SVG, PNG, JPEG,
// Markdown, text), error (shown as a problem box), or any value
// display.Render accepts. nil items are skipped. It returns r, so calls chain.
func (r *Report) Add(items ...any) *Report {
	for _, it := range items {
		if it != nil {
			r.items = append(r.items, it)
		}
	}
	return r
}

// Len is the number of items added.
func (r *Report) Len() int { return len(r.items) }

var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// markdownHTML renders Markdown (raw HTML in it is omitted, as goldmark does
// by default).
func markdownHTML(src string) string {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(src), &buf); err != nil {
		return "<pre>" + html.EscapeString(src) + "</pre>"
	}
	return buf.String()
}

// bundleHTML renders a display bundle's richest format as HTML.
func bundleHTML(d display.Data) string {
	get := func(mime string) (string, bool) {
		switch v := d.Data[mime].(type) {
		case string:
			return v, true
		case []byte:
			return string(v), true
		}
		return "", false
	}
	if s, ok := get(display.MIMETypeHTML); ok {
		return s
	}
	if s, ok := get(display.MIMETypeSVG); ok {
		return s
	}
	for _, mime := range []string{display.MIMETypePNG, display.MIMETypeJPEG} {
		switch v := d.Data[mime].(type) {
		case []byte:
			return fmt.Sprintf(`<img src="data:%s;base64,%s" style="max-width:100%%">`, mime, base64.StdEncoding.EncodeToString(v))
		case string: // already base64, as in .ipynb files
			return fmt.Sprintf(`<img src="data:%s;base64,%s" style="max-width:100%%">`, mime, v)
		}
	}
	if s, ok := get(display.MIMETypeMarkdown); ok {
		return markdownHTML(s)
	}
	if s, ok := get(display.MIMETypeText); ok {
		return "<pre>" + html.EscapeString(s) + "</pre>"
	}
	return ""
}

// itemHTML renders one item without the ECharts library; hasChart reports
// whether it holds an ECharts chart.
func itemHTML(it any) (s string, hasChart bool) {
	switch x := it.(type) {
	case *Chart:
		return x.fragment(false), x.Err() == nil
	case *Group:
		return x.fragment(false), x.Err() == nil || len(x.charts) > 1
	case *IntervalChart:
		return x.fragment(false), x.Err() == nil
	case *frame.Frame:
		return x.HTML(), false
	case string:
		return markdownHTML(x), false
	case display.Data:
		s := bundleHTML(x)
		return s, strings.Contains(s, chartMarker)
	case *display.Data:
		if x == nil {
			return "", false
		}
		return itemHTML(*x)
	case error:
		return problemBox(x.Error()), false
	}
	d, ok := display.Render(it)
	if !ok {
		return "<pre>" + html.EscapeString(fmt.Sprint(it)) + "</pre>", false
	}
	s = bundleHTML(d)
	return s, strings.Contains(s, chartMarker)
}

// chartMarker is the attribute every ECharts chart container carries.
const chartMarker = `data-conclab-chart="1"`

// libMarker is the attribute of the library's <script> element.
const libMarker = `data-conclab-echarts=`

// NeedsLibrary reports whether an HTML page (or fragment) holds a chart
// container but not the ECharts library, i.e. whether an exporter must add
// LibraryScript to it.
func NeedsLibrary(page string) bool {
	return strings.Contains(page, chartMarker) && !strings.Contains(page, libMarker)
}

const reportStyle = `body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;max-width:980px;margin:24px auto;padding:0 16px;color:#222;line-height:1.45}
h1{font-size:26px;border-bottom:1px solid #ddd;padding-bottom:6px}
section.item{margin:18px 0}
table.conclab-frame td,table.conclab-frame th{font-variant-numeric:tabular-nums}
pre{background:#f6f8fa;padding:8px;overflow:auto}
code{background:#f6f8fa;padding:1px 3px}`

// WriteHTML writes the report as one HTML page. The page works offline: the
// ECharts library is inlined once in the head. When the library cannot be
// found the page is still written, its charts showing their static SVG and a
// note saying why; the error is returned only for a failed write.
func (r *Report) WriteHTML(w io.Writer) error {
	if r == nil {
		return errNilReport
	}
	var body strings.Builder
	charts := false
	for _, it := range r.items {
		s, has := itemHTML(it)
		charts = charts || has
		body.WriteString("<section class=\"item\">\n")
		body.WriteString(s)
		body.WriteString("\n</section>\n")
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>\n%s\n</style>\n",
		html.EscapeString(r.title), reportStyle)
	libNote := ""
	if charts {
		if s, err := LibraryScript(); err != nil {
			libNote = problemBox(err.Error() + " — charts below show their static images.")
		} else {
			bw.WriteString(s)
			bw.WriteString("\n")
		}
	}
	fmt.Fprintf(bw, "</head>\n<body>\n<h1>%s</h1>\n%s\n", html.EscapeString(r.title), libNote)
	bw.WriteString(body.String())
	bw.WriteString("</body>\n</html>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("charts: write report %q: %w", r.title, err)
	}
	return nil
}

// WriteFile writes the report to path (created or truncated).
func (r *Report) WriteFile(path string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("charts: report: %w", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("charts: report: %w", cerr)
		}
	}()
	return r.WriteHTML(f)
}

// errNilReport guards methods called on a nil *Report.
var errNilReport = errors.New("charts: nil report")
