package charts

import (
	"embed"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/conclab/conclab/display"
	"github.com/conclab/conclab/kernel/cell"
)

// The assets directory always holds a committed README.md, so the pattern
// matches and the package compiles on a fresh clone; echarts.min.js is added
// by scripts/setup.d/40-charts.sh before the binary is built.
//
//go:embed assets/*
var assetFS embed.FS

// EnvECharts names an environment variable holding the path of an
// echarts.min.js to use when the binary was built without the embedded one.
const EnvECharts = "CONCLAB_ECHARTS_JS"

// ErrNoLibrary is returned (wrapped) by LibraryScript when no ECharts bundle
// can be found: not embedded, not at $CONCLAB_ECHARTS_JS, not in
// node_modules, and no CDN set.
var ErrNoLibrary = errors.New("charts: the ECharts library is not available (run scripts/setup.sh, which embeds node_modules/echarts/dist/echarts.min.js, or set " + EnvECharts + ", or call charts.UseCDN)")

var lib struct {
	once    sync.Once
	js      string
	version string
	source  string
	err     error
}

// loadLibrary finds the ECharts bundle once: embedded, then $CONCLAB_ECHARTS_JS,
// then node_modules/echarts/dist/echarts.min.js in the working directory or
// any parent.
func loadLibrary() (js, version string, err error) {
	lib.once.Do(func() {
		if b, err := assetFS.ReadFile("assets/echarts.min.js"); err == nil && len(b) > 0 {
			lib.js, lib.source = string(b), "embedded"
			if v, err := assetFS.ReadFile("assets/echarts.version"); err == nil {
				lib.version = strings.TrimSpace(string(v))
			}
			return
		}
		var tried []string
		if p := os.Getenv(EnvECharts); p != "" {
			tried = append(tried, p)
			if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
				lib.js, lib.source = string(b), p
				return
			}
		}
		if dir, err := os.Getwd(); err == nil {
			for {
				p := filepath.Join(dir, "node_modules", "echarts", "dist", "echarts.min.js")
				tried = append(tried, p)
				if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
					lib.js, lib.source = string(b), p
					return
				}
				parent := filepath.Dir(dir)
				if parent == dir {
					break
				}
				dir = parent
			}
		}
		lib.err = fmt.Errorf("%w; looked in the binary and %d paths", ErrNoLibrary, len(tried))
	})
	return lib.js, lib.version, lib.err
}

// maxSessions bounds the set of front-end sessions remembered as holding the
// library; past it the set starts afresh (the cost is a redundant copy).
const maxSessions = 4096

// page tracks which pages already hold the library. A page is a front-end
// session (cell.Session: a Jupyter front end draws one per page load, tab
// and client), so a reload, a second tab or a second front end on the same
// kernel gets its own copy; outside a kernel the session is "" and the
// process is one page until ResetPage.
var page struct {
	sync.Mutex
	sent map[string]bool
	cdn  string
}

// UseCDN makes charts load ECharts from url (e.g.
// "https://cdn.jsdelivr.net/npm/echarts@5.6.0/dist/echarts.min.js") instead of
// embedding the bundle; "" returns to embedding. Only for pages that will be
// viewed online: nothing uses a CDN unless asked to here.
func UseCDN(url string) {
	page.Lock()
	defer page.Unlock()
	page.cdn = url
}

// ResetPage starts a new page: the next chart rendered carries the ECharts
// library again, whatever the session. The notebook runner calls it before
// executing each notebook in a process that runs several. A kernel needs no
// call: each front-end session (page load, tab, client) gets the library
// with its first chart, and a kernel restart is a new process.
func ResetPage() {
	page.Lock()
	defer page.Unlock()
	page.sent = nil
}

// claimLibrary reports whether the caller must include the library: true the
// first time for the current front-end session (cell.Session) since
// ResetPage or process start.
func claimLibrary() bool {
	return markSent(cell.Session())
}

// markSent records that session's page holds the library and reports
// whether it did not before.
func markSent(session string) bool {
	page.Lock()
	defer page.Unlock()
	if page.sent[session] {
		return false
	}
	if page.sent == nil || len(page.sent) >= maxSessions {
		page.sent = make(map[string]bool)
	}
	page.sent[session] = true
	return true
}

func cdnURL() string {
	page.Lock()
	defer page.Unlock()
	return page.cdn
}

// escapeScript makes JavaScript text safe inside an HTML <script> element.
func escapeScript(js string) string {
	r := strings.NewReplacer("</script", `<\/script`, "</SCRIPT", `<\/SCRIPT`, "<!--", `<\!--`)
	return r.Replace(js)
}

// LibraryScript returns the <script> element that defines window.echarts on
// any page: plain HTML, JupyterLab and Notebook 7 without conclab's
// extension, and nbconvert exports, which load require.js. The bundle is UMD; on a page with an AMD loader it would
// call an anonymous define() (require.js then fails with "Mismatched
// anonymous define()" and window.echarts stays undefined), so the inlined
// bundle runs inside a function whose define, exports and module parameters
// are undefined, which sends the UMD wrapper down its browser-global branch.
// The element is idempotent: it does nothing when window.echarts exists.
//
// With UseCDN set, the element loads the URL instead: through require.js when
// the page has an AMD loader, as a <script src> otherwise.
//
// Exporters that assemble a page themselves put it once in the page, before
// the first chart; see the package doc.
func LibraryScript() (string, error) {
	if url := cdnURL(); url != "" {
		return cdnScript(url), nil
	}
	js, version, err := loadLibrary()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<script type="text/javascript" data-conclab-echarts=%q>`, html.EscapeString(version))
	b.WriteString("\nif (!window.echarts) { (function (define, exports, module) {\n")
	b.WriteString(escapeScript(js))
	b.WriteString("\n}).call(window); }\n</script>")
	return b.String(), nil
}

func cdnScript(url string) string {
	u := jsString(url)
	base := jsString(strings.TrimSuffix(url, ".js"))
	return `<script type="text/javascript" data-conclab-echarts="cdn">
(function () {
  if (window.echarts || window.__conclabEChartsLoading) return;
  window.__conclabEChartsLoading = true;
  if (typeof window.require === "function" && typeof window.define === "function" && window.define.amd) {
    window.require.config({paths: {conclab_echarts: ` + base + `}});
    window.require(["conclab_echarts"], function (ec) { window.echarts = ec; });
  } else {
    var s = document.createElement("script");
    s.src = ` + u + `;
    document.head.appendChild(s);
  }
})();
</script>`
}

// Library returns the ECharts library as a display bundle, for a notebook cell
// that wants to load it explicitly. No notebook needs it: each front-end
// session's first chart carries the library. It also counts as the
// session's copy.
func Library() display.Data {
	s, err := LibraryScript()
	if err != nil {
		return display.HTML(problemBox(err.Error()))
	}
	markSent(cell.Session())
	return display.HTML(s + `<div style="font:12px sans-serif;color:#666">ECharts loaded.</div>`)
}

// LibraryInfo describes where the ECharts library comes from: "embedded
// 5.6.0", a file path, "cdn URL", or the error saying it is missing.
func LibraryInfo() string {
	if url := cdnURL(); url != "" {
		return "cdn " + url
	}
	_, v, err := loadLibrary()
	if err != nil {
		return err.Error()
	}
	if lib.source == "embedded" {
		return "embedded " + v
	}
	return lib.source
}
