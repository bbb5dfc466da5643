package cpython

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Scale sets the sources' waits and sizes for presets; the zero value is
// the sources' own (1 s, 10 s, 10,000,000, ...). Tests and quick notebook
// runs scale them down.
type Scale struct {
	Wait001    time.Duration // source 001's wait (1 s)
	Wait003    time.Duration // source 003's I/O wait (10 s)
	N003       int           // source 003's sum-of-squares bound (10,000,000)
	PrintLines int           // source 000's lines per print request (100)
	DBDelay004 time.Duration // source 004's added insert wait (0)
}

func (s Scale) withDefaults() Scale {
	if s.Wait001 <= 0 {
		s.Wait001 = time.Second
	}
	if s.Wait003 <= 0 {
		s.Wait003 = 10 * time.Second
	}
	if s.N003 <= 0 {
		s.N003 = 10_000_000
	}
	if s.PrintLines <= 0 {
		s.PrintLines = 100
	}
	return s
}

// Reference is a real-CPython strategy preset under a source's row name:
// the app to serve and the request a load generator sends to it.
type Reference struct {
	Name   string // the source's row name, e.g. "/sync-sleep", "ThreadPool", "gunicorn 2w x 5t"
	Source string // "000" ... "004"
	App    App
	Method string // GET or POST
	Path   string // appended to the server's URL
	// Upload is true when the request is source 000's multipart upload of
	// the server's large image (see Upload and Server.ImagePath).
	Upload bool
}

// Server returns a new, not yet started server for the reference.
func (r Reference) Server(opts Options) *Server {
	app := r.App
	app.Name = r.Name
	return NewServer(app, opts)
}

// Request builds the request a load generator sends to a started server
// of this reference.
func (r Reference) Request(srv *Server) (Request, error) {
	url := srv.URL() + r.Path
	if r.Upload {
		return Upload(url, srv.ImagePath("large"))
	}
	return Request{Method: r.Method, URL: url}, nil
}

// Presets returns every reference by the sources' row names, at scale s.
func Presets(s Scale) []Reference {
	s = s.withDefaults()
	var out []Reference
	for _, p := range []string{DoPrint, DoPrintAsync, DontPrint} {
		out = append(out, Reference{Name: strings.TrimPrefix(p, "/"), Source: "000", App: App000Print(s.PrintLines), Method: http.MethodGet, Path: p})
	}
	for _, name := range Strategies000 {
		out = append(out, Reference{Name: name, Source: "000", App: App000Upload(nil), Method: http.MethodPost, Path: Upload000[name], Upload: true})
	}
	for _, ep := range Endpoints001 {
		out = append(out, Reference{Name: ep, Source: "001", App: App001(s.Wait001), Method: http.MethodGet, Path: ep})
	}
	out = append(out, Reference{Name: "/health", Source: "002", App: App002(200 * time.Millisecond), Method: http.MethodGet, Path: "/health"})
	for _, wt := range [][2]int{{1, 5}, {1, 10}, {2, 5}} {
		for _, mode := range []string{ModeIO, ModeCPU} {
			a := App003Flask(wt[0], wt[1], mode, s.Wait003, s.N003)
			out = append(out, Reference{Name: fmt.Sprintf("Flask %dw x %dt %s", wt[0], wt[1], mode), Source: "003", App: a, Method: http.MethodGet, Path: "/test-flask"})
		}
	}
	for _, w := range []int{1, 2} {
		for _, mode := range []string{ModeIO, ModeCPU} {
			a := App003FastAPI(w, mode, s.Wait003, s.N003)
			out = append(out, Reference{Name: fmt.Sprintf("FastAPI %dw %s", w, mode), Source: "003", App: a, Method: http.MethodGet, Path: "/test-fast"})
		}
	}
	out = append(out,
		Reference{Name: "sync app", Source: "004", App: App004(false, nil, s.DBDelay004), Method: http.MethodGet, Path: "/users"},
		Reference{Name: "async app", Source: "004", App: App004(true, nil, s.DBDelay004), Method: http.MethodGet, Path: "/users"})
	return out
}

// Preset returns the reference named name (see Presets), or an error
// listing the names.
func Preset(name string, s Scale) (Reference, error) {
	var names []string
	for _, r := range Presets(s) {
		if r.Name == name {
			return r, nil
		}
		names = append(names, strconv.Quote(r.Name))
	}
	sort.Strings(names)
	return Reference{}, fmt.Errorf("cpython: no preset %q (have %s)", name, strings.Join(names, ", "))
}
