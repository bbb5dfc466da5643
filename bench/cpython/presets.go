package cpython

import (
	"fmt"
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

// Presets returns the real-CPython strategies by the sources' row names
// (Real.Name: "doPrint", "ThreadPool", "/sync-sleep", "/health", "Flask 1w x
// 5t io", "FastAPI 2w cpu", "sync app", ...), at scale s. The upload rows
// ("sync", "asyncio", "ThreadPool", "ProcessPool") expect the Experiment's
// request to carry the image (load.Target Files, see UploadImage).
func Presets(s Scale) []Real {
	s = s.withDefaults()
	var out []Real
	for _, p := range []string{DoPrint, DoPrintAsync, DontPrint} {
		out = append(out, Real{Name: strings.TrimPrefix(p, "/"), App: App000Print(s.PrintLines), Endpoint: p})
	}
	for _, name := range Strategies000 {
		out = append(out, Real{Name: name, App: App000Upload(nil), Endpoint: Upload000[name]})
	}
	for _, ep := range Endpoints001 {
		out = append(out, Real{Name: ep, App: App001(s.Wait001), Endpoint: ep})
	}
	out = append(out, Real{Name: "/health", App: App002(200 * time.Millisecond), Endpoint: "/health"})
	for _, wt := range [][2]int{{1, 5}, {1, 10}, {2, 5}} {
		for _, mode := range []string{ModeIO, ModeCPU} {
			a := App003Flask(wt[0], wt[1], mode, s.Wait003, s.N003)
			out = append(out, Real{Name: fmt.Sprintf("Flask %dw x %dt %s", wt[0], wt[1], mode), App: a, Endpoint: "/test-flask"})
		}
	}
	for _, w := range []int{1, 2} {
		for _, mode := range []string{ModeIO, ModeCPU} {
			a := App003FastAPI(w, mode, s.Wait003, s.N003)
			out = append(out, Real{Name: fmt.Sprintf("FastAPI %dw %s", w, mode), App: a, Endpoint: "/test-fast"})
		}
	}
	out = append(out,
		Real{Name: "sync app", App: App004(false, nil, s.DBDelay004), Endpoint: "/users"},
		Real{Name: "async app", App: App004(true, nil, s.DBDelay004), Endpoint: "/users"})
	return out
}

// Preset returns the real strategy named name (see Presets), or an error
// listing the names.
func Preset(name string, s Scale) (Real, error) {
	var names []string
	for _, r := range Presets(s) {
		if r.Name == name {
			return r, nil
		}
		names = append(names, strconv.Quote(r.Name))
	}
	sort.Strings(names)
	return Real{}, fmt.Errorf("cpython: no preset %q (have %s)", name, strings.Join(names, ", "))
}
