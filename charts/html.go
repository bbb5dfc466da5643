package charts

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"strings"
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

// chartScript initialises the ECharts chart in element id once
// window.echarts exists (it may be defined by a later output on the page, or
// by a script that is still loading), keeping the static image and saying so
// when it never appears.
const chartScript = `(function () {
  var id = %s, option = %s, t0 = Date.now();
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
  function draw(ec, el) {
    try {
      if (ec.getInstanceByDom(el)) return;
      var fb = el.querySelector(".conclab-chart-fallback");
      if (fb) fb.parentNode.removeChild(fb);
      var chart = ec.init(el, null, {renderer: "canvas"});
      chart.setOption(option);
      el.setAttribute("data-conclab-ready", "1");
      if (window.ResizeObserver) {
        new ResizeObserver(function () { chart.resize(); }).observe(el);
      } else {
        window.addEventListener("resize", function () { chart.resize(); });
      }
    } catch (e) {
      fail("ECharts could not draw this chart: " + e);
    }
  }
  (function wait() {
    var el = document.getElementById(id);
    if (el && window.echarts && window.echarts.init) return draw(window.echarts, el);
    if (Date.now() - t0 > 20000) {
      return fail(el ? "The ECharts library is not on this page (the output that carried it was cleared, or this page does not run its scripts); showing the static image. Run the cell again to draw it." : "chart element missing");
    }
    setTimeout(wait, 40);
  })();
})();`

// fragment renders the chart's HTML; withLib prepends the library script.
func (c *Chart) fragment(withLib bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ss, notes, problem := c.checkPoints()
	if problem != "" {
		title := c.title
		if title == "" {
			title = "chart"
		}
		return problemBox(fmt.Sprintf("Cannot draw %q: %s", title, problem))
	}
	id := newElementID()
	var b strings.Builder
	notes = openContainer(&b, c.width, withLib, notes)
	svg := c.svgLocked(ss, notes)
	fmt.Fprintf(&b, `<div id="%s" class="conclab-chart-canvas" data-conclab-chart="1" style="width:100%%;height:%dpx;position:relative">`, id, c.height)
	fmt.Fprintf(&b, `<img class="conclab-chart-fallback" alt="%s" src="data:image/svg+xml;base64,%s" style="width:100%%;height:100%%;object-fit:contain">`,
		html.EscapeString(c.title), base64.StdEncoding.EncodeToString([]byte(svg)))
	b.WriteString(`</div>`)
	for _, n := range notes {
		fmt.Fprintf(&b, `<div class="conclab-chart-note" style="font-size:12px;color:#666">Note: %s</div>`, html.EscapeString(n))
	}
	fmt.Fprintf(&b, "<script type=\"text/javascript\">\n"+chartScript+"\n</script>", jsString(id), c.option(ss, id))
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
