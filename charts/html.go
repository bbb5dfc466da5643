package charts

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"sync"
)

// jsString quotes s as a JavaScript string literal safe inside <script>.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return strings.ReplaceAll(string(b), "</", `<\/`)
}

// problemBox is the HTML of a chart that cannot be drawn.
func problemBox(msg string) string {
	return `<div class="conclab-chart conclab-chart-problem" data-conclab-problem="1" style="max-width:900px;border:1px solid #d9a5a5;background:#fff6f6;color:#8a1f1f;padding:10px 12px;font:13px sans-serif;border-radius:4px">` +
		html.EscapeString(msg) + `</div>`
}

//go:embed render.js
var renderJS string

// renderScript is render.js as inlined into every chart's script: without
// its comment lines and indentation, inside a function whose module
// parameter is undefined, so that it defines window.conclabCharts (once per
// page: a later copy of the same version leaves the first in place).
var renderScript = sync.OnceValue(func() string {
	var b strings.Builder
	b.WriteString("(function (module) {\n")
	for _, line := range strings.Split(renderJS, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteString("})();")
	return escapeScript(b.String())
})

// chartScript draws the ECharts chart in element id with render.js once
// window.echarts exists (it may be defined by a later output on the page, or
// by a script that is still loading), keeping the static image and saying so
// when it never appears.
const chartScript = `(function () {
  var id = %s, option = %s, t0 = Date.now();
  %s
  function fail(msg) {
    var el = document.getElementById(id);
    if (!el || el.getAttribute("data-conclab-error")) return;
    el.setAttribute("data-conclab-error", msg);
    var p = document.createElement("div");
    p.style.cssText = "font:12px sans-serif;color:#a33;padding:2px 0";
    p.textContent = msg;
    el.parentNode.insertBefore(p, el);
    if (window.console) console.error("conclab chart " + id + ": " + msg);
  }
  (function wait() {
    var el = document.getElementById(id);
    if (el && window.echarts && window.echarts.init && window.conclabCharts) {
      if (el.conclabMounted) return;
      el.conclabMounted = true;
      try {
        var fb = el.querySelector(".conclab-chart-fallback");
        if (fb) fb.parentNode.removeChild(fb);
        window.conclabCharts.mount(window.echarts, el, option, {html: true});
      } catch (e) {
        fail("ECharts could not draw this chart: " + e);
      }
      return;
    }
    if (Date.now() - t0 > 20000) {
      return fail(el ? "The ECharts library is not on this page (the output that carried it was cleared, or this page does not run its scripts); showing the static image. Run the cell again to draw it." : "chart element missing");
    }
    setTimeout(wait, 40);
  })();
})();`

// scriptJSON makes JSON safe inside a <script> element (<, > and & as
// \u escapes, which JavaScript reads back the same).
func scriptJSON(js string) string {
	var b bytes.Buffer
	json.HTMLEscape(&b, []byte(js))
	return b.String()
}

// writeChart writes a drawable chart's container: the static SVG as an
// image, its notes, and the script that draws the option over it.
func writeChart(b *strings.Builder, title string, height int, svg string, notes []string, option string) {
	id := newElementID()
	fmt.Fprintf(b, `<div id="%s" class="conclab-chart-canvas" data-conclab-chart="1" style="width:100%%;height:%dpx;position:relative">`, id, height)
	fmt.Fprintf(b, `<img class="conclab-chart-fallback" alt="%s" src="data:image/svg+xml;base64,%s" style="width:100%%;height:100%%;object-fit:contain">`,
		html.EscapeString(title), base64.StdEncoding.EncodeToString([]byte(svg)))
	b.WriteString(`</div>`)
	for _, n := range notes {
		fmt.Fprintf(b, `<div class="conclab-chart-note" style="font-size:12px;color:#666">Note: %s</div>`, html.EscapeString(n))
	}
	fmt.Fprintf(b, "<script type=\"text/javascript\">\n"+chartScript+"\n</script>", jsString(id), scriptJSON(option), renderScript())
}

// fragment renders the chart's HTML; withLib prepends the library script.
func (c *Chart) fragment(withLib bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ss, notes, problem := c.checkPoints()
	if problem != "" {
		return problemBox(fmt.Sprintf("Cannot draw %q: %s", orDefault(c.title, "chart"), problem))
	}
	var b strings.Builder
	notes = openContainer(&b, c.width, withLib, notes)
	writeChart(&b, c.title, c.height, c.svgLocked(ss, notes), notes, c.option(ss, "option"))
	b.WriteString(`</div>`)
	return b.String()
}

// openContainer writes the opening of a chart's container, with the
// ECharts library when withLib; a library that cannot be found becomes a
// note, returned with the others.
func openContainer(b *strings.Builder, width int, withLib bool, notes []string) []string {
	fmt.Fprintf(b, `<div class="conclab-chart" style="max-width:%dpx;width:100%%;font-family:sans-serif">`, width)
	if withLib {
		s, err := LibraryScript()
		if err != nil {
			return append(notes, err.Error())
		}
		b.WriteString(s)
	}
	return notes
}
