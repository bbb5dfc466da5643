package strategy

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/conclab/conclab/bench/pymodel"
	"github.com/conclab/conclab/bench/trace"
)

// External is a server the user runs — uvicorn, a Go binary, anything
// serving HTTP — named by its base URL. The lab does not start or stop it
// and does not run its workload: Start checks that something listens there,
// and its Stats are all unmeasured (NaN in Row). The URL must be loopback
// (127.0.0.0/8, ::1, localhost): the lab sends load nowhere else.
type External struct {
	Name string // row label; "" means "external URL"
	URL  string // base URL, e.g. http://127.0.0.1:8000
}

var _ Strategy = External{}

// Label is Name, or "external " + URL.
func (e External) Label() string { return orDefault(e.Name, "external "+e.URL) }

// Validate reports a URL that is not http(s) on a loopback host and port.
func (e External) Validate() error {
	_, err := e.parse()
	return err
}

func (e External) parse() (*url.URL, error) {
	bad := func(why string) error {
		return fmt.Errorf("strategy %q: URL %q: %s", e.Label(), e.URL, why)
	}
	if e.URL == "" {
		return nil, bad("empty (want a base URL such as http://127.0.0.1:8000)")
	}
	u, err := url.Parse(e.URL)
	if err != nil {
		return nil, bad(err.Error())
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, bad("want an http:// or https:// URL")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, bad("a base URL has no query or fragment")
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	loop := ip != nil && ip.IsLoopback()
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		loop = true
	}
	if !loop {
		return nil, bad("not a loopback host (127.0.0.0/8, ::1, localhost): the lab sends load only to this machine")
	}
	return u, nil
}

// Start checks that a server accepts connections at URL (within 2 s) and
// returns it. Closing it leaves the user's server running.
func (e External) Start(ctx context.Context, _ pymodel.Workload, _ StartOptions) (Server, error) {
	u, err := e.parse()
	if err != nil {
		return nil, err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(dctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return nil, fmt.Errorf("strategy %q: nothing answers at %s: %w", e.Label(), e.URL, err)
	}
	c.Close()
	return &externalServer{url: strings.TrimSuffix(e.URL, "/")}, nil
}

// String describes the strategy in one line.
func (e External) String() string { return e.Label() + ": external " + e.URL }

// externalServer is a started External: nothing to stop, nothing measured.
type externalServer struct{ url string }

func (s *externalServer) URL() string                    { return s.url }
func (s *externalServer) Stats() Stats                   { return Stats{}.MeasuredOnly() }
func (s *externalServer) Trace() (trace.Snapshot, error) { return trace.Snapshot{}, nil }
func (s *externalServer) Close() error                   { return nil }
